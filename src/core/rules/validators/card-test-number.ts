/**
 * A card number made of one 4-digit group repeated (issue 17 §4: documented
 * example and placeholder values are never redacted): the networks' and
 * payment processors' documented test numbers are written that way
 * (`4111 1111 1111 1111`, `5555 5555 5555 4444`, `4242 4242 4242 4242`), and so
 * are rows of a table that happen to pass Luhn (`quanta 2650 1514 1514 1514`).
 * An issued number has three equal groups among its first four about once in
 * 2.5 million.
 */
const GROUP = 4;

/** True when one 4-digit group occurs three or more times in the first 16 digits. */
export function repeatedGroupCard(text: string): boolean {
  const digits = text.replace(/[^0-9]/g, '').slice(0, GROUP * 4);
  const counts = new Map<string, number>();
  for (let at = 0; at + GROUP <= digits.length; at += GROUP) {
    const group = digits.slice(at, at + GROUP);
    const n = (counts.get(group) ?? 0) + 1;
    if (n >= 3) return true;
    counts.set(group, n);
  }
  return false;
}
