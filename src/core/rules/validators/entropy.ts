/**
 * Shannon entropy of a string in bits per character (per code point), and the
 * `entropy` validator built on it.
 *
 * An 8-character string can reach at most log2(8) = 3 bits per character, so a
 * threshold of 3.0 only accepts short values whose characters are all distinct;
 * longer random secrets comfortably exceed it, while placeholders such as
 * `********`, `xxxxxxxx` or `changeme` stay below.
 */
export function shannonEntropy(s: string): number {
  const counts = new Map<string, number>();
  let total = 0;
  for (const ch of s) {
    counts.set(ch, (counts.get(ch) ?? 0) + 1);
    total++;
  }
  if (total === 0) return 0;
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / total;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** Tolerance so that e.g. exactly 3.0 bits (8 distinct of 8) is not lost to rounding. */
const EPSILON = 1e-9;

/** True when `text` has at least `minEntropy` bits per character. */
export function entropyAtLeast(text: string, minEntropy: number): boolean {
  return shannonEntropy(text) + EPSILON >= minEntropy;
}
