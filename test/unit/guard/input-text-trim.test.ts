/**
 * A trim moves the retained text's start and cuts the string once more than
 * TRIM_SLACK units lie before the kept lookbehind (input-text.ts; the guard
 * itself trims only once per `trimStride` units, issue 19 §3). Whatever the
 * appends and trims, every read is what the same offsets name in the whole
 * text, and the string kept stays bounded.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputText, LOOKBEHIND, TRIM_SLACK } from '../../../src/core/guard/input-text.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';

/** Code points in `s` (a lone surrogate counts as one). */
function codePoints(s: string): number {
  return [...s].length;
}

/** Units with surrogate pairs split across appends and trims. */
const chunk = fc.string({
  unit: fc.constantFrom('a', ' ', '\uD83D', '\uDE00', '😀', '我', '\u200B'),
  maxLength: 24,
});

describe('InputText trims', () => {
  // The view keeps LOOKBEHIND units before the retained ones; the raw input only one.
  it.each([LOOKBEHIND, 1])(
    'read exactly the whole text at every retained offset, for any appends and trims (%i kept before)',
    (lookbehind) => {
      fc.assert(
        fc.property(fc.array(fc.tuple(chunk, fc.nat(60)), { maxLength: 40 }), (steps) => {
          const input = new InputText(true, lookbehind);
          let whole = '';
          for (const [piece, keep] of steps) {
            input.append(piece);
            whole += piece;
            input.trimBefore(Math.max(input.start, whole.length - keep));
            expect(input.end).toBe(whole.length);
            expect(input.retained).toBe(whole.length - input.start);
            const text = input.retainedText;
            const base = input.retainedBase;
            expect(base).toBeLessThanOrEqual(input.start);
            // Bounded: the retained units, LOOKBEHIND before them and the slack.
            expect(input.start - base).toBeLessThanOrEqual(lookbehind + TRIM_SLACK);
            for (let at = input.start; at <= whole.length; at++) {
              if (at < whole.length) {
                expect(input.unitAt(at)).toBe(whole.charCodeAt(at));
                expect(text.charCodeAt(at - base)).toBe(whole.charCodeAt(at));
              }
              expect(input.unitBefore(at)).toBe(at === 0 ? -1 : whole.charCodeAt(at - 1));
              expect(input.slice(input.start, at)).toBe(whole.slice(input.start, at));
            }
            // Code points before the retained start, its end and a unit in between.
            const mid = (input.start + whole.length) >> 1;
            for (const at of [input.start, mid, whole.length]) {
              expect(input.codePointOffset(at)).toBe(codePoints(whole.slice(0, at)));
            }
          }
        }),
        { numRuns: Math.min(PROPERTY_RUNS, 300) },
      );
    },
  );
});
