/**
 * The third and fourth units of the keyword prefilter (issue 19 §3,
 * docs/engine-speed.md "Bigram prefilter density"). A scanner's bigram table
 * marks 26% of English positions, because keywords begin with the commonest
 * bigrams (`er`, `re`, `st`…); the first three units of its keywords match
 * about 4–6%, the first four 1–3%. So at a marked bigram the units after it
 * are checked too, against a bit set per bigram and one per hashed trigram.
 *
 * Derived from the automaton's keywords on first use (not stored in the built
 * tables, whose format pages and the CLI load). Each entry is what the third
 * unit can *not* be: 0 (the default) keeps every marked bigram a hit, so a
 * bigram marked for another reason (an always-on rule may start at its second
 * unit, a keyword of one or two units ends in it) needs no entry at all.
 */
import { bigramByte, quadSlot, thirdBit } from './bigram-hits.ts';
import { unitsFoldingTo } from './keyword-automaton.ts';

/**
 * Per bigram index (`bigramByte(a) << 8 | bigramByte(b)`), the bits of the
 * third units that begin no keyword with that bigram. Folded keywords, as the
 * automaton holds them; every unit folding to a keyword's unit stands for it.
 * `keepsAll(index)`: the bigram is a hit whatever follows it (an always-on
 * start at its second unit); its entry stays 0.
 *
 * Cost: one step per (keyword, units folding to its first three units), and
 * one pass over the touched bigrams; no walk over all 65,536 of them.
 */
export function thirdUnitMisses(
  keywords: readonly string[],
  keepsAll: (index: number) => boolean,
): Int32Array {
  const follows = new Map<number, number>();
  for (const kw of keywords) {
    const firsts = unitsFoldingTo(kw.charCodeAt(0));
    // A one-unit keyword ends at the bigram's first unit: any bigram after it is a hit.
    const seconds = kw.length > 1 ? unitsFoldingTo(kw.charCodeAt(1)) : null;
    let bits = -1;
    if (kw.length > 2) {
      bits = 0;
      for (const c of unitsFoldingTo(kw.charCodeAt(2))) bits |= thirdBit(c);
    }
    for (const a of firsts) {
      const row = bigramByte(a) << 8;
      const lows = seconds ?? ALL_BYTES;
      for (const b of lows) {
        const index = row | bigramByte(b);
        follows.set(index, (follows.get(index) ?? 0) | bits);
      }
    }
  }
  const misses = new Int32Array(0x10000);
  for (const [index, bits] of follows) {
    if (bits !== -1 && !keepsAll(index)) misses[index] = ~bits;
  }
  return misses;
}

/**
 * Per slot (`quadSlot`), the bits (`thirdBit`) of the fourth units that begin
 * no keyword with the three units before them. Read only for a bigram whose
 * third-unit entry is not 0 (`thirdUnitMisses`: no keyword of one or two units,
 * no always-on start in it) and whose third unit passed: a keyword of three
 * units leaves its slot 0, so whatever follows it is a hit.
 */
export function fourthUnitMisses(keywords: readonly string[]): Int32Array {
  const follows = new Map<number, number>();
  for (const kw of keywords) {
    if (kw.length < 3) continue;
    let bits = -1;
    if (kw.length > 3) {
      bits = 0;
      for (const d of unitsFoldingTo(kw.charCodeAt(3))) bits |= thirdBit(d);
    }
    const thirds = unitsFoldingTo(kw.charCodeAt(2));
    for (const a of unitsFoldingTo(kw.charCodeAt(0))) {
      for (const b of unitsFoldingTo(kw.charCodeAt(1))) {
        const index = (bigramByte(a) << 8) | bigramByte(b);
        for (const c of thirds) {
          const slot = quadSlot(index, bigramByte(c));
          follows.set(slot, (follows.get(slot) ?? 0) | bits);
        }
      }
    }
  }
  const misses = new Int32Array(0x10000);
  for (const [slot, bits] of follows) if (bits !== -1) misses[slot] = ~bits;
  return misses;
}

/** Every byte value, as a unit standing for itself (`bigramByte` of 0..0x7f, 0xff80..). */
const ALL_BYTES: readonly number[] = Array.from({ length: 0x100 }, (_, b) =>
  b < 0x80 ? b : 0xff00 | b,
);
