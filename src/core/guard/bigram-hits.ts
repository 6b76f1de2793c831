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
 * One shared pass over each new chunk for all scanners of a stream: the
 * positions whose bigram (low bytes of two consecutive units) some scanner's
 * prefilter marks, and which scanners mark it. Each scanner then jumps
 * between these positions, testing its own bit there, instead of reading
 * every unit itself (issue 19 §3: reading the bigram again at every shared
 * hit was a quarter of the quiet skip).
 */
export class BigramHits {
  /** Absolute positions p (ascending) whose bigram (p, p + 1) (see `bigramByte`) some scanner marks. */
  positions = new Int32Array(1024);
  /** Per hit: bit i set when scanner i's table marks it (`union`'s entry). */
  marks = new Uint8Array(1024);
  count = 0;
  /** The positions cover bigrams starting in [from, to). */
  from = 0;
  to = 0;

  /** @param union per bigram, bit i set when scanner i's table marks it (0: none does). */
  constructor(private readonly union: Uint8Array) {}

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
    let n = 0;
    let high = bigramByte(text.charCodeAt(from - base)) << 8;
    for (let p = from; p < to; p++) {
      const low = bigramByte(text.charCodeAt(p + 1 - base));
      const mark = union[high | low] as number;
      if (mark !== 0) {
        positions[n] = p;
        marks[n++] = mark;
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
