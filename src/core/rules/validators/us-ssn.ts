/**
 * US Social Security number plausibility (SSA numbering rules, including the
 * 2011 randomisation): area 001–899 except 666, group 01–99, serial
 * 0001–9999. Numbers the SSA or its publications made famous as examples
 * (078-05-1120 from the 1938 wallet insert, 219-09-9999 from an SSA ad) and
 * the sequence 123-45-6789 are rejected: they are placeholders, not people.
 * So is any number whose five area and group digits count up or down by one
 * (123-45-…, 345-67-…, 543-21-…): the textbook way to write a made-up SSN
 * (issue 17 §4, sequential-digit placeholders).
 *
 * The candidate is nine digits, optionally grouped 3-2-4 by one hyphen or one
 * space each (the same separator twice).
 */
const SHAPE = /^([0-9]{3})([- ]?)([0-9]{2})\2([0-9]{4})$/;
/** Runs that count up and down by one (wrapping): any five digits in a row of them count. */
const COUNTING_UP = '0123456789012345';
const COUNTING_DOWN = '9876543210987654';
const PLACEHOLDERS: ReadonlySet<string> = new Set(['078051120', '219099999', '123456789']);

export function usSsnValid(text: string): boolean {
  const m = SHAPE.exec(text);
  if (m === null) return false;
  const area = m[1] ?? '';
  const group = m[3] ?? '';
  const serial = m[4] ?? '';
  if (area === '000' || area === '666' || area.startsWith('9')) return false;
  if (group === '00' || serial === '0000') return false;
  const first5 = area + group;
  if (COUNTING_UP.includes(first5) || COUNTING_DOWN.includes(first5)) return false;
  return !PLACEHOLDERS.has(area + group + serial);
}
