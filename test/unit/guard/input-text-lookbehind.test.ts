/**
 * The lookbehind a validator reads (issue 17 §4: `PUBLIC_` before a rule's `KEY`
 * keyword): `textBefore(at)` is the 32 units that end at `at`, whatever was
 * trimmed before and however the text arrived.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputText, LOOKBEHIND } from '../../../src/core/guard/input-text.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';

describe('InputText.textBefore', () => {
  it('is the LOOKBEHIND units before an offset, for any appends and trims', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ maxLength: 20 }), fc.nat(40)), { maxLength: 40 }),
        (steps) => {
          const input = new InputText();
          let whole = '';
          for (const [chunk, keep] of steps) {
            input.append(chunk);
            whole += chunk;
            // Trim to any point, keeping `keep` units at most.
            input.trimBefore(Math.max(input.start, whole.length - keep));
            for (let at = input.start; at <= whole.length; at++) {
              expect(input.textBefore(at)).toBe(whole.slice(Math.max(0, at - LOOKBEHIND), at));
            }
          }
        },
      ),
      { numRuns: Math.min(PROPERTY_RUNS, 2_000) },
    );
  });
});
