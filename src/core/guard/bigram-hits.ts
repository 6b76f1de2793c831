import { bigramByte, foldTable } from './bigram-fold.ts';

export { bigramByte };

/**
 * The bit a bigram's third unit stands for (third-unit-filter.ts): `bigramByte`
 * folded to 5 bits. ASCII letters keep their own bit whatever their case (0x41
 * and 0x61 differ in bit 5 only); digits share bits with letters, other units
 * with each other. Collisions only make more hits.
 */
export function thirdBit(unit: number): number {
  return 1 << (bigramByte(unit) & 31);
}

/**
 * One shared pass over each new chunk for all scanners of a stream: the
 * positions whose bigram (low bytes of two consecutive units) some scanner's
 * prefilter marks, and which scanners mark it. Each scanner then jumps
 * between these positions, testing its own bit there, instead of reading
 * every unit itself (issue 19 §3: reading the bigram again at every shared
 * hit was a quarter of the quiet skip).
 */
/**
 * A bigram index with the case bit (0x20) of both bytes cleared: the third- and
 * fourth-unit tables (third-unit-filter.ts) are keyed without case, so building
 * them visits each folded keyword's units once rather than every case of them.
 * Bytes that differ only in that bit share entries: more hits, never fewer.
 */
export function caselessIndex(index: number): number {
  return index & 0xdfdf;
}

/**
 * The slot of a bigram index and the byte of its third unit in the fourth-unit
 * table: 19 caseless bits hashed to 16 (Fibonacci hashing). Slots shared by
 * several trigrams hold the union of what may follow them: more hits, never fewer.
 */
export function quadSlot(index: number, thirdByte: number): number {
  return Math.imul((caselessIndex(index) << 5) | (thirdByte & 31), 0x9e3779b1) >>> 16;
}

/**
 * Whether a scanner's third- and fourth-unit misses rule out the units after
 * bigram `index` (third-unit-filter.ts): the fourth is read only for a bigram
 * whose third-unit entry is not 0 and whose third unit passed.
 */
function rulesOut(
  thirds: Int32Array,
  fourths: Int32Array,
  index: number,
  bit3: number,
  slot: number,
  bit4: number,
): boolean {
  const miss = thirds[caselessIndex(index)] as number;
  return miss !== 0 && ((miss & bit3) !== 0 || ((fourths[slot] as number) & bit4) !== 0);
}

/** The hit arrays before the first chunk (never written: `compute` grows them first). */
const NO_HITS = new Int32Array(0);
const NO_MARKS = new Uint8Array(0);
/** The smallest hit arrays made: a stream's later, longer chunks grow them. */
const MIN_HITS = 1024;

/** Third-unit misses of a scanner without them: nothing ruled out. */
const NO_MISSES = new Int32Array(0x10000);

export class BigramHits {
  /** Absolute positions p (ascending) whose bigram (p, p + 1) (see `bigramByte`) some scanner marks. */
  positions = NO_HITS;
  /** Per hit: bit i set when scanner i's table marks it (`union`'s entry). */
  marks = NO_MARKS;
  count = 0;
  /** The positions cover bigrams starting in [from, to). */
  from = 0;
  to = 0;

  /**
   * Per scanner bit (1, 2, 4: a guard has three scanners), the third-unit misses
   * of its bigrams (third-unit-filter.ts); all 0 (every marked bigram a hit)
   * until `refine` sets them. Three fields, not a list: read at every marked bigram.
   */
  private misses1: Int32Array = NO_MISSES;
  private misses2: Int32Array = NO_MISSES;
  private misses4: Int32Array = NO_MISSES;
  /** The same for the fourth unit, by `quadSlot` (third-unit-filter.ts). */
  private fourths1: Int32Array = NO_MISSES;
  private fourths2: Int32Array = NO_MISSES;
  private fourths4: Int32Array = NO_MISSES;

  /** The fold the union's tables were made with (bigram-fold.ts), read once per unit. */
  private readonly fold = foldTable();

  /** @param union per bigram, bit i set when scanner i's table marks it (0: none does). */
  constructor(private readonly union: Uint8Array) {}

  /**
   * Scanner `bit`'s marks are kept only where the unit after the bigram can
   * begin one of its keywords through it (`misses`, third-unit-filter.ts); the
   * last bigram of the text, whose third unit has not arrived, keeps its marks.
   */
  refine(bit: number, misses: Int32Array, fourths: Int32Array): void {
    if (misses.length < 0x10000 || fourths.length < 0x10000) return;
    if (bit === 1) [this.misses1, this.fourths1] = [misses, fourths];
    else if (bit === 2) [this.misses2, this.fourths2] = [misses, fourths];
    else if (bit === 4) [this.misses4, this.fourths4] = [misses, fourths];
    else throw new RangeError(`no third-unit check for scanner bit ${bit}`);
  }

  /** Recomputes the hits for bigrams starting in [from, to) of `text` (whose first unit is at `base`). */
  compute(text: string, base: number, from: number, to: number): void {
    this.from = from;
    this.to = Math.max(from, to);
    this.count = 0;
    if (to <= from) return;
    if (this.positions.length < to - from) {
      // Made at the first chunk, not with the guard: a history load makes a guard per
      // message, most of them given one chunk (issue 19 §5).
      const size = Math.max(MIN_HITS, to - from);
      this.positions = new Int32Array(size);
      this.marks = new Uint8Array(size);
    }
    const union = this.union;
    const positions = this.positions;
    const marks = this.marks;
    const { misses1, misses2, misses4, fourths1, fourths2, fourths4, fold } = this;
    // The third and fourth units of the bigram at p are p + 2 and p + 3: each is read where
    // the text holds it (the text's last bigrams are judged on fewer units).
    const end = base + text.length;
    const thirdKnown = Math.max(from, Math.min(to, end - 2));
    const fourthKnown = Math.max(from, Math.min(to, end - 3));
    let n = 0;
    // The bytes of the units at p, p + 1 and p + 2, carried along: each unit is read once.
    let b0 = fold[text.charCodeAt(from - base)] as number;
    let b1 = fold[text.charCodeAt(from + 1 - base)] as number;
    let b2 = from < thirdKnown ? (fold[text.charCodeAt(from + 2 - base)] as number) : 0;
    let p = from;
    for (; p < fourthKnown; p++) {
      const b3 = fold[text.charCodeAt(p + 3 - base)] as number;
      const index = (b0 << 8) | b1;
      let mark = union[index] as number;
      if (mark !== 0) {
        // Drop each scanner whose keywords cannot go on to the units after this bigram.
        const bit3 = 1 << (b2 & 31);
        const slot = quadSlot(index, b2);
        const bit4 = 1 << (b3 & 31);
        if ((mark & 1) !== 0 && rulesOut(misses1, fourths1, index, bit3, slot, bit4)) mark ^= 1;
        if ((mark & 2) !== 0 && rulesOut(misses2, fourths2, index, bit3, slot, bit4)) mark ^= 2;
        if ((mark & 4) !== 0 && rulesOut(misses4, fourths4, index, bit3, slot, bit4)) mark ^= 4;
        if (mark !== 0) {
          positions[n] = p;
          marks[n++] = mark;
        }
      }
      b0 = b1;
      b1 = b2;
      b2 = b3;
    }
    // The text's last two bigrams: the third unit where there is one.
    for (; p < to; p++) {
      const index = (b0 << 8) | b1;
      let mark = union[index] as number;
      if (mark !== 0 && p < thirdKnown) {
        const bit3 = 1 << (b2 & 31);
        const caseless = caselessIndex(index);
        if ((mark & 1) !== 0 && ((misses1[caseless] as number) & bit3) !== 0) mark ^= 1;
        if ((mark & 2) !== 0 && ((misses2[caseless] as number) & bit3) !== 0) mark ^= 2;
        if ((mark & 4) !== 0 && ((misses4[caseless] as number) & bit3) !== 0) mark ^= 4;
      }
      if (mark !== 0) {
        positions[n] = p;
        marks[n++] = mark;
      }
      b0 = b1;
      b1 = b2;
      b2 = p + 3 < end ? (fold[text.charCodeAt(p + 3 - base)] as number) : 0;
    }
    this.count = n;
  }

  /** Index of the first hit at or after `p` (binary search). */
  firstAtOrAfter(p: number): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.positions[mid] as number) < p) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
