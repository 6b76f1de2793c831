/**
 * `GuardOptions.attachMatchedText` (issue 4: the audit digest needs the matched
 * text): for any text and any split into chunks, every match event's `matched`
 * is exactly the input's code points [start, end), and the events are otherwise
 * those of the guard without the option (the option changes nothing else).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GuardEvent } from '../../src/core/guard/guard-event.ts';
import { StreamGuard } from '../../src/core/guard/stream-guard.ts';
import { compilePack } from '../../src/core/rules/compile-pack.ts';
import { engineTestPack } from '../support/engine-test-pack.ts';
import { cut, cutsArbitrary, PROPERTY_RUNS, textArbitrary } from '../support/text-arbitraries.ts';

const pack = compilePack(engineTestPack);

function run(chunks: string[], attachMatchedText: boolean): { out: string; events: GuardEvent[] } {
  const guard = new StreamGuard(pack, { attachMatchedText });
  let out = '';
  const events: GuardEvent[] = [];
  for (const chunk of chunks) {
    const r = guard.push(chunk);
    out += r.emit;
    events.push(...r.events);
  }
  const r = guard.end();
  return { out: out + r.emit, events: [...events, ...r.events] };
}

describe('matched text on match events', () => {
  it('equals the code points the offsets name, for any chunking', () => {
    fc.assert(
      fc.property(textArbitrary(engineTestPack), cutsArbitrary, (text, cuts) => {
        const points = Array.from(text);
        const withText = run(cut(text, cuts), true);
        const without = run(cut(text, cuts), false);
        expect(withText.out).toBe(without.out);
        expect(withText.events.length).toBe(without.events.length);
        withText.events.forEach((event, i) => {
          if (event.type !== 'match') {
            expect(event).toEqual(without.events[i]);
            return;
          }
          expect(event.matched).toBe(points.slice(event.start, event.end).join(''));
          const { matched: _matched, ...rest } = event;
          expect(rest).toEqual(without.events[i]);
        });
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('is absent unless asked for', () => {
    const { events } = run(['x tok_abcd', '1234 y'], false);
    expect(events).toHaveLength(1);
    expect(events[0]).not.toHaveProperty('matched');
    const asked = run(['x tok_abcd', '1234 y'], true);
    expect(asked.events[0]).toMatchObject({ type: 'match', rule: 'tok', matched: 'tok_abcd1234' });
  });
});
