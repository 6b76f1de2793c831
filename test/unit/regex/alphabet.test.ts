/**
 * The alphabet's classes are exactly the groups of code units that no set
 * tells apart, and a class mask says which classes a set consumes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildAlphabet, classMask } from '../../../src/core/regex/alphabet.ts';
import { type CharSet, fromRanges, has } from '../../../src/core/regex/char-set.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';

const unit = fc.integer({ min: 0, max: 0xffff });
const charSet: fc.Arbitrary<CharSet> = fc
  .array(fc.tuple(unit, fc.nat(300)), { minLength: 1, maxLength: 6 })
  .map((pairs) => fromRanges(pairs.map(([lo, w]) => [lo, Math.min(0xffff, lo + w)])));

describe('buildAlphabet', () => {
  it(
    'two units share a class only when every set agrees on them (fast-check)',
    { timeout: 120_000 },
    () => {
      fc.assert(
        fc.property(
          fc.array(charSet, { maxLength: 8 }),
          fc.array(unit, { maxLength: 40 }),
          (sets, probes) => {
            const alphabet = buildAlphabet(sets);
            const signature = (u: number) => sets.map((s) => has(s, u)).join();
            for (const a of probes) {
              for (const b of probes) {
                const same = alphabet.classOf[a] === alphabet.classOf[b];
                if (same) expect(signature(a)).toBe(signature(b));
                // Different classes may still agree on these sets only through the word /
                // line-terminator sets every alphabet also separates.
              }
              const g = alphabet.classOf[a]!;
              expect(alphabet.classOf[alphabet.representative[g]!]).toBe(g);
            }
            sets.forEach((set) => {
              const mask = classMask(alphabet, set);
              for (const a of probes) expect(mask[alphabet.classOf[a]!] === 1).toBe(has(set, a));
            });
          },
        ),
        { numRuns: Math.min(PROPERTY_RUNS, 500) },
      );
    },
  );

  it('numbers classes by their lowest unit', () => {
    const alphabet = buildAlphabet([fromRanges([[0x61, 0x63]])]);
    const reps = [...alphabet.representative];
    expect(reps).toEqual([...reps].sort((x, y) => x - y));
    expect(alphabet.classOf[0x62]).toBe(alphabet.classOf[0x61]);
    expect(alphabet.classOf[0x64]).not.toBe(alphabet.classOf[0x63]);
  });
});
