/**
 * How a test reads an envelope as a line-oriented consumer would: split at a
 * set of separators, then find the fence lines.
 */
import { looksLikeFenceLine } from '../../../src/core/outgoing/fence-lines.ts';

export function splitAt(text: string, separators: readonly string[]): string[] {
  // Longest first, so CRLF is one break when both it and CR are in the set.
  const sorted = [...separators].sort((a, b) => b.length - a.length);
  const escaped = sorted.map((s) =>
    [...s].map((c) => `\\u{${c.codePointAt(0)?.toString(16)}}`).join(''),
  );
  return text.split(new RegExp(escaped.join('|'), 'u'));
}

export interface FenceCount {
  openingAt: number[];
  closingAt: number[];
  fenceShaped: number;
}

export function countFences(
  lines: readonly string[],
  opening: string,
  closing: string,
): FenceCount {
  const openingAt: number[] = [];
  const closingAt: number[] = [];
  let fenceShaped = 0;
  lines.forEach((line, i) => {
    if (line === opening) openingAt.push(i);
    if (line === closing) closingAt.push(i);
    if (looksLikeFenceLine(line)) fenceShaped++;
  });
  return { openingAt, closingAt, fenceShaped };
}
