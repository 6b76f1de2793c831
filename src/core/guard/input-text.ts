/**
 * The input text a guard still needs, addressed by absolute UTF-16 offsets from
 * the start of the stream. Older text is trimmed, so memory stays O(longest
 * rule) however long the stream is (DESIGN.md §3.9).
 */
export class InputText {
  /**
   * @param countsCodePoints Whether `codePointOffset` is asked for: a text that
   * only scanners read (the rendered view) skips counting on every trim.
   * @param lookbehind Units kept before the retained ones: LOOKBEHIND for a text
   * whose `textBefore` validators read (the view), 1 for one only released and
   * counted (the raw input: issue 19 §3, every push copies the kept string once,
   * so 31 units fewer are 31 fewer copied and allocated per push).
   */
  constructor(
    private readonly countsCodePoints = true,
    private readonly lookbehind = LOOKBEHIND,
  ) {}

  /**
   * The units kept, from absolute offset `textBase`: the retained ones (from `base`)
   * and at least `lookbehind` units before them (all of them near the stream start).
   * A trim moves `base` only; the string is cut once the units before `base` exceed
   * TRIM_SLACK, so a stream of small chunks does not make two strings per chunk.
   */
  private text = '';
  private textBase = 0;
  /** Absolute offset of the first retained unit. */
  private base = 0;
  /** Code points before `base`. */
  private codePointsBeforeBase = 0;
  /** The last `codePointOffset` asked (absolute; -1: none) and its answer. */
  private countedAt = -1;
  private countedCodePoints = 0;

  get end(): number {
    return this.textBase + this.text.length;
  }

  /**
   * Empty, at offset 0, as new: a reused guard's next stream (stream-guard.ts `reset`)
   * keeps the object its scanners read, not its text.
   */
  reset(): void {
    this.text = '';
    this.textBase = 0;
    this.base = 0;
    this.codePointsBeforeBase = 0;
    this.countedAt = -1;
    this.countedCodePoints = 0;
  }

  get start(): number {
    return this.base;
  }

  get retained(): number {
    return this.end - this.base;
  }

  append(chunk: string): void {
    this.text += chunk;
  }

  /**
   * The kept text for tight loops: its first unit is at absolute offset `retainedBase`
   * (at or before `start`; read only from `start` on).
   */
  get retainedText(): string {
    return this.text;
  }

  get retainedBase(): number {
    return this.textBase;
  }

  /** The kept text and the absolute offset of its first unit, for tight scanning loops. */
  view(): { text: string; base: number } {
    return { text: this.text, base: this.textBase };
  }

  /** Code unit at absolute offset `at` (must be retained). */
  unitAt(at: number): number {
    return this.text.charCodeAt(at - this.textBase);
  }

  /** The unit before `at`, or -1 at the stream start. */
  unitBefore(at: number): number {
    if (at === 0) return -1;
    return this.text.charCodeAt(at - 1 - this.textBase);
  }

  /**
   * Up to `LOOKBEHIND` units that end at `at` (retained or trimmed): what a validator
   * may read before a candidate (the name a value's keyword is part of). The same
   * for any chunking: a trim keeps the LOOKBEHIND units before the retained text.
   */
  textBefore(at: number): string {
    if (this.lookbehind < LOOKBEHIND) throw new Error('textBefore() on a text kept without it');
    const k = at - this.textBase;
    return this.text.slice(Math.max(0, k - LOOKBEHIND), k);
  }

  slice(from: number, to: number): string {
    return this.text.slice(from - this.textBase, to - this.textBase);
  }

  /** Code-point offset of absolute unit offset `at` (a low surrogate after a high one adds none). */
  codePointOffset(at: number): number {
    // Counted on from the last answer when it lies between `base` and `at`: a chunk's events
    // ask in ascending order, and each count from `base` read the chunk again (a guard with
    // many events per chunk read it once per event: a quarter of CJK bulk time with invisible
    // units, docs/engine-speed.md "Third-unit checks").
    const fromLast = codePointMemo.enabled && this.countedAt >= this.base && this.countedAt <= at;
    const start = fromLast ? this.countedAt : this.base;
    let cp = (fromLast ? this.countedCodePoints : this.codePointsBeforeBase) + (at - start);
    const from = start - this.textBase;
    let prev = start === 0 ? -1 : this.text.charCodeAt(from - 1);
    for (let i = from; i < at - this.textBase; i++) {
      const unit = this.text.charCodeAt(i);
      if (isLowSurrogate(unit) && isHighSurrogate(prev)) cp--;
      prev = unit;
    }
    this.countedAt = at;
    this.countedCodePoints = cp;
    return cp;
  }

  /** Forgets everything before absolute offset `at`. */
  trimBefore(at: number): void {
    if (at <= this.base) return;
    if (this.countsCodePoints) this.codePointsBeforeBase = this.codePointOffset(at);
    this.base = at;
    if (at - this.textBase > this.lookbehind + TRIM_SLACK) {
      const keepFrom = at - this.lookbehind;
      this.text = this.text.slice(keepFrom - this.textBase);
      this.textBase = keepFrom;
    }
  }
}

/**
 * Whether `codePointOffset` counts on from its last answer. A holder so the differential
 * test (test/property/code-point-memo.test.ts) can count from `base` every time.
 */
export const codePointMemo = { enabled: true };

/**
 * Units past the lookbehind kept before the retained text until the string is cut.
 * It was 32, to save two string copies per token-sized chunk; the guard now trims
 * only once per 32 units (stream-guard.ts `trimStride`), so every trim cuts, and
 * each push's append copies (flattens) a string 11 units shorter on average
 * (issue 19 §3: 564 instead of 610 bytes allocated per 4-unit push).
 */
export const TRIM_SLACK = 0;

/** Units before a candidate that its validator may read (`textBefore`). */
export const LOOKBEHIND = 32;

export function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

export function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
