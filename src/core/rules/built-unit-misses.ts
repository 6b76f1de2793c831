/**
 * A keyword automaton's third- and fourth-unit misses (scanner.ts `UnitMisses`,
 * third-unit-filter.ts) as the built tables carry them (built-tables.ts, issue 19
 * §2): the `csg` bundle's first scan of a file over `missesAfter` units built them
 * (`buildMisses`, 27-37 ms of a 4 MB scan in --cpu-prof profiles,
 * docs/cli-startup.md). Each table is 65,536 words of which a few thousand are not
 * zero (only bigrams that begin a keyword have misses), so it travels as its
 * non-zero entries: where (u16) and what (i32).
 */
import type { UnitMisses } from '../guard/scanner.ts';

const ENTRIES = 0x10000;

/** Section indices of one table's non-zero entries. */
export interface BuiltMissTable {
  at: number;
  value: number;
}

export interface BuiltUnitMisses {
  third: BuiltMissTable;
  fourth: BuiltMissTable;
}

/** `table`'s non-zero entries as two columns; `add` stores one and returns its section. */
function encodeTable(
  table: Int32Array,
  add: (column: Uint16Array | Int32Array) => number,
): BuiltMissTable {
  const at: number[] = [];
  const value: number[] = [];
  table.forEach((v, i) => {
    if (v !== 0) {
      at.push(i);
      value.push(v);
    }
  });
  return { at: add(Uint16Array.from(at)), value: add(Int32Array.from(value)) };
}

export function encodeUnitMisses(
  misses: UnitMisses,
  add: (column: Uint16Array | Int32Array) => number,
): BuiltUnitMisses {
  return { third: encodeTable(misses.third, add), fourth: encodeTable(misses.fourth, add) };
}

/** Whether two columns can be one table's entries (`decodeMissTable` then cannot fail). */
export function missColumnsPair(at: Uint16Array, value: Int32Array): boolean {
  return at.length === value.length && at.length <= ENTRIES;
}

/**
 * A full table from its entries. Every u16 index is inside the table, so the columns
 * need only be of one length (the caller's section accessor checks their types).
 */
export function decodeMissTable(at: Uint16Array, value: Int32Array): Int32Array {
  if (!missColumnsPair(at, value)) throw new RangeError('the miss entries do not pair up');
  const table = new Int32Array(ENTRIES);
  for (let k = 0; k < at.length; k++) table[at[k] as number] = value[k] as number;
  return table;
}
