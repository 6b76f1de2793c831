/**
 * US Social Security number plausibility (SSA numbering rules, including the
 * 2011 randomisation): area 001–899 except 666, group 01–99, serial
 * 0001–9999. Numbers the SSA or its publications made famous as examples
 * (078-05-1120 from the 1938 wallet insert, 219-09-9999 from an SSA ad) and
 * the sequence 123-45-6789 are rejected: they are placeholders, not people.
 *
 * The candidate is nine digits, optionally grouped 3-2-4 by one hyphen or one
 * space each (the same separator twice).
 */
const SHAPE = /^([0-9]{3})([- ]?)([0-9]{2})\2([0-9]{4})$/;
const PLACEHOLDERS: ReadonlySet<string> = new Set(['078051120', '219099999', '123456789']);

export function usSsnValid(text: string): boolean {
  const m = SHAPE.exec(text);
  if (m === null) return false;
  const area = m[1] ?? '';
  const group = m[3] ?? '';
  const serial = m[4] ?? '';
  if (area === '000' || area === '666' || area.startsWith('9')) return false;
  if (group === '00' || serial === '0000') return false;
  return !PLACEHOLDERS.has(area + group + serial);
}
