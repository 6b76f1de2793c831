/**
 * Guards of one pack share what depends on the pack and options only (guard-plan.ts,
 * issue 19 §5) and nothing per stream: for any two texts, options and chunkings, a
 * guard fed while another guard of the same pack is fed in between (the other with
 * the same or other options) releases and reports exactly what a guard on a pack of
 * its own does with its text alone.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GuardEvent } from '../../src/core/guard/guard-event.ts';
import { optionsKey } from '../../src/core/guard/guard-plan.ts';
import { scanChunks } from '../../src/core/guard/scan-text.ts';
import { type GuardOptions, StreamGuard } from '../../src/core/guard/stream-guard.ts';
import { ConversationSession } from '../../src/core/guard/conversation-session.ts';
import {
  builtinPackJson,
  compileGuardPack,
  getCorePack,
} from '../../src/core/rules/builtin-packs.ts';
import { PROPERTY_RUNS, cut, cutsArbitrary, textArbitrary } from '../support/text-arbitraries.ts';

/** Option sets that change which rules run or how (active-rules.ts), and the default. */
const OPTION_SETS: GuardOptions[] = [
  {},
  { policy: { secret: 'flag' } },
  { policy: { pii: 'block', secret: 'off' }, policyMode: 'set' },
  { alwaysOnOnly: true },
  { attachMatchedText: true },
];

interface Run {
  output: string;
  events: GuardEvent[];
}

/** Feeds `a` and `b` chunk by chunk, alternating, into two guards on the same pack. */
function interleaved(
  chunksA: string[],
  optionsA: GuardOptions,
  chunksB: string[],
  optionsB: GuardOptions,
): [Run, Run] {
  const pack = getCorePack();
  const guards = [new StreamGuard(pack, optionsA), new StreamGuard(pack, optionsB)];
  const runs: Run[] = [
    { output: '', events: [] },
    { output: '', events: [] },
  ];
  const chunks = [chunksA, chunksB];
  for (let i = 0; i < Math.max(chunksA.length, chunksB.length); i++) {
    for (const g of [0, 1]) {
      const chunk = chunks[g]?.[i];
      if (chunk === undefined) continue;
      const r = (guards[g] as StreamGuard).push(chunk);
      (runs[g] as Run).output += r.emit;
      (runs[g] as Run).events.push(...r.events);
    }
  }
  for (const g of [0, 1]) {
    const r = (guards[g] as StreamGuard).end();
    (runs[g] as Run).output += r.emit;
    (runs[g] as Run).events.push(...r.events);
  }
  return runs as [Run, Run];
}

describe('guards of one pack share no per-stream state', () => {
  // A pack object of its own: no plan, automaton or table shared with getCorePack()'s guards.
  const alone = compileGuardPack();
  const text = textArbitrary(builtinPackJson());
  const options = fc.constantFrom(...OPTION_SETS);

  it(
    'each of two interleaved guards equals a guard fed alone (fast-check)',
    { timeout: 300_000 },
    () => {
      fc.assert(
        fc.property(
          text,
          cutsArbitrary,
          options,
          text,
          cutsArbitrary,
          options,
          (a, cutsA, optionsA, b, cutsB, optionsB) => {
            const chunksA = cut(a, cutsA);
            const chunksB = cut(b, cutsB);
            const [runA, runB] = interleaved(chunksA, optionsA, chunksB, optionsB);
            const refA = scanChunks(alone, chunksA, optionsA);
            const refB = scanChunks(alone, chunksB, optionsB);
            expect(runA.output).toBe(refA.output);
            expect(runA.events).toEqual(refA.events);
            expect(runB.output).toBe(refB.output);
            expect(runB.events).toEqual(refB.events);
          },
        ),
        { numRuns: Math.ceil(PROPERTY_RUNS / 4) },
      );
    },
  );

  it('options that run other rules are planned apart; per-guard ones are not', () => {
    const keys = new Set(OPTION_SETS.map(optionsKey));
    // attachMatchedText changes no rule or action: it shares the default's plan.
    expect(keys.size).toBe(OPTION_SETS.length - 1);
    expect(optionsKey({ policy: { secret: 'flag', pii: 'block' } })).toBe(
      optionsKey({ policy: { pii: 'block', secret: 'flag' } }),
    );
    const session = new ConversationSession();
    const before = optionsKey({ session });
    session.completeTurn(new Map([['raised-flag', 2]]));
    expect(optionsKey({ session })).not.toBe(before);
  });
});
