/**
 * The `quote` renderer's body: readable and lossy by contract (seed 000 §6, the
 * Markdown renderer of its RFC 1489): CRLF, CR, U+2028 and U+2029 become LF;
 * every other control, format or lone-surrogate code point is shown as a
 * visible `\uXXXX` (`\u{XXXXX}` above U+FFFF), including VT, FF, U+001C–U+001E
 * and U+0085, so no line boundary of `str.splitlines()` survives except LF;
 * every line is prefixed with `> `.
 *
 * TAB is kept: it breaks no line and pasted code needs it. A `<` that starts
 * `<untrusted-` or `</untrusted-` (any case) is shown as `\u003c`, so a quoted
 * line cannot even spell a fence line after its `> `.
 *
 * Because every body line starts with `> `, a body line can never equal, or
 * start like, a fence line (which starts with `<`).
 */

const QUOTE_PREFIX = '> ';

/** Shown after a truncated item's lines; unprefixed, so content cannot forge it. */
export const QUOTE_TRUNCATED_MARK = '[truncated]';

const NEWLINES = /\r\n|[\r\u2028\u2029]/g;
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}]|<(?=\/?untrusted-)/giu;

function visibleEscape(c: string): string {
  const codePoint = c.codePointAt(0) as number;
  const hex = codePoint.toString(16).padStart(4, '0');
  return codePoint > 0xffff ? `\\u{${hex}}` : `\\u${hex}`;
}

/** The quoted lines of one item (never empty: an empty item is one `> ` line). */
export function quoteBodyLines(content: string, truncated: boolean): string[] {
  const normalised = content.replace(NEWLINES, '\n');
  const lines = normalised
    .split('\n')
    .map(
      (line) => QUOTE_PREFIX + line.replace(INVISIBLE, (c) => (c === '\t' ? c : visibleEscape(c))),
    );
  if (truncated) lines.push(QUOTE_TRUNCATED_MARK);
  return lines;
}
