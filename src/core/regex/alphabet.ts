/**
 * Alphabet compression: the 65,536 UTF-16 code units are partitioned into
 * classes that no set of any rule (nor the word / line-terminator sets that
 * assertions look at) distinguishes. One table maps a unit to its class, so the
 * per-unit work of every automaton is one array lookup.
 */
import { type CharSet, LINE_TERMINATOR, MAX_UNIT, WORD, has } from './char-set.ts';
import { UnitKind } from './nfa.ts';

export interface Alphabet {
  /** Code unit → class id. */
  readonly classOf: Uint16Array;
  readonly classCount: number;
  /** A code unit of each class (the lowest). */
  readonly representative: Uint16Array;
  /** Unit kind (word / line terminator / other) of each class, for assertions. */
  readonly kind: Uint8Array;
  /**
   * The unit ranges the classes are made of: interval i is
   * `[intervalStart[i], intervalStart[i + 1])` (the last ends at 0x10000).
   */
  readonly intervalStart: Int32Array;
}

/** Index of the interval containing `unit` (binary search). */
function intervalOf(starts: Int32Array, unit: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= unit) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Calls `fn` with the index of every interval that `set` touches. */
function forEachTouchedInterval(
  starts: Int32Array,
  set: CharSet,
  fn: (interval: number) => void,
): void {
  let i = 0;
  for (let r = 0; r < set.length; r += 2) {
    const lo = set[r] as number;
    const hi = set[r + 1] as number;
    if (lo > MAX_UNIT) break;
    i = Math.max(i, intervalOf(starts, lo));
    for (; i < starts.length && (starts[i] as number) <= hi; i++) fn(i);
    // The interval holding `hi` may also hold the next range's `lo`.
    if (i > 0) i--;
  }
}

/**
 * Partition refinement: intervals start in one block; each set splits every
 * block into its touched and untouched parts. Integer ids only, and only the
 * touched intervals are visited (the old way built a signature string per
 * interval and probed every set for it; the next one still passed over every
 * interval per set, a tenth of loading the built-in packs).
 */
export function buildAlphabet(sets: readonly CharSet[]): Alphabet {
  const all = [WORD, LINE_TERMINATOR, ...sets];
  const cutList: number[] = [0];
  for (const set of all) {
    for (let i = 0; i < set.length; i += 2) {
      const lo = set[i] as number;
      const hi = set[i + 1] as number;
      if (lo <= MAX_UNIT) cutList.push(lo);
      if (hi + 1 <= MAX_UNIT) cutList.push(hi + 1);
    }
  }
  const sorted = Int32Array.from(cutList).sort();
  let m = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[m++] = sorted[i] as number;
  }
  const intervalStart = sorted.slice(0, m);
  // Each set moves the intervals it touches out of their blocks into fresh ones (one fresh
  // block per old block), so a set costs only the intervals it touches, not all of them.
  const block = new Int32Array(m);
  let blocks = 1;
  const splitOf: number[] = [];
  const split: number[] = [];
  const visitedBy = new Int32Array(m).fill(-1);
  all.forEach((set, k) => {
    forEachTouchedInterval(intervalStart, set, (i) => {
      // Adjacent ranges of one set may report the same interval twice.
      if (visitedBy[i] === k) return;
      visitedBy[i] = k;
      const old = block[i] as number;
      let fresh = splitOf[old];
      if (fresh === undefined || fresh < 0) {
        fresh = blocks++;
        splitOf[old] = fresh;
        split.push(old);
      }
      block[i] = fresh;
    });
    for (const old of split) splitOf[old] = -1;
    split.length = 0;
  });
  // Classes numbered by their first interval, each represented by its lowest unit.
  const classOfBlock = new Int32Array(blocks).fill(-1);
  const representative: number[] = [];
  const classOf = new Uint16Array(MAX_UNIT + 1);
  for (let i = 0; i < m; i++) {
    const b = block[i] as number;
    if (classOfBlock[b] === -1) {
      if (representative.length === 0x10000)
        throw new Error('alphabet has more than 65535 classes');
      classOfBlock[b] = representative.length;
      representative.push(intervalStart[i] as number);
    }
    const end = i + 1 < m ? (intervalStart[i + 1] as number) : MAX_UNIT + 1;
    classOf.fill(classOfBlock[b] as number, intervalStart[i] as number, end);
  }
  const kind = Uint8Array.from(representative, (unit) => unitKind(unit));
  return {
    classOf,
    classCount: representative.length,
    representative: Uint16Array.from(representative),
    kind,
    intervalStart,
  };
}

const masks = new WeakMap<Alphabet, WeakMap<CharSet, Uint8Array>>();

/**
 * For each class of `alphabet`, 1 when `set` holds its representative: which
 * classes a set consumes. Only the intervals the set touches are probed, and
 * results are shared by every rule of a pack (memoised per alphabet and set
 * instance; NFAs hold interned sets, see `internSet`).
 */
export function classMask(alphabet: Alphabet, set: CharSet): Uint8Array {
  let memo = masks.get(alphabet);
  if (memo === undefined) {
    memo = new WeakMap();
    masks.set(alphabet, memo);
  }
  let mask = memo.get(set);
  if (mask === undefined) {
    const out = new Uint8Array(alphabet.classCount);
    const { classOf, intervalStart, representative } = alphabet;
    forEachTouchedInterval(intervalStart, set, (i) => {
      const g = classOf[intervalStart[i] as number] as number;
      if (out[g] === 0 && has(set, representative[g] as number)) out[g] = 1;
    });
    mask = out;
    memo.set(set, mask);
  }
  return mask;
}

const lists = new WeakMap<Alphabet, WeakMap<CharSet, Int32Array>>();

/** The classes `set` consumes, ascending (the ones of `classMask`), memoised likewise. */
export function classList(alphabet: Alphabet, set: CharSet): Int32Array {
  let memo = lists.get(alphabet);
  if (memo === undefined) {
    memo = new WeakMap();
    lists.set(alphabet, memo);
  }
  let list = memo.get(set);
  if (list === undefined) {
    const mask = classMask(alphabet, set);
    const out: number[] = [];
    for (let g = 0; g < mask.length; g++) if (mask[g] === 1) out.push(g);
    list = Int32Array.from(out);
    memo.set(set, list);
  }
  return list;
}

export function unitKind(unit: number): UnitKind {
  if (has(WORD, unit)) return UnitKind.Word;
  if (has(LINE_TERMINATOR, unit)) return UnitKind.LineTerminator;
  return UnitKind.Other;
}
