/**
 * The `json` renderer's body line: one item as one JSON object on one line,
 * `{"content":"…","truncated":false}`, whose `content` decodes to the original
 * text exactly (seed 000 §4: escape the encoded line, never the value).
 *
 * JSON.stringify keeps non-ASCII raw (readable, compact) and already escapes
 * seven of the ten line boundaries (LF, VT, FF, CR, U+001C–U+001E: all C0) and
 * every lone surrogate (`\udXXX`, ES2019 well-formed stringify). It leaves
 * U+0085, U+2028 and U+2029 raw, and those three would break the line for
 * `str.splitlines()` (seed 000 §5). They are escaped on the encoded string,
 * which is safe because a raw code point in JSON text is always string content
 * and `\uXXXX` is a standard JSON escape, so JSON.parse gives the original back.
 *
 * Beyond the seed, the same encoded-layer escape covers every other code point
 * a reader cannot see or that reorders what it sees: DEL and the C1 controls,
 * format characters (zero-width, bidi controls, tag characters U+E0000–E007F as
 * surrogate-pair escapes) and any Zl/Zp. And a `<` that starts `<untrusted-` or
 * `</untrusted-` (any case) becomes `\u003c`, so not even a leaked fence can be
 * spelt inside the line. All are value-preserving.
 *
 * "TAB stays TAB" (seed 000 §4): the decoded value holds a real TAB, never the
 * six characters `\u0009`; on the line JSON writes it as its escape `\t`, which
 * cannot break a line.
 */

const ENCODED_LAYER_UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|<(?=\/?untrusted-)/giu;

function unicodeEscape(unit: number): string {
  return `\\u${unit.toString(16).padStart(4, '0')}`;
}

/** Escapes, on an encoded JSON text, what must not stay raw (see above). */
export function escapeEncodedLine(encoded: string): string {
  return encoded.replace(ENCODED_LAYER_UNSAFE, (c) => {
    let escaped = '';
    for (let i = 0; i < c.length; i++) escaped += unicodeEscape(c.charCodeAt(i));
    return escaped;
  });
}

export interface JsonBodyItem {
  content: string;
  truncated: boolean;
}

export function encodeJsonBodyLine(content: string, truncated: boolean): string {
  return escapeEncodedLine(JSON.stringify({ content, truncated }));
}

/**
 * The item a body line holds, or null when the line is not exactly what
 * encodeJsonBodyLine writes (so a hand-edited or spliced line fails closed).
 */
export function decodeJsonBodyLine(line: string): JsonBodyItem | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const { content, truncated } = value as Record<string, unknown>;
  if (typeof content !== 'string' || typeof truncated !== 'boolean') return null;
  return encodeJsonBodyLine(content, truncated) === line ? { content, truncated } : null;
}
