/**
 * The byte a UTF-16 unit stands for in the bigram prefilter (bigram-hits.ts, the scanners'
 * bigram tables, the third- and fourth-unit misses, the built tables). ASCII is itself.
 * Other units fold into 0x80..0xFF, in two parts (issue 19 §3, docs/engine-speed.md "CJK and
 * the bigram fold"):
 *
 * - the invisible and format units that always-on rules start on (zero-width and bidi
 *   controls, variation selectors, the BOM, the plane-14 high surrogates of tag characters…:
 *   `SPECIAL_RANGES`) fold to 0xF0..0xFF by their low 4 bits;
 * - every other unit (CJK, other letters, other surrogates) folds by its low 7 bits into
 *   0x80..0xEF, 0xF0..0xFF moved down to 0xE0..0xEF.
 *
 * With the former fold (low 7 bits for all), CJK units shared their bytes with those start
 * units, so CJK prose marked a hit on about every fourth position: 60,387 of the written
 * scanner's 63,951 hits on 2 MB of the bench workload (helper D2's "Bulk engine, fourth round").
 * Any fold is sound as long as the tables and the passes use the same one; the former one
 * stays behind `bigramFold.enabled` for the differential (test/property/bigram-fold.test.ts).
 */

/** Inclusive ranges of the units folded apart (`bigramByte` 0xF0..0xFF). */
export const SPECIAL_RANGES: readonly (readonly [number, number])[] = [
  [0x00ad, 0x00ad], // soft hyphen
  [0x034f, 0x034f], // combining grapheme joiner
  [0x061c, 0x061c], // Arabic letter mark
  [0x115f, 0x1160], // Hangul fillers
  [0x17b4, 0x17b5], // Khmer inherent vowels
  [0x180b, 0x180f], // Mongolian variation selectors and vowel separator
  [0x200b, 0x200f], // zero-width space, non-joiner, joiner, direction marks
  [0x2028, 0x202e], // line and paragraph separators, bidi embeddings and overrides
  [0x2060, 0x206f], // word joiner, invisible operators, bidi isolates, deprecated formats
  [0x3164, 0x3164], // Hangul filler
  [0xdb40, 0xdb7f], // high surrogates of plane 14: tag characters, variation selectors 17-256
  [0xfe00, 0xfe0f], // variation selectors
  [0xfeff, 0xfeff], // byte order mark, zero-width no-break space
  [0xffa0, 0xffa0], // halfwidth Hangul filler
  [0xfff0, 0xfffb], // unassigned specials, interlinear annotation
];

/**
 * The fold of every unit: ASCII as itself, then one 128-unit block copied over the rest (an
 * ordinary unit's byte depends on its low 7 bits only), then the special units. Copied, not
 * computed unit by unit: a loop over 65,536 units took 2.5-8.6 ms on its first (cold) run,
 * on the page's main thread at set-up (issue 19 §4).
 */
function buildFold(former: boolean): Uint8Array {
  const table = new Uint8Array(0x10000);
  const block = new Uint8Array(0x80);
  for (let low = 0; low < 0x80; low++) {
    const b = 0x80 | low;
    block[low] = former || b < 0xf0 ? b : b - 0x10;
  }
  for (let at = 0x80; at < 0x10000; at += 0x80) table.set(block, at);
  for (let unit = 0; unit < 0x80; unit++) table[unit] = unit;
  if (!former) {
    for (const [lo, hi] of SPECIAL_RANGES) {
      for (let unit = lo; unit <= hi; unit++) table[unit] = 0xf0 | (unit & 0x0f);
    }
  }
  return table;
}

/** The fold in use and the former one (per unit, 64 KiB each, made on first use). */
let current: Uint8Array | null = null;
let formerTable: Uint8Array | null = null;

/**
 * Off: the former fold (the slow path of the differential). Read when a table or a pass is
 * made (`foldTable`), so a guard keeps the fold it was made with; the bigram tables and
 * misses are cached per fold (scanner.ts).
 */
export const bigramFold = { enabled: true };

/** The fold of every unit, as in use now. */
export function foldTable(): Uint8Array {
  if (bigramFold.enabled) return (current ??= buildFold(false));
  return (formerTable ??= buildFold(true));
}

/** The byte a unit stands for in a bigram, by the fold in use now (not for hot loops). */
export function bigramByte(unit: number): number {
  return foldTable()[unit] as number;
}

/**
 * Calls `each` with units of [lo, hi) that reach every byte the range's units fold to (by
 * either fold): its first 256 units that are not special (its ASCII units, then 128
 * consecutive others reach every byte an ordinary unit can fold to), and the special units
 * inside it (which fold by their own rule). A few hundred calls per range at most.
 */
export function unitsReachingBytes(lo: number, hi: number, each: (unit: number) => void): void {
  const fold = (current ??= buildFold(false));
  let ordinary = 0;
  let unit = lo;
  for (; unit < hi && ordinary < 0x100; unit++) {
    if ((fold[unit] as number) < 0xf0) ordinary++;
    each(unit);
  }
  for (const [a, b] of SPECIAL_RANGES) {
    for (let u = Math.max(a, unit); u <= Math.min(b, hi - 1); u++) each(u);
  }
}
