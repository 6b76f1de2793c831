/**
 * Sets of code units / code points as sorted, disjoint, non-adjacent inclusive
 * ranges: `[lo0, hi0, lo1, hi1, …]`. Immutable values; every operation returns
 * a new normalised set.
 */
export type CharSet = readonly number[];

export const MAX_UNIT = 0xffff;
export const MAX_CODE_POINT = 0x10ffff;

export const EMPTY: CharSet = [];

export function range(lo: number, hi: number): CharSet {
  return lo <= hi ? [lo, hi] : EMPTY;
}

export function single(c: number): CharSet {
  return [c, c];
}

/** Normalise any list of (possibly overlapping, unsorted) ranges. */
export function fromRanges(pairs: readonly (readonly [number, number])[]): CharSet {
  const sorted = pairs.filter(([lo, hi]) => lo <= hi).sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [lo, hi] of sorted) {
    const last = out.length - 1;
    if (last > 0 && lo <= (out[last] as number) + 1) {
      out[last] = Math.max(out[last] as number, hi);
    } else {
      out.push(lo, hi);
    }
  }
  return out;
}

function pairsOf(set: CharSet): [number, number][] {
  const pairs: [number, number][] = [];
  for (let i = 0; i < set.length; i += 2) pairs.push([set[i] as number, set[i + 1] as number]);
  return pairs;
}

export function union(...sets: CharSet[]): CharSet {
  return fromRanges(sets.flatMap(pairsOf));
}

export function negate(set: CharSet, max: number): CharSet {
  const out: number[] = [];
  let next = 0;
  for (const [lo, hi] of pairsOf(set)) {
    if (lo > next) out.push(next, lo - 1);
    next = hi + 1;
  }
  if (next <= max) out.push(next, max);
  return out;
}

export function intersect(a: CharSet, b: CharSet): CharSet {
  const out: [number, number][] = [];
  for (const [alo, ahi] of pairsOf(a)) {
    for (const [blo, bhi] of pairsOf(b)) {
      const lo = Math.max(alo, blo);
      const hi = Math.min(ahi, bhi);
      if (lo <= hi) out.push([lo, hi]);
    }
  }
  return fromRanges(out);
}

/**
 * The one shared instance of a set's value. NFAs keep interned sets, so every
 * rule of a pack that consumes `[A-Za-z0-9]` holds the same array, and the
 * alphabet and per-set tables are keyed by identity instead of by a string
 * built from the ranges. Bounded by the distinct sets of the packs compiled.
 */
const interned = new Map<string, CharSet>();

export function internSet(set: CharSet): CharSet {
  const key = set.join(',');
  let shared = interned.get(key);
  if (shared === undefined) {
    shared = Object.freeze([...set]);
    interned.set(key, shared);
  }
  return shared;
}

export function has(set: CharSet, c: number): boolean {
  for (let i = 0; i < set.length; i += 2) {
    if (c < (set[i] as number)) return false;
    if (c <= (set[i + 1] as number)) return true;
  }
  return false;
}

export function isEmpty(set: CharSet): boolean {
  return set.length === 0;
}

export function size(set: CharSet): number {
  let n = 0;
  for (const [lo, hi] of pairsOf(set)) n += hi - lo + 1;
  return n;
}

export function forEachRange(set: CharSet, fn: (lo: number, hi: number) => void): void {
  for (let i = 0; i < set.length; i += 2) fn(set[i] as number, set[i + 1] as number);
}

export const DIGIT: CharSet = range(0x30, 0x39);
export const WORD: CharSet = fromRanges([
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
]);
/** ECMAScript WhiteSpace and LineTerminator (the `\s` set). */
export const SPACE: CharSet = fromRanges([
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
]);
/** ECMAScript LineTerminator: what `.` excludes without `s`, and `^`/`$` see with `m`. */
export const LINE_TERMINATOR: CharSet = fromRanges([
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
]);

/** Largest non-ASCII range we case-fold by enumeration; wider ones fold only their ASCII part. */
const FOLD_ENUMERATION_LIMIT = 4096;

function caseVariants(c: number): number[] {
  const s = String.fromCharCode(c);
  const out: number[] = [];
  for (const v of [s.toLowerCase(), s.toUpperCase()]) {
    if (v.length === 1) out.push(v.charCodeAt(0));
  }
  return out;
}

/**
 * Closes a set under simple case mapping, for the `i` flag. ASCII letters are
 * folded exactly; other ranges are enumerated when they are small. Rules are
 * overwhelmingly ASCII; a negated class is folded *before* negation by the
 * compiler, which is what JS does.
 */
export function caseClose(set: CharSet): CharSet {
  const key = set.join(',');
  let closed = caseClosed.get(key);
  if (closed === undefined) {
    closed = computeCaseClose(set);
    caseClosed.set(key, closed);
  }
  return closed;
}

/**
 * Case closures already computed, by set. Every literal of an `i` rule is
 * closed, and the same letters recur across a pack; enumerating toLowerCase /
 * toUpperCase per literal was a tenth of compiling the built-in packs. Sets are
 * immutable values, so sharing them is safe; the table is bounded by the
 * distinct sets of the packs compiled.
 */
const caseClosed = new Map<string, CharSet>();

function computeCaseClose(set: CharSet): CharSet {
  const extra: [number, number][] = [];
  for (const [lo, hi] of pairsOf(set)) {
    const upper = intersect([lo, hi], range(0x41, 0x5a));
    forEachRange(upper, (a, b) => extra.push([a + 32, b + 32]));
    const lower = intersect([lo, hi], range(0x61, 0x7a));
    forEachRange(lower, (a, b) => extra.push([a - 32, b - 32]));
    const nonAscii = intersect([lo, hi], range(0x80, MAX_UNIT));
    if (size(nonAscii) <= FOLD_ENUMERATION_LIMIT) {
      forEachRange(nonAscii, (a, b) => {
        for (let c = a; c <= b; c++) for (const v of caseVariants(c)) extra.push([v, v]);
      });
    }
  }
  return union(set, fromRanges(extra));
}
