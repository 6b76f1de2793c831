/**
 * A guard drops its input at a block or the end instead of trimming it (stream-guard.ts
 * `dropAtEnd`, issue 19 §5: the trim counted the code points of every history message's
 * whole text, which nothing reads after the end). Differential against the slow path
 * (the trim): for any text (surrogate pairs, lone surrogates, astral tags), any chunking
 * and any policy, blocking included with pushes after the block, every push's result
 * and hold, the end's result and the counters are the same.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type GuardOptions, dropAtEnd } from '../../src/core/guard/stream-guard.ts';
import { builtinPackJson, getCorePack } from '../../src/core/rules/builtin-packs.ts';
import { SHIPPED_AND_PII_REDACTED, stepsWithShortcut } from '../support/guard-steps.ts';
import { PROPERTY_RUNS, cut, cutsArbitrary, textArbitrary } from '../support/text-arbitraries.ts';

const OPTIONS: [string, GuardOptions][] = [
  ...SHIPPED_AND_PII_REDACTED,
  [
    'secrets and PII blocked',
    { policy: { secret: 'block', pii: 'block' }, attachMatchedText: true },
  ],
];

describe('input dropped at a block or the end (issue 19 §5)', () => {
  const text = textArbitrary(builtinPackJson());
  for (const [label, options] of OPTIONS) {
    it(`every result, hold and counter as with the trim, ${label} (fast-check)`, () => {
      fc.assert(
        fc.property(text, cutsArbitrary, (t, cuts) => {
          const chunks = cut(t, cuts);
          const pack = getCorePack();
          expect(stepsWithShortcut(dropAtEnd, true, pack, chunks, options)).toEqual(
            stepsWithShortcut(dropAtEnd, false, pack, chunks, options),
          );
        }),
        { numRuns: Math.ceil(PROPERTY_RUNS / 4) },
      );
    });
  }
});
