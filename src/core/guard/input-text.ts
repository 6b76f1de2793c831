/**
 * The input text a guard still needs, addressed by absolute UTF-16 offsets from
 * the start of the stream. Older text is trimmed, so memory stays O(longest
 * rule) however long the stream is (DESIGN.md §3.9).
 */
export class InputText {
  /**
   * @param countsCodePoints Whether `codePointOffset` is asked for: a text that
   * only scanners read (the rendered view) skips counting on every trim.
   */
  constructor(private readonly countsCodePoints = true) {}

  private text = '';
  /** Absolute offset of `text[0]`. */
  private base = 0;
  /** Code points before `base`. */
  private codePointsBeforeBase = 0;
  /** The unit just before `base` (-1 at stream start), to pair a surrogate split by a trim. */
  private unitBeforeBase = -1;
  /** The last `LOOKBEHIND` units trimmed (all of them near the stream start). */
  private tailBeforeBase = '';

  get end(): number {
    return this.base + this.text.length;
  }

  get start(): number {
    return this.base;
  }

  get retained(): number {
    return this.text.length;
  }

  append(chunk: string): void {
    this.text += chunk;
  }

  /** The retained text (its first unit is at absolute offset `start`), for tight loops. */
  get retainedText(): string {
    return this.text;
  }

  /** The retained text and its absolute offset, for tight scanning loops. */
  view(): { text: string; base: number } {
    return { text: this.text, base: this.base };
  }

  /** Code unit at absolute offset `at` (must be retained). */
  unitAt(at: number): number {
    return this.text.charCodeAt(at - this.base);
  }

  /** The unit before `at`, or -1 at the stream start. */
  unitBefore(at: number): number {
    if (at === 0) return -1;
    if (at === this.base) return this.unitBeforeBase;
    return this.text.charCodeAt(at - 1 - this.base);
  }

  /**
   * Up to `LOOKBEHIND` units that end at `at` (retained or trimmed): what a validator
   * may read before a candidate (the name a value's keyword is part of). The same
   * for any chunking: a trim keeps the units it forgets last.
   */
  textBefore(at: number): string {
    const k = at - this.base;
    if (k >= LOOKBEHIND) return this.text.slice(k - LOOKBEHIND, k);
    const joined = this.tailBeforeBase + this.text.slice(0, Math.max(0, k));
    return joined.slice(-LOOKBEHIND);
  }

  slice(from: number, to: number): string {
    return this.text.slice(from - this.base, to - this.base);
  }

  /** Code-point offset of absolute unit offset `at` (a low surrogate after a high one adds none). */
  codePointOffset(at: number): number {
    const k = at - this.base;
    // One pass, no slice or regular expression: this runs on every trim (every chunk).
    let cp = this.codePointsBeforeBase + k;
    let prev = this.unitBeforeBase;
    for (let i = 0; i < k; i++) {
      const unit = this.text.charCodeAt(i);
      if (isLowSurrogate(unit) && isHighSurrogate(prev)) cp--;
      prev = unit;
    }
    return cp;
  }

  /** Forgets everything before absolute offset `at`. */
  trimBefore(at: number): void {
    const k = at - this.base;
    if (k <= 0) return;
    if (this.countsCodePoints) this.codePointsBeforeBase = this.codePointOffset(at);
    this.unitBeforeBase = this.text.charCodeAt(k - 1);
    this.tailBeforeBase =
      k >= LOOKBEHIND
        ? this.text.slice(k - LOOKBEHIND, k)
        : (this.tailBeforeBase + this.text.slice(0, k)).slice(-LOOKBEHIND);
    this.text = this.text.slice(k);
    this.base = at;
  }
}

/** Units before a candidate that its validator may read (`textBefore`). */
export const LOOKBEHIND = 32;

export function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

export function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
