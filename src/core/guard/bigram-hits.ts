/**
 * The byte a unit stands for in a bigram: ASCII as itself, every other unit
 * folded into 0x80..0xFF. Keeping ASCII apart matters: with plain low bytes,
 * CJK text aliased ASCII letters and made a `\b[A-Za-z0-9]` rule's bigrams
 * match everywhere. Branch-free: `0x7f - unit` is negative exactly above ASCII.
 */
export function bigramByte(unit: number): number {
  return (unit & 0x7f) | (((0x7f - unit) >> 24) & 0x80);
}

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
/** Third-unit misses of a scanner without them: nothing ruled out. */
const NO_MISSES = new Int32Array(0x10000);

export class BigramHits {
  /** Absolute positions p (ascending) whose bigram (p, p + 1) (see `bigramByte`) some scanner marks. */
  positions = new Int32Array(1024);
  /** Per hit: bit i set when scanner i's table marks it (`union`'s entry). */
  marks = new Uint8Array(1024);
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

  /** @param union per bigram, bit i set when scanner i's table marks it (0: none does). */
  constructor(private readonly union: Uint8Array) {}

  /**
   * Scanner `bit`'s marks are kept only where the unit after the bigram can
   * begin one of its keywords through it (`misses`, third-unit-filter.ts); the
   * last bigram of the text, whose third unit has not arrived, keeps its marks.
   */
  refine(bit: number, misses: Int32Array): void {
    if (misses.length < 0x10000) return;
    if (bit === 1) this.misses1 = misses;
    else if (bit === 2) this.misses2 = misses;
    else if (bit === 4) this.misses4 = misses;
    else throw new RangeError(`no third-unit check for scanner bit ${bit}`);
  }

  /** Recomputes the hits for bigrams starting in [from, to) of `text` (whose first unit is at `base`). */
  compute(text: string, base: number, from: number, to: number): void {
    this.from = from;
    this.to = Math.max(from, to);
    this.count = 0;
    if (to <= from) return;
    if (this.positions.length < to - from) {
      this.positions = new Int32Array(to - from);
      this.marks = new Uint8Array(to - from);
    }
    const union = this.union;
    const positions = this.positions;
    const marks = this.marks;
    const { misses1, misses2, misses4 } = this;
    // The third unit of the bigram at p is p + 2: read for bigrams before the last one only.
    const refined = Math.min(to, base + text.length - 2);
    let n = 0;
    let high = bigramByte(text.charCodeAt(from - base)) << 8;
    for (let p = from; p < to; p++) {
      const low = bigramByte(text.charCodeAt(p + 1 - base));
      const index = high | low;
      let mark = union[index] as number;
      if (mark !== 0) {
        if (p < refined) {
          // Drop each scanner whose keywords cannot go on to the third unit after this bigram.
          const third = thirdBit(text.charCodeAt(p + 2 - base));
          const miss =
            (((misses1[index] as number) & third) !== 0 ? 1 : 0) |
            (((misses2[index] as number) & third) !== 0 ? 2 : 0) |
            (((misses4[index] as number) & third) !== 0 ? 4 : 0);
          mark &= ~miss;
        }
        if (mark !== 0) {
          positions[n] = p;
          marks[n++] = mark;
        }
      }
      high = low << 8;
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
