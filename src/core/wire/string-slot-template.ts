/**
 * A shape-specialised fast path for the common delta events of an SSE JSON
 * stream (issue 19 §3: the wire adapters cost a multiple of the engine, most of
 * it `JSON.parse` of every event and the objects it leaves for the collector).
 *
 * The events of one answer are one JSON text repeated with another string in
 * one place: `{"id":…,"choices":[{"index":0,"delta":{"content":"…"},…}]}`, or
 * `{"type":"text-delta","id":"txt-0","delta":"…"}`. The adapter decodes an
 * event the slow way and, when it found exactly one guarded string, hands this
 * template the data and the string's path. The template keeps the text before
 * and after that string literal. A later event whose data is that prefix, one
 * JSON string literal, and that suffix is the same JSON text as the learned one
 * except for that one string: `JSON.parse` gives the same document with that
 * one value changed, so the adapter's slow path gives the same slot with this
 * literal's text (the adapter only checks that the value is a string). Only
 * the literal is decoded; nothing else is parsed or allocated.
 *
 * That holds only if `JSON.parse` reads the learned literal at the path: a key
 * repeated in an object (`{"delta":"a","delta":"b"}`) makes it read the last
 * one, and a repeated key further up hides the whole subtree. So before using a
 * shape, the template puts two different strings in the literal's place, parses
 * both texts and requires the value at the path to be each of them. A shape
 * that fails is not used. test/unit/wire/string-slot-template.test.ts checks
 * the adapters with and without templates give the same output for any events
 * and any split (fast-check).
 */
import { type JsonPath, findStringSpan } from './json-string-span.ts';

/** Two different strings: a literal the parser reads at the path must come back as each. */
const PROBES = ['\u0000csg probe one\u0000', '\u0000csg probe two\u0000'] as const;

/** Slow events after which a shape is learned again, whatever the last ones did. */
const RELEARN_AFTER = 16;
/** Shapes learned in a row without a hit, after which learning waits RELEARN_AFTER events. */
const FRUITLESS_LEARNS = 4;

/** The value at `path` of a parsed JSON document, own properties only. */
function valueAt(parsed: unknown, path: JsonPath): unknown {
  let value = parsed;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) {
      return undefined;
    }
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

/** Whether `JSON.parse` of `before + literal + after` reads that literal at `path`. */
function literalIsRead(before: string, after: string, path: JsonPath): boolean {
  return PROBES.every((probe) => {
    try {
      return valueAt(JSON.parse(before + JSON.stringify(probe) + after), path) === probe;
    } catch {
      return false;
    }
  });
}

/** Below this many units V8 copies a slice (its SlicedString minimum); longer ones share. */
const COPIED_SLICE = 13;

/** What each one-character JSON escape (`\n`, `\"`…) stands for, by the character after `\`. */
const SHORT_ESCAPES = new Map<number, string>([
  [0x22, '"'],
  [0x5c, '\\'],
  [0x2f, '/'],
  [0x62, '\b'],
  [0x66, '\f'],
  [0x6e, '\n'],
  [0x72, '\r'],
  [0x74, '\t'],
]);

/** The value of a hex digit, or -1. */
function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}

/**
 * The text of a short literal (quotes at 0 and `last`) holding escapes, decoded
 * as JSON.parse decodes it (RFC 8259 §7: the two-character escapes and `\uXXXX`,
 * lone surrogates kept), or undefined where JSON.parse would throw: a raw
 * control character, an unescaped quote, an unknown escape. Cheaper than
 * JSON.parse for a token-sized delta (issue 20's wire target); every piece is
 * shorter than COPIED_SLICE, so the result is a copy, not a view of the frame.
 */
function unescapedShort(literal: string, last: number): string | undefined {
  let out = '';
  let from = 1;
  for (let i = 1; i < last; i++) {
    const c = literal.charCodeAt(i);
    if (c < 0x20 || c === 0x22) return undefined;
    if (c !== 0x5c) continue;
    out += literal.slice(from, i);
    // The escaped character; at `last` it is the closing quote, escaped: unterminated.
    if (i + 1 >= last) return undefined;
    const e = literal.charCodeAt(i + 1);
    if (e === 0x75) {
      if (i + 6 > last) return undefined;
      let code = 0;
      for (let k = i + 2; k < i + 6; k++) {
        const v = hexValue(literal.charCodeAt(k));
        if (v < 0) return undefined;
        code = code * 16 + v;
      }
      out += String.fromCharCode(code);
      i += 5;
    } else {
      const text = SHORT_ESCAPES.get(e);
      if (text === undefined) return undefined;
      out += text;
      i += 1;
    }
    from = i + 1;
  }
  return out + literal.slice(from, last);
}

/**
 * The decoded text of `literal` when it is exactly one JSON string literal,
 * else undefined. `JSON.parse` accepts one value with spaces around it; a text
 * that begins and ends with a quote can only be one string (a quote inside
 * must be escaped). A short literal without escapes or control characters
 * (raw ones are invalid JSON) is the text between its quotes, sliced; a short
 * one with escapes is decoded here (`unescapedShort`); any other is parsed. A
 * long slice would keep the whole frame it came from alive as long as the
 * guard keeps the text (measured: 150 times the memory), while a parsed string
 * is a copy.
 */
function stringLiteralText(literal: string): string | undefined {
  const last = literal.length - 1;
  if (last < 1 || literal.charCodeAt(0) !== 0x22 || literal.charCodeAt(last) !== 0x22) {
    return undefined;
  }
  if (last - 1 < COPIED_SLICE) {
    let plain = true;
    for (let i = 1; plain && i < last; i++) {
      const c = literal.charCodeAt(i);
      if (c === 0x5c || c === 0x22 || c < 0x20) plain = false;
    }
    return plain ? literal.slice(1, last) : unescapedShort(literal, last);
  }
  try {
    return JSON.parse(literal) as string;
  } catch {
    return undefined;
  }
}

export interface TemplateHit<T> {
  /** The string at the learned path in this event. */
  text: string;
  /** What the adapter stored with the shape (its channel, its path). */
  info: T;
}

export class StringSlotTemplate<T> {
  private prefix: string | null = null;
  private suffix = '';
  private info: T | undefined;
  private tried = false;
  /** Hits of the current shape. */
  private hits = 0;
  /** Shapes learned in a row that never hit. */
  private fruitless = 0;
  /** Slow events offered since the last shape was learned. */
  private sinceLearn = 0;
  /**
   * The one hit `match` returns, refilled each time: a hit is read at once, so one
   * reused object does and the common event allocates none (issue 20's wire target).
   */
  private readonly hit: TemplateHit<T> = { text: '', info: undefined as T };

  /**
   * The learned event's string and what was stored with it, when `data` is the
   * learned shape with another string literal in that place; else undefined
   * (then the adapter decodes the slow way). The hit is valid until the next call.
   */
  match(data: string): TemplateHit<T> | undefined {
    const prefix = this.prefix;
    if (prefix === null) return undefined;
    const suffix = this.suffix;
    // Slices compared with ===, not startsWith/endsWith: in Node 20's V8 those compare
    // unit by unit, several times slower for a prefix of a few hundred units.
    const end = data.length - suffix.length;
    if (
      end < prefix.length + 2 ||
      data.slice(0, prefix.length) !== prefix ||
      data.slice(end) !== suffix
    ) {
      return undefined;
    }
    const text = stringLiteralText(data.slice(prefix.length, end));
    if (text === undefined) return undefined;
    this.hits++;
    const hit = this.hit;
    hit.text = text;
    hit.info = this.info as T;
    return hit;
  }

  /**
   * The slow path decoded `data` to one guarded string at `path`: use its shape
   * from now on, if `JSON.parse` reads the literal there (see the file comment).
   * Learning costs two parses, so a new shape is tried at once only while the
   * last few ever hit; otherwise after RELEARN_AFTER slow events.
   */
  learn(data: string, path: JsonPath, info: T): void {
    this.sinceLearn++;
    const eager = this.hits === 0 && this.fruitless < FRUITLESS_LEARNS;
    if (this.tried && !eager && this.sinceLearn < RELEARN_AFTER) return;
    this.fruitless = this.tried && this.hits === 0 ? this.fruitless + 1 : 0;
    this.tried = true;
    this.hits = 0;
    this.sinceLearn = 0;
    this.prefix = null;
    this.info = undefined;
    let span: { start: number; end: number } | null;
    try {
      span = findStringSpan(data, path);
    } catch {
      return;
    }
    if (span === null) return;
    const before = data.slice(0, span.start);
    const after = data.slice(span.end);
    if (!literalIsRead(before, after, path)) return;
    this.prefix = before;
    this.suffix = after;
    this.info = info;
  }
}
