/**
 * The line boundaries an envelope must survive (seed 000 §5): every code point
 * at which Python's `str.splitlines()` breaks a line, plus CRLF as one break.
 * A line-oriented consumer (a model, a log pipeline, a host hook) may split on
 * any of them, so the envelope's fence lines must stay the only fence lines
 * whichever of them it uses.
 */

/** The ten code points `str.splitlines()` breaks at, with their names (for test tables). */
export const LINE_BOUNDARIES: readonly { char: string; name: string }[] = [
  { char: '\n', name: 'LF' },
  { char: '\v', name: 'VT' },
  { char: '\f', name: 'FF' },
  { char: '\r', name: 'CR' },
  { char: '\u001C', name: 'FILE SEPARATOR' },
  { char: '\u001D', name: 'GROUP SEPARATOR' },
  { char: '\u001E', name: 'RECORD SEPARATOR' },
  { char: '\u0085', name: 'NEXT LINE' },
  { char: '\u2028', name: 'LINE SEPARATOR' },
  { char: '\u2029', name: 'PARAGRAPH SEPARATOR' },
];

const LINE_BREAK = /\r\n|[\n\v\f\r\u001C-\u001E\u0085\u2028\u2029]/;

/**
 * Splits like Python's `str.splitlines()`: at every one of the ten code points
 * and at CRLF (one break), with no empty last line for a trailing break.
 */
export function splitLinesAtEveryBoundary(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split(new RegExp(LINE_BREAK.source, 'g'));
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}
