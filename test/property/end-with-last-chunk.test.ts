/**
 * A whole text given with the end (issue 19 §5): a history document's message is
 * fed and finished at once (stream-rewriter.ts `echo`), and `StreamGuard.end(last)`
 * / `ChannelLedger.finish(last)` skip the settle and trim a separate push would do
 * before the end. Differential against the slow path, `push(last)` then `end()`:
 * for any text, chunking and policy (blocking included), the same output, events,
 * block and release point, and every frame span's guarded text the same.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GuardEvent } from '../../src/core/guard/guard-event.ts';
import { type GuardOptions, StreamGuard } from '../../src/core/guard/stream-guard.ts';
import { builtinPackJson, getCorePack } from '../../src/core/rules/builtin-packs.ts';
import { ChannelLedger } from '../../src/core/wire/channel-ledger.ts';
import { SHIPPED_AND_PII_REDACTED } from '../support/guard-steps.ts';
import { PROPERTY_RUNS, cut, cutsArbitrary, textArbitrary } from '../support/text-arbitraries.ts';

const OPTIONS: [string, GuardOptions][] = [
  ...SHIPPED_AND_PII_REDACTED,
  ['secrets blocked', { policy: { secret: 'block' }, attachMatchedText: true }],
];

/** Output, events, block and release of a guard fed `chunks`, the last with the end or not. */
function guarded(chunks: readonly string[], options: GuardOptions, withEnd: boolean) {
  const guard = new StreamGuard(getCorePack(), options);
  const last = chunks.length === 0 ? '' : (chunks[chunks.length - 1] as string);
  const body = withEnd ? chunks.slice(0, -1) : chunks;
  let output = '';
  const events: GuardEvent[] = [];
  for (const chunk of body) {
    const r = guard.push(chunk);
    output += r.emit;
    events.push(...r.events);
  }
  const r = withEnd ? guard.end(last) : guard.end();
  output += r.emit;
  events.push(...r.events);
  return { output, events, blocked: r.blocked, released: r.released };
}

/** A ledger's view of the same: every span's text, events, release; the last with the end or not. */
function ledgered(chunks: readonly string[], options: GuardOptions, withEnd: boolean) {
  const events: GuardEvent[] = [];
  const ledger = new ChannelLedger('c', getCorePack(), options, (_c, list) => events.push(...list));
  const spans: [number, number][] = [];
  for (const chunk of chunks.slice(0, -1)) {
    const from = ledger.feed(chunk);
    spans.push([from, ledger.fed]);
  }
  const from = ledger.fed;
  const last = chunks[chunks.length - 1] ?? '';
  if (withEnd) ledger.finish(last);
  else {
    ledger.feed(last);
    ledger.finish();
  }
  spans.push([from, ledger.fed]);
  return {
    texts: spans.map(([a, b]) => ledger.textOf(a, b)),
    whole: ledger.textUpTo(ledger.fed),
    input: ledger.inputText,
    events,
    blocked: ledger.isBlocked,
    released: ledger.releasedTo,
  };
}

describe('the last chunk given with the end', () => {
  const text = textArbitrary(builtinPackJson());
  for (const [label, options] of OPTIONS) {
    it(`StreamGuard.end(last) equals push(last) then end(), ${label} (fast-check)`, () => {
      fc.assert(
        fc.property(text, cutsArbitrary, (t, cuts) => {
          const chunks = cut(t, cuts);
          expect(guarded(chunks, options, true)).toEqual(guarded(chunks, options, false));
        }),
        { numRuns: Math.ceil(PROPERTY_RUNS / 4) },
      );
    });

    it(`ChannelLedger.finish(last) equals feed(last) then finish(), ${label} (fast-check)`, () => {
      fc.assert(
        fc.property(text, cutsArbitrary, (t, cuts) => {
          const chunks = cut(t, cuts);
          expect(ledgered(chunks, options, true)).toEqual(ledgered(chunks, options, false));
        }),
        { numRuns: Math.ceil(PROPERTY_RUNS / 4) },
      );
    });
  }

  it('a whole message with the end: the same as a push and an end', () => {
    const message = 'token ghp_' + 'EXAMPLEexample'.repeat(2) + '01234567 and more text';
    expect(guarded([message], {}, true)).toEqual(guarded([message], {}, false));
    expect(guarded([message], {}, true).output).toContain('[redacted:github-pat]');
  });
});
