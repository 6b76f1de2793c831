/**
 * The text as a person will see it (DESIGN.md §3.10, issue 17 §1b), computed
 * as the stream arrives: HTML character references are decoded (`&#x67;hp_` is
 * `ghp_` once rendered), and the units a person never sees are marked hidden
 * (hidden-ranges.ts): default-ignorable code points, `*` and backticks (inline
 * Markdown markup that can sit inside a word), and HTML comments. The scanners
 * read this view; offsets map back to the input, so a redaction covers the
 * references and the hidden units inside it and events still point into the
 * input.
 *
 * A function of the input alone, with a bounded lookahead: an `&` waits for at
 * most REFERENCE_MAX units, a `<` for three, so chunking cannot change the view
 * (DESIGN.md §3.1) and the hold grows by at most that much.
 */
import { HiddenRanges } from './hidden-ranges.ts';
import { InputText } from './input-text.ts';
import { NAMED_REFERENCES } from './named-references.ts';

/** Longest reference read: `&#x10FFFF;` and `&#1114111;` are 10 units; names are shorter. */
const REFERENCE_MAX = 12;

/**
 * Default-ignorable code points of the BMP (Unicode DerivedCoreProperties) that
 * render as nothing, `*` and the backtick, and the high surrogates of plane 14
 * (tags, variation selectors supplement): inclusive ranges.
 */
const HIDDEN_RANGES: readonly (readonly [number, number])[] = [
  [0x2a, 0x2a],
  [0x60, 0x60],
  [0xad, 0xad],
  [0x34f, 0x34f],
  [0x61c, 0x61c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff0, 0xfff8],
  [0xdb40, 0xdb43],
];

const escape = (u: number): string => `\\u${u.toString(16).padStart(4, '0')}`;

/**
 * Units that can start something this decoder rewrites or hides (the fast
 * path's test). Built from the ranges: several are combining or joining marks
 * that a regular expression literal would show misleadingly.
 */
export const SPECIAL_SOURCE = `[&<${HIDDEN_RANGES.map(([a, b]) => (a === b ? escape(a) : `${escape(a)}-${escape(b)}`)).join('')}]`;
/**
 * The same units as a table: `decode` looks for the next one with a loop, not
 * with the expression (issue 19 §3: on Markdown, where `*` and `` ` `` come
 * every few words, `exec` and its match object per run were most of the view's
 * cost). 64 KiB, filled from the ranges once.
 */
const SPECIAL_UNITS = new Uint8Array(0x10000);
SPECIAL_UNITS[0x26] = 1;
SPECIAL_UNITS[0x3c] = 1;
for (const [lo, hi] of HIDDEN_RANGES) SPECIAL_UNITS.fill(1, lo, hi + 1);

/** The first offset from `from` holding a unit of SPECIAL, or `s.length`. */
export function nextSpecial(s: string, from: number): number {
  let i = from;
  while (i < s.length && SPECIAL_UNITS[s.charCodeAt(i)] === 0) i++;
  return i;
}

/** Any special unit (SPECIAL_SOURCE; per code unit, no `u` flag, as the table). */
const ANY_SPECIAL = new RegExp(SPECIAL_SOURCE);

/**
 * Chunks of at least this many units are tested with the expression, shorter ones
 * with the table (`plain`). A holder so test/property/plain-chunk.test.ts can run
 * either path for any chunk.
 */
export const plainByExpression = { from: 256 };

/**
 * Whether `raw` holds no special unit. A token delta is tested with the table (a
 * call of the expression cost more than its units, issue 19 §3); a long chunk, a
 * history message's whole text, with the expression: irregexp's native code from the
 * first call, where the table's loop runs first in the cold tiers of the page's JIT
 * (`nextSpecial` 5-90 ms of a history load in Chromium profiles, 5 ms in Node,
 * issue 19 §5; 2.1 M units per load).
 */
export function plain(raw: string): boolean {
  return raw.length < plainByExpression.from
    ? nextSpecial(raw, 0) === raw.length
    : !ANY_SPECIAL.test(raw);
}

/** Whether a person never sees the unit `u` (HIDDEN_RANGES; a low half is judged with its high). */
function isHidden(u: number): boolean {
  for (const [lo, hi] of HIDDEN_RANGES) if (u >= lo && u <= hi) return true;
  return false;
}

/** High surrogates of U+E0000–U+E0FFF (tags, variation selectors supplement): all ignorable. */
function isHiddenHigh(u: number): boolean {
  return u >= 0xdb40 && u <= 0xdb43;
}

function isLow(u: number): boolean {
  return u >= 0xdc00 && u <= 0xdfff;
}

type Reference = { length: number; text: string } | 'more' | null;

/**
 * The character reference at the start of `s` (which starts with `&`):
 * decoded, `more` when `s` is a prefix of one (wait for more input), or null.
 * CommonMark §2.5: numeric references need the `;`, and code points that are
 * invalid become U+FFFD.
 */
function readReference(s: string, final: boolean): Reference {
  const m = /^&(?:#[xX]([0-9A-Fa-f]{1,6});|#([0-9]{1,7});|([A-Za-z][A-Za-z0-9]{0,31});)/.exec(s);
  if (m !== null) {
    if (m[3] !== undefined) {
      const named = NAMED_REFERENCES.get(m[3]);
      return named === undefined ? null : { length: m[0].length, text: named };
    }
    const cp = m[1] !== undefined ? parseInt(m[1], 16) : parseInt(m[2] as string, 10);
    const valid = cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
    return { length: m[0].length, text: String.fromCodePoint(valid ? cp : 0xfffd) };
  }
  if (final || s.length >= REFERENCE_MAX) return null;
  return /^&(?:#(?:[xX][0-9A-Fa-f]{0,6}|[0-9]{0,7})|[A-Za-z][A-Za-z0-9]{0,31})?$/.test(s)
    ? 'more'
    : null;
}

export class RenderedView {
  /** The view: what the scanners read, addressed by absolute view offsets. */
  readonly text = new InputText(false);
  readonly hidden = new HiddenRanges();
  /** Raw input not decided yet (an `&` or `<` waiting for its next units). */
  private pending = '';
  /** Raw offset of `pending[0]`: the input before it is in the view. */
  private rawDone = 0;
  /**
   * Decoded references, flat quadruples [viewFrom, viewTo, rawFrom, rawTo],
   * sorted. Between them view and raw advance together.
   */
  private refs: number[] = [];
  /** The raw and view offsets of the retained window's start (before any kept reference). */
  private baseView = 0;
  private baseRaw = 0;
  /** Inside an HTML comment: its content is hidden up to the closing `-->`. */
  private inComment = false;
  /** Consecutive `-` just read inside a comment (`-->` ends it when ≥ 2). */
  private dashes = 0;
  /** The last view unit was a hidden high surrogate: its low half is hidden too. */
  private hiddenHighBefore = false;

  /**
   * Empty, as new, keeping `text` and `hidden` (the objects a guard's scanners were
   * given): a reused guard's next stream (stream-guard.ts `reset`, issue 19 §5).
   */
  reset(): void {
    this.text.reset();
    this.hidden.reset();
    this.pending = '';
    this.rawDone = 0;
    this.refs = [];
    this.baseView = 0;
    this.baseRaw = 0;
    this.inComment = false;
    this.dashes = 0;
    this.hiddenHighBefore = false;
  }

  /** Raw offset up to which the input is reflected in the view. */
  get rawDecoded(): number {
    return this.rawDone;
  }

  push(raw: string): void {
    // The common chunk holds nothing to rewrite or hide: appended as it is (`plain`).
    if (this.pending === '' && !this.inComment && !this.hiddenHighBefore && plain(raw)) {
      this.text.append(raw);
      this.rawDone += raw.length;
      return;
    }
    this.decode(this.pending + raw, false);
  }

  /** End of input: whatever waits is plain text. */
  end(): void {
    if (this.pending !== '') this.decode(this.pending, true);
  }

  /** Raw offset where the view unit at `v` begins (a reference's first raw unit inside one). */
  rawStart(v: number): number {
    const i = this.refBefore(v, false);
    if (i < 0) return this.baseRaw + (v - this.baseView);
    const [, vTo, rFrom, rTo] = this.ref(i);
    return v < vTo ? rFrom : rTo + (v - vTo);
  }

  /** Raw offset where view offset `v`, taken as an exclusive end, ends. */
  rawEnd(v: number): number {
    const i = this.refBefore(v, true);
    if (i < 0) return this.baseRaw + (v - this.baseView);
    const [, vTo, , rTo] = this.ref(i);
    return v <= vTo ? rTo : rTo + (v - vTo);
  }

  /** Forgets the view before `v` (and the references that end before it). */
  trimBefore(v: number): void {
    if (v <= this.text.start) return;
    const raw = this.rawStart(v);
    let k = 0;
    while (k < this.refs.length && (this.refs[k + 1] as number) <= v) k += 4;
    if (k > 0) this.refs.splice(0, k);
    // A reference that straddles `v` stays; the base only serves offsets before every kept one.
    if (this.refs.length === 0 || (this.refs[0] as number) >= v) {
      this.baseView = v;
      this.baseRaw = raw;
    }
    this.text.trimBefore(v);
    this.hidden.trimBefore(v);
  }

  private ref(i: number): [number, number, number, number] {
    const r = this.refs;
    return [r[i] as number, r[i + 1] as number, r[i + 2] as number, r[i + 3] as number];
  }

  /**
   * Index of the last reference that starts before `v` (`inclusive`: at or
   * before, for ends), or -1.
   */
  private refBefore(v: number, inclusive: boolean): number {
    for (let i = this.refs.length - 4; i >= 0; i -= 4) {
      const from = this.refs[i] as number;
      if (inclusive ? from < v : from <= v) return i;
    }
    return -1;
  }

  private decode(s: string, final: boolean): void {
    // The view is `s` itself until a character reference is decoded (nearly every chunk):
    // pieces are collected only from then on (issue 19 §3: copying every run and every
    // `*` into pieces and joining them was most of the view's cost on bulk text).
    let parts: string[] | null = null;
    let viewAt = this.text.end;
    let rawAt = this.rawDone;
    let i = 0;
    while (i < s.length) {
      const u = s.charCodeAt(i);
      if (this.inComment) {
        // The rest of the comment, its closing `-->` too, is hidden content.
        const close = commentEnd(s, i, this.dashes);
        const to = close < 0 ? s.length : close;
        this.hidden.addContent(viewAt, viewAt + (to - i));
        this.dashes = close < 0 ? trailingDashes(s, i, this.dashes) : 0;
        if (close >= 0) this.inComment = false;
        if (parts !== null) parts.push(s.slice(i, to));
        viewAt += to - i;
        rawAt += to - i;
        i = to;
        this.hiddenHighBefore = false;
        continue;
      }
      if (this.hiddenHighBefore && isLow(u)) {
        this.hidden.add(viewAt, viewAt + 1);
        this.hiddenHighBefore = false;
        if (parts !== null) parts.push(s[i] as string);
        viewAt++;
        rawAt++;
        i++;
        continue;
      }
      const next = nextSpecial(s, i);
      if (next > i) {
        if (parts !== null) parts.push(s.slice(i, next));
        viewAt += next - i;
        rawAt += next - i;
        i = next;
        this.hiddenHighBefore = false;
        continue;
      }
      if (u === 0x26) {
        const ref = readReference(s.slice(i, i + REFERENCE_MAX), final);
        if (ref === 'more') break;
        if (ref !== null) {
          this.refs.push(viewAt, viewAt + ref.text.length, rawAt, rawAt + ref.length);
          for (let k = 0; k < ref.text.length; k++)
            this.hideIfUnseen(ref.text.charCodeAt(k), viewAt + k);
          parts ??= [s.slice(0, i)];
          parts.push(ref.text);
          viewAt += ref.text.length;
          rawAt += ref.length;
          i += ref.length;
          continue;
        }
      } else if (u === 0x3c) {
        const head = s.slice(i, i + 4);
        if (head === '<!--') {
          // The opening delimiter is hidden from every match; the content only from
          // matches that were being read before it (hidden-ranges.ts).
          this.hidden.add(viewAt, viewAt + 4);
          this.inComment = true;
          // `<!-->` and `<!--->` are complete comments (CommonMark 0.31 §6.6).
          this.dashes = 2;
          if (parts !== null) parts.push(head);
          viewAt += 4;
          rawAt += 4;
          i += 4;
          this.hiddenHighBefore = false;
          continue;
        }
        if (!final && head.length < 4 && '<!--'.startsWith(head)) break;
      }
      this.hideIfUnseen(u, viewAt);
      if (parts !== null) parts.push(s[i] as string);
      viewAt++;
      rawAt++;
      i++;
    }
    this.text.append(parts !== null ? parts.join('') : i === s.length ? s : s.slice(0, i));
    this.rawDone = rawAt;
    this.pending = s.slice(i);
  }

  /** Marks the view unit `u` at `at` hidden when a person never sees it. */
  private hideIfUnseen(u: number, at: number): void {
    if (isHidden(u) || (isLow(u) && this.hiddenHighBefore)) {
      this.hidden.add(at, at + 1);
    }
    this.hiddenHighBefore = isHiddenHigh(u);
  }
}

/**
 * Index just after the `>` that closes a comment read from `from` (with
 * `dashes` consecutive `-` before it), or -1 when it does not close in `s`.
 */
function commentEnd(s: string, from: number, dashes: number): number {
  let d = dashes;
  for (let i = from; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (u === 0x3e && d >= 2) return i + 1;
    d = u === 0x2d ? d + 1 : 0;
  }
  return -1;
}

/** Consecutive `-` at the end of s[from..], continuing `dashes` when all of it is dashes. */
function trailingDashes(s: string, from: number, dashes: number): number {
  let n = 0;
  for (let i = s.length - 1; i >= from && s.charCodeAt(i) === 0x2d; i--) n++;
  return n === s.length - from ? dashes + n : n;
}
