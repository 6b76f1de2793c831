/**
 * Every string value of a JSON text, with its path and the exact span of its
 * literal, in document order: what the generic structural adapter guards.
 *
 * A single pass over the text, not `JSON.parse` plus a path lookup, so that
 * nothing the page could read escapes the guard: a key repeated in one object
 * (`{"content":"a","content":"b"}`, where `JSON.parse` keeps the last) yields
 * both strings, each at its own span. Object keys are names, not text: they
 * are not listed. Returns null when the text is not exactly one JSON value
 * (whitespace around it allowed), so a caller never edits a text it could not
 * read.
 */
import type { JsonPath } from './json-string-span.ts';

export interface JsonStringAt {
  path: JsonPath;
  /** Offset of the opening quote. */
  start: number;
  /** Offset after the closing quote. */
  end: number;
  /** The decoded value (lone surrogates kept as they were escaped). */
  value: string;
}

const LITERAL = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/** Containers open around the current position. */
interface Frame {
  array: boolean;
  /** Key (object) or index (array) of the member being read. */
  key: string | number;
  /** What may come next inside this container. */
  expect: 'first' | 'value' | 'comma' | 'key' | 'colon';
}

/** Index after the closing quote of the string literal at `start`, or -1 when unterminated. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return -1;
}

function decodeLiteral(literal: string): string | null {
  try {
    // JSON.parse rejects raw control characters and bad escapes, as the page's reader would.
    return JSON.parse(literal) as string;
  } catch {
    return null;
  }
}

export function scanJsonStrings(text: string): JsonStringAt[] | null {
  const found: JsonStringAt[] = [];
  const stack: Frame[] = [];
  let done = false;
  let i = 0;
  const path = (): (string | number)[] => stack.map((f) => f.key);
  for (;;) {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    if (i === text.length) return done && stack.length === 0 ? found : null;
    if (done) return null;
    const top = stack[stack.length - 1];
    const c = text[i] as string;
    if (top !== undefined) {
      if (top.expect === 'comma') {
        if (c === ',') {
          if (top.array) {
            top.key = (top.key as number) + 1;
            top.expect = 'value';
          } else top.expect = 'key';
          i++;
          continue;
        }
        if (c !== (top.array ? ']' : '}')) return null;
        stack.pop();
        i++;
        if (stack.length === 0) done = true;
        continue;
      }
      if (top.expect === 'first' && c === (top.array ? ']' : '}')) {
        stack.pop();
        i++;
        if (stack.length === 0) done = true;
        continue;
      }
      if (!top.array && (top.expect === 'first' || top.expect === 'key')) {
        if (c !== '"') return null;
        const end = stringEnd(text, i);
        if (end < 0) return null;
        const key = decodeLiteral(text.slice(i, end));
        if (key === null) return null;
        top.key = key;
        top.expect = 'colon';
        i = end;
        continue;
      }
      if (top.expect === 'colon') {
        if (c !== ':') return null;
        top.expect = 'value';
        i++;
        continue;
      }
      // A value: `first` of an array, or `value`.
    }
    // Read one value at i; afterwards the container (if any) expects a comma.
    if (c === '{' || c === '[') {
      if (top !== undefined) top.expect = 'comma';
      stack.push({ array: c === '[', key: c === '[' ? 0 : '', expect: 'first' });
      i++;
      continue;
    }
    if (c === '"') {
      const end = stringEnd(text, i);
      if (end < 0) return null;
      const value = decodeLiteral(text.slice(i, end));
      if (value === null) return null;
      found.push({ path: path(), start: i, end, value });
      i = end;
    } else {
      LITERAL.lastIndex = i;
      const m = LITERAL.exec(text);
      if (m === null) return null;
      i += m[0].length;
    }
    if (top === undefined) done = true;
    else top.expect = 'comma';
  }
}

/**
 * The text with the literals at the given spans replaced by JSON strings of
 * the new values; spans must not overlap. Values equal to the old ones keep
 * their literal as sent (escapes and all).
 */
export function spliceJsonStrings(
  text: string,
  strings: readonly JsonStringAt[],
  values: readonly string[],
): string {
  let out = '';
  let at = 0;
  strings.forEach((s, k) => {
    const value = values[k] as string;
    if (value === s.value) return;
    out += text.slice(at, s.start) + JSON.stringify(value);
    at = s.end;
  });
  return out + text.slice(at);
}
