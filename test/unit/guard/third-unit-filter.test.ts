/**
 * The third- and fourth-unit checks of the keyword prefilter
 * (third-unit-filter.ts): for any keywords and any three or four units, the
 * units are ruled out only when no keyword (case-folded, as the automaton
 * folds) begins with them, nor is a shorter keyword a prefix of them. And it rules
 * out something: otherwise it would be a check that cannot fail.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bigramByte, thirdBit } from '../../../src/core/guard/bigram-hits.ts';
import { foldText, foldedUnits } from '../../../src/core/guard/keyword-automaton.ts';
import { caselessIndex, quadSlot } from '../../../src/core/guard/bigram-hits.ts';
import { fourthUnitMisses, thirdUnitMisses } from '../../../src/core/guard/third-unit-filter.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';

foldedUnits();

/** Units that fold to others, or collide in `bigramByte`/`thirdBit` with common ones. */
const UNITS = [...'abeErRsStTkK0_- 中数é', '\u212a', '\u0130', '\u00c9', '\uff41', 'p', '@'];
const unit = fc.constantFrom(...UNITS);
const keyword = fc.array(unit, { minLength: 1, maxLength: 5 }).map((us) => us.join(''));

/** Whether some keyword could begin at a text starting with `units` (or end inside them). */
function begins(keywords: readonly string[], units: string): boolean {
  const text = foldText(units);
  return keywords.some((k) => {
    const folded = foldText(k);
    return folded.length <= text.length ? text.startsWith(folded) : folded.startsWith(text);
  });
}

describe('thirdUnitMisses', () => {
  it('never rules out three units a keyword begins with', () => {
    fc.assert(
      fc.property(fc.array(keyword, { maxLength: 8 }), unit, unit, unit, (kws, a, b, c) => {
        const misses = thirdUnitMisses([...new Set(kws.map(foldText))], () => false);
        const index = (bigramByte(a.charCodeAt(0)) << 8) | bigramByte(b.charCodeAt(0));
        const ruledOut =
          ((misses[caselessIndex(index)] as number) & thirdBit(c.charCodeAt(0))) !== 0;
        if (begins(kws, a + b + c)) expect(ruledOut).toBe(false);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('never rules out four units a keyword begins with (after a third that passed)', () => {
    fc.assert(
      fc.property(
        fc.array(keyword, { maxLength: 8 }),
        unit,
        unit,
        unit,
        unit,
        (kws, a, b, c, d) => {
          const folded = [...new Set(kws.map(foldText))];
          const thirds = thirdUnitMisses(folded, () => false);
          const fourths = fourthUnitMisses(folded);
          const index = (bigramByte(a.charCodeAt(0)) << 8) | bigramByte(b.charCodeAt(0));
          const miss = thirds[caselessIndex(index)] as number;
          const third = bigramByte(c.charCodeAt(0));
          // Read only as the scanner reads it: a refinable bigram whose third unit passed.
          if (miss === 0 || (miss & thirdBit(c.charCodeAt(0))) !== 0) return;
          const ruledOut =
            ((fourths[quadSlot(index, third)] as number) & thirdBit(d.charCodeAt(0))) !== 0;
          if (begins(kws, a + b + c + d)) expect(ruledOut).toBe(false);
        },
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('rules out what no keyword begins with, and keeps what `keepsAll` names', () => {
    const se = caselessIndex((bigramByte(0x73) << 8) | bigramByte(0x65));
    const misses = thirdUnitMisses(['secret', 'sk'], () => false);
    expect((misses[se] as number) & thirdBit(0x78)).not.toBe(0); // "sex": ruled out
    expect((misses[se] as number) & thirdBit(0x63)).toBe(0); // "sec"
    expect((misses[se] as number) & thirdBit(0x43)).toBe(0); // "seC": folds to "sec"
    const sk = caselessIndex((bigramByte(0x73) << 8) | bigramByte(0x6b));
    expect(misses[sk]).toBe(0); // "sk" is a whole keyword: any third unit
    const kept = thirdUnitMisses(['secret'], (index) => index === se);
    expect(kept[se]).toBe(0);
    const fourths = fourthUnitMisses(['secret', 'sec']);
    const sec = quadSlot(se, 0x63);
    expect(fourths[sec]).toBe(0); // "sec" is a whole keyword: any fourth unit
    const sek = quadSlot(se, bigramByte(0x6b));
    expect((fourthUnitMisses(['sekrit'])[sek] as number) & thirdBit(0x72)).toBe(0); // "sekr"
    expect((fourthUnitMisses(['sekrit'])[sek] as number) & thirdBit(0x78)).not.toBe(0); // "sekx"
  });
});
