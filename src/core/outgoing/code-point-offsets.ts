/**
 * Guard events count offsets in code points (DESIGN.md §5); JavaScript strings
 * index UTF-16 code units. These convert between the two on one text.
 */

/** UTF-16 index of code point `offset` in `text` (the text's length past its end). */
export function unitIndexOf(text: string, offset: number): number {
  let points = 0;
  let i = 0;
  while (i < text.length && points < offset) {
    const c = text.charCodeAt(i);
    const pair =
      c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1));
    i += pair ? 2 : 1;
    points++;
  }
  return i;
}

/** Code points in `text` before UTF-16 index `index`. */
export function codePointOffsetOf(text: string, index: number): number {
  let points = 0;
  let i = 0;
  while (i < index && i < text.length) {
    const c = text.charCodeAt(i);
    const pair =
      c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1));
    i += pair ? 2 : 1;
    points++;
  }
  return points;
}

/** The text between two code point offsets. */
export function sliceCodePoints(text: string, start: number, end: number): string {
  return text.slice(unitIndexOf(text, start), unitIndexOf(text, end));
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
