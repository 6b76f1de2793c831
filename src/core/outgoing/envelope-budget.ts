/**
 * Fitting items into a byte budget (seed 000 §3–4, its RFC 0028 step 9): an
 * item is delivered whole if its rendered lines fit; otherwise its longest
 * prefix that fits is delivered as truncated, but only if that prefix is at
 * least MIN_TRUNCATED_BYTES of the original; otherwise the item is skipped.
 * Delivering a stub would use one defect to meet another limit (seed 000 §4).
 *
 * The prefix is cut at a code point boundary of the original, so truncation
 * never splits a surrogate pair, and the prefix is rendered whole, so it never
 * splits a JSON escape or a `\uXXXX` shown by the quote renderer.
 */

export const MIN_TRUNCATED_BYTES = 64;

/** UTF-8 length; a lone surrogate counts 3, as the U+FFFD an encoder writes for it. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (const c of text) {
    const codePoint = c.codePointAt(0) as number;
    bytes += codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** Offsets (UTF-16) of every code point boundary of `text`, 0 and length included. */
function codePointBoundaries(text: string): number[] {
  const boundaries = [0];
  let at = 0;
  for (const c of text) {
    at += c.length;
    boundaries.push(at);
  }
  return boundaries;
}

export type FittedItem =
  | { status: 'whole'; lines: string[] }
  | { status: 'truncated'; lines: string[]; deliveredBytes: number }
  | { status: 'skipped' };

/**
 * Fits one item into `available` bytes. `render(content, truncated)` gives its
 * lines and `cost(lines)` their bytes in the envelope (line breaks included);
 * cost must not decrease as the prefix grows, which holds for both renderers
 * (each code point renders to at least as much as before).
 */
export function fitItem(
  content: string,
  available: number,
  render: (content: string, truncated: boolean) => string[],
  cost: (lines: string[]) => number,
): FittedItem {
  const whole = render(content, false);
  if (cost(whole) <= available) return { status: 'whole', lines: whole };
  const boundaries = codePointBoundaries(content);
  // Largest k with the prefix up to boundaries[k] fitting, by binary search.
  let low = 0;
  let high = boundaries.length - 2;
  let best = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const prefix = content.slice(0, boundaries[mid]);
    if (cost(render(prefix, true)) <= available) {
      best = mid;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  if (best < 0) return { status: 'skipped' };
  const prefix = content.slice(0, boundaries[best]);
  const deliveredBytes = utf8Length(prefix);
  if (deliveredBytes < MIN_TRUNCATED_BYTES) return { status: 'skipped' };
  return { status: 'truncated', lines: render(prefix, true), deliveredBytes };
}
