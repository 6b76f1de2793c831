/**
 * Every rule's automaton (nfa.ts `NfaArrays`) as a few shared columns of the built
 * tables (built-tables.ts, format 3; issue 19 §2): the `csg` bundle and the page
 * decode a rule from them when it first runs, where format 2 parsed a keyword
 * rule's JSON and checked its spec again (`get dfa` ~50-116 ms of the first 4 MB
 * scan in --cpu-prof profiles, docs/cli-startup.md "Scanning a 4 MB file").
 *
 * Compact, because the page pays base64 and a digest per byte of the file: each
 * column is stored in the narrowest unsigned type its values fit (`narrowest`),
 * a state's target only where it is not the next state (nine in ten are), its
 * free edges as a count per state, its conditional edges (a few hundred in the
 * built-in packs) as a list, its sets as indices into the pack's distinct sets
 * (503 for the built-in packs' 4,291, decoded and interned once). The
 * distances to the final state are computed at
 * decode (nfa-analysis.ts), as the JSON path computes them: linear, and not
 * worth a column.
 *
 * The decoder checks every index against its table, so a wrong file is refused
 * (BuiltTablesError, as a CompiledPackError inside the scan that first runs the
 * rule), never read out of bounds. That the automaton is the rule's pattern is
 * not re-proved: the bytes carry the digest their producer recorded.
 */
import { type CharSet, internSet } from '../regex/char-set.ts';
import { CONDITIONS, MAX_NFA_STATES, Nfa } from '../regex/nfa.ts';
import { distancesToFinal } from '../regex/nfa-analysis.ts';
import type { RuleAnalysis } from './compiled-pack.ts';

/** A column as stored: the narrowest unsigned type its values fit. */
export type Column = Uint8Array | Uint16Array | Int32Array;

/** Fields of a rule's row in `BuiltNfaBank.index` (exported for the tests that break them). */
export const BANK_FIELD = {
  start: 0,
  final: 1,
  states: 2,
  /** First state's position in `setOf` and `epsCount`. */
  stateAt: 3,
  epsAt: 4,
  /** First pair in `jumps` (`[state, target]`), and how many. */
  jumpAt: 5,
  jumps: 6,
  /** First triple in `conds` (`[state, target, condition]`), and how many. */
  condAt: 7,
  conds: 8,
  /** First of the rule's sets in `setIds`, and how many. */
  setAt: 9,
  sets: 10,
} as const;
export const BANK_ROW = 11;
const {
  start: START,
  final: FINAL,
  states: STATES,
  stateAt: STATE_AT,
  epsAt: EPS_AT,
  jumpAt: JUMP_AT,
  jumps: JUMPS,
  condAt: COND_AT,
  conds: CONDS,
  setAt: SET_AT,
  sets: SETS,
} = BANK_FIELD;

/** Section indices of the bank's columns (built-tables.ts `BuiltHeader.nfas`). */
export interface BuiltNfaBank {
  /** i32, BANK_ROW per rule, in pack order. */
  index: number;
  /** Per state: its set's index + 1 (0: consumes nothing). */
  setOf: number;
  /** Per state: how many free edges; their targets follow one another in `epsTo`. */
  epsCount: number;
  epsTo: number;
  /** `[state, target]` for each consuming state whose target is not the next state. */
  jumps: number;
  /** `[state, target, condition]` per conditional edge, by state. */
  conds: number;
  /** Per rule, its sets as indices into the pack's distinct sets. */
  setIds: number;
  /** The distinct sets: set k is `ranges[setStart[k] .. setStart[k + 1]]`, as `[lo, hi, …]`. */
  setStart: number;
  ranges: number;
}

/** The narrowest of u8, u16 and i32 that holds `values` (all non-negative). */
export function narrowest(values: Int32Array): Column {
  let max = 0;
  for (let i = 0; i < values.length; i++) max = Math.max(max, values[i] as number);
  if (max <= 0xff) return Uint8Array.from(values);
  if (max <= 0xffff) return Uint16Array.from(values);
  return values;
}

/** Appends to a growable list of integers. */
class IntList {
  private data = new Int32Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }

  done(): Int32Array {
    return this.data.slice(0, this.length);
  }
}

/** The automata, in pack order, as the bank's columns; `add` stores one and returns its section. */
export function encodeNfaBank(nfas: readonly Nfa[], add: (column: Column) => number): BuiltNfaBank {
  const index = new Int32Array(nfas.length * BANK_ROW);
  const setOf = new IntList();
  const epsCount = new IntList();
  const epsTo = new IntList();
  const jumps = new IntList();
  const conds = new IntList();
  const setIds = new IntList();
  const setStart = new IntList();
  const ranges = new IntList();
  const setId = new Map<string, number>();
  nfas.forEach((nfa, r) => {
    const row = r * BANK_ROW;
    const n = nfa.stateCount;
    index[row + START] = nfa.start;
    index[row + FINAL] = nfa.final;
    index[row + STATES] = n;
    index[row + STATE_AT] = setOf.length;
    index[row + EPS_AT] = epsTo.length;
    index[row + JUMP_AT] = jumps.length / 2;
    index[row + COND_AT] = conds.length / 3;
    index[row + SET_AT] = setIds.length;
    index[row + SETS] = nfa.sets.length;
    for (let s = 0; s < n; s++) {
      const set = nfa.setOf[s] as number;
      const to = nfa.to[s] as number;
      setOf.push(set + 1);
      if (set >= 0 && to !== s + 1) {
        jumps.push(s);
        jumps.push(to);
      }
      const from = nfa.epsStart[s] as number;
      const end = nfa.epsStart[s + 1] as number;
      epsCount.push(end - from);
      for (let e = from; e < end; e++) epsTo.push(nfa.epsTo[e] as number);
      for (let e = nfa.condStart[s] as number; e < (nfa.condStart[s + 1] as number); e++) {
        conds.push(s);
        conds.push(nfa.condTo[e] as number);
        conds.push(nfa.condWhen[e] as number);
      }
    }
    index[row + JUMPS] = jumps.length / 2 - (index[row + JUMP_AT] as number);
    index[row + CONDS] = conds.length / 3 - (index[row + COND_AT] as number);
    for (const set of nfa.sets) {
      const key = set.join();
      let id = setId.get(key);
      if (id === undefined) {
        id = setId.size;
        setId.set(key, id);
        setStart.push(ranges.length);
        for (const bound of set) ranges.push(bound);
      }
      setIds.push(id);
    }
  });
  setStart.push(ranges.length);
  return {
    index: add(index),
    setOf: add(narrowest(setOf.done())),
    epsCount: add(narrowest(epsCount.done())),
    epsTo: add(narrowest(epsTo.done())),
    jumps: add(narrowest(jumps.done())),
    conds: add(narrowest(conds.done())),
    setIds: add(narrowest(setIds.done())),
    setStart: add(narrowest(setStart.done())),
    ranges: add(narrowest(ranges.done())),
  };
}

/** The bank's columns as views of the file (built-tables.ts `column`), read once per file. */
export interface BankColumns {
  index: Int32Array;
  setOf: Column;
  epsCount: Column;
  epsTo: Column;
  jumps: Column;
  conds: Column;
  setIds: Column;
  setStart: Column;
  ranges: Column;
  /** The distinct sets, checked and interned once, when the first rule is decoded. */
  sets?: CharSet[];
}

/** Thrown for a bank laid out wrong; built-tables.ts maps it to its own error. */
export class BankError extends Error {
  override name = 'BankError';
}

function refuse(problem: string): never {
  throw new BankError(problem);
}

/** `column[from, from + count)` as a new Int32Array, after checking it lies in the column. */
function slice(column: Column, from: number, count: number, what: string): Int32Array {
  if (!Number.isInteger(from) || !Number.isInteger(count) || from < 0 || count < 0) {
    refuse(`${what} has no integer place`);
  }
  if (from + count > column.length) refuse(`${what} lies outside its column`);
  // The typed-array constructor widens natively; `Int32Array.from` iterates.
  return new Int32Array(column.subarray(from, from + count));
}

/** Each distinct set's ranges: ascending, disjoint, not adjacent (char-set.ts); interned. */
function distinctSets(bank: BankColumns): CharSet[] {
  const starts = slice(bank.setStart, 0, bank.setStart.length, 'the sets');
  const ranges = slice(bank.ranges, 0, bank.ranges.length, 'the ranges');
  const sets: CharSet[] = [];
  for (let k = 0; k + 1 < starts.length; k++) {
    const from = starts[k] as number;
    const to = starts[k + 1] as number;
    if (from < 0 || to > ranges.length || to <= from || (to - from) % 2 !== 0) {
      refuse('a set is not ranges');
    }
    let previousHi = -2;
    for (let i = from; i < to; i += 2) {
      const lo = ranges[i] as number;
      const hi = ranges[i + 1] as number;
      if (lo < previousHi + 2 || hi < lo || hi > 0xffff) {
        refuse('a set is not ascending disjoint ranges');
      }
      previousHi = hi;
    }
    sets.push(internSet(Array.from(ranges.subarray(from, to))));
  }
  if (starts[0] !== 0 || starts[starts.length - 1] !== ranges.length) {
    refuse('the sets do not span their ranges');
  }
  return sets;
}

/** Free edges' row starts from their counts, and their targets (each a state). */
function freeEdges(
  bank: BankColumns,
  row: Int32Array,
  n: number,
): { epsStart: Int32Array; epsTo: Int32Array } {
  const counts = slice(bank.epsCount, row[STATE_AT] as number, n, 'the free edge counts');
  const epsStart = new Int32Array(n + 1);
  for (let s = 0; s < n; s++) epsStart[s + 1] = (epsStart[s] as number) + (counts[s] as number);
  const epsTo = slice(bank.epsTo, row[EPS_AT] as number, epsStart[n] as number, 'the free edges');
  for (let e = 0; e < epsTo.length; e++) {
    if ((epsTo[e] as number) >= n) refuse(`a free edge targets ${epsTo[e]}`);
  }
  return { epsStart, epsTo };
}

/** Each consuming state's target: the next state unless `jumps` names another. */
function targets(bank: BankColumns, row: Int32Array, setOf: Int32Array): Int32Array {
  const n = setOf.length;
  const to = new Int32Array(n);
  for (let s = 0; s < n; s++) to[s] = (setOf[s] as number) < 0 ? -1 : s + 1;
  const jumps = slice(
    bank.jumps,
    2 * (row[JUMP_AT] as number),
    2 * (row[JUMPS] as number),
    'jumps',
  );
  for (let j = 0; j < jumps.length; j += 2) {
    const s = jumps[j] as number;
    if (s >= n || (setOf[s] as number) < 0) refuse(`a jump from state ${s}`);
    to[s] = jumps[j + 1] as number;
  }
  for (let s = 0; s < n; s++) {
    if ((to[s] as number) >= n) refuse(`state ${s} targets ${to[s]}`);
  }
  return to;
}

/** Conditional edges in rows by state, from `[state, target, condition]` triples in state order. */
function conditionalEdges(
  bank: BankColumns,
  row: Int32Array,
  n: number,
): { condStart: Int32Array; condTo: Int32Array; condWhen: Uint8Array } {
  const count = row[CONDS] as number;
  const triples = slice(bank.conds, 3 * (row[COND_AT] as number), 3 * count, 'the conditions');
  const condStart = new Int32Array(n + 1);
  const condTo = new Int32Array(count);
  const condWhen = new Uint8Array(count);
  let previous = 0;
  for (let e = 0; e < count; e++) {
    const s = triples[3 * e] as number;
    const t = triples[3 * e + 1] as number;
    const when = triples[3 * e + 2] as number;
    if (s < previous || s >= n || t >= n || when >= CONDITIONS.length) {
      refuse(`conditional edge ${e} is out of place`);
    }
    previous = s;
    condStart[s + 1] = (condStart[s + 1] as number) + 1;
    condTo[e] = t;
    condWhen[e] = when;
  }
  for (let s = 0; s < n; s++)
    condStart[s + 1] = (condStart[s + 1] as number) + (condStart[s] as number);
  return { condStart, condTo, condWhen };
}

/**
 * Rule `rule`'s automaton and distances, every index checked. Throws BankError
 * when the bank does not hold a well-formed automaton for it.
 */
export function decodeBankNfa(bank: BankColumns, rule: number): RuleAnalysis {
  const row = slice(bank.index, rule * BANK_ROW, BANK_ROW, `rule ${rule}'s row`);
  const n = row[STATES] as number;
  if (n < 1 || n > MAX_NFA_STATES) refuse(`an automaton of ${n} states`);
  const start = row[START] as number;
  const final = row[FINAL] as number;
  if (start < 0 || start >= n || final < 0 || final >= n) refuse('an end state outside it');
  const setCount = row[SETS] as number;
  const distinct = (bank.sets ??= distinctSets(bank));
  const sets: CharSet[] = [];
  for (const id of slice(bank.setIds, row[SET_AT] as number, setCount, 'the sets')) {
    const set = distinct[id];
    if (set === undefined) refuse(`no set ${id}`);
    sets.push(set);
  }
  const setOf = slice(bank.setOf, row[STATE_AT] as number, n, 'the states');
  for (let s = 0; s < n; s++) {
    const set = (setOf[s] as number) - 1;
    if (set >= setCount) refuse(`state ${s} consumes set ${set}`);
    setOf[s] = set;
  }
  const nfa = new Nfa({
    start,
    final,
    sets,
    setOf,
    to: targets(bank, row, setOf),
    ...freeEdges(bank, row, n),
    ...conditionalEdges(bank, row, n),
  });
  const dist = distancesToFinal(nfa);
  if (dist[start] === Infinity) refuse('the automaton can never match');
  return { nfa, dist };
}
