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
import { bigramByte, quadSlot } from './bigram-hits.ts';
import { unitsFoldingTo } from './keyword-automaton.ts';

/**
 * Per caseless bigram index (`caselessIndex`), the bits (`thirdBit`) of the
 * third units that begin no keyword with that bigram. Folded keywords, as the
 * automaton holds them; every unit folding to a keyword's unit stands for it.
 * `keepsAll(index)`: the bigram is a hit whatever follows it (an always-on
 * start at its second unit); its entry stays 0.
 *
 * Cost: one step per (keyword, caseless bytes of its first two units), and
 * one pass over the touched bigrams; no walk over all 65,536 of them.
 */
export function thirdUnitMisses(
  keywords: readonly string[],
  keepsAll: (index: number) => boolean,
): Int32Array {
  // Built in place: first the bits that may follow, then turned into those that may not.
  const table = new Int32Array(0x10000);
  const open = new Uint8Array(0x10000);
  const touched: number[] = [];
  for (const kw of keywords) {
    // A one-unit keyword ends at the bigram's first unit: any bigram after it is a hit.
    const seconds = kw.length > 1 ? caselessBytesOf(kw.charCodeAt(1)) : ALL_CASELESS;
    let bits = 0;
    if (kw.length > 2) for (const c of caselessBytesOf(kw.charCodeAt(2))) bits |= 1 << (c & 31);
    for (const a of caselessBytesOf(kw.charCodeAt(0))) {
      for (const b of seconds) {
        const index = (a << 8) | b;
        if (table[index] === 0 && open[index] === 0) touched.push(index);
        if (bits === 0) open[index] = 1;
        else table[index] = (table[index] as number) | bits;
      }
    }
  }
  for (const index of touched) {
    table[index] = open[index] === 1 || keepsAll(index) ? 0 : ~(table[index] as number);
  }
  return table;
}

/**
 * Per slot (`quadSlot`), the bits (`thirdBit`) of the fourth units that begin
 * no keyword with the three units before them. Read only for a bigram whose
 * third-unit entry is not 0 (`thirdUnitMisses`: no keyword of one or two units,
 * no always-on start in it) and whose third unit passed: a keyword of three
 * units leaves its slot 0, so whatever follows it is a hit.
 */
export function fourthUnitMisses(keywords: readonly string[]): Int32Array {
  const table = new Int32Array(0x10000);
  const open = new Uint8Array(0x10000);
  const touched: number[] = [];
  for (const kw of keywords) {
    if (kw.length < 3) continue;
    let bits = 0;
    if (kw.length > 3) for (const d of caselessBytesOf(kw.charCodeAt(3))) bits |= 1 << (d & 31);
    const seconds = caselessBytesOf(kw.charCodeAt(1));
    const thirds = caselessBytesOf(kw.charCodeAt(2));
    for (const a of caselessBytesOf(kw.charCodeAt(0))) {
      for (const b of seconds) {
        for (const c of thirds) {
          const slot = quadSlot((a << 8) | b, c);
          if (table[slot] === 0 && open[slot] === 0) touched.push(slot);
          if (bits === 0) open[slot] = 1;
          else table[slot] = (table[slot] as number) | bits;
        }
      }
    }
  }
  for (const slot of touched) table[slot] = open[slot] === 1 ? 0 : ~(table[slot] as number);
  return table;
}

/** `caselessBytesOf`'s answers so far (a few dozen keyword units per pack). */
const caselessBytes = new Map<number, readonly number[]>();

/**
 * The distinct bytes, case bit cleared (`bigramByte(u) & 0xdf`), of the units
 * folding to the keyword unit `folded`: one or two for most keyword units.
 */
function caselessBytesOf(folded: number): readonly number[] {
  let bytes = caselessBytes.get(folded);
  if (bytes === undefined) {
    const found: number[] = [];
    for (const unit of unitsFoldingTo(folded)) {
      const b = bigramByte(unit) & 0xdf;
      if (!found.includes(b)) found.push(b);
    }
    bytes = found;
    caselessBytes.set(folded, bytes);
  }
  return bytes;
}

/** Every caseless byte value. */
const ALL_CASELESS: readonly number[] = Array.from({ length: 0x100 }, (_, b) => b).filter(
  (b) => (b & 0x20) === 0,
);
