/**
 * Which second units can follow an always-on rule's first unit (issue 19 §3,
 * "What remains" 5): `iban` began a thread at every capitalised word and
 * `cn-resident-id` at every digit (14,483 and 9,788 threads on 2 MB of the
 * bench workload), nearly all dead on their second unit. When that unit is
 * already in the pushed text, the scanner reads its class in a table and does
 * not start a thread that would die on it unread (scanner.ts `stepRun`).
 *
 * Row `g1` of a rule's table marks the classes `g2` after which a thread that
 * began with a unit of class `g1`, after a unit of any kind, is still live or
 * has accepted its first unit. A thread not started there would have ended on
 * its second unit without a match, so no candidate, hold or verdict can differ
 * (test/property/second-unit-filter.test.ts compares with the filter off).
 * A first unit that settles the match at once marks every class: the start is
 * left to `spawn`, which decides it.
 */
import { DEAD, type LazyDfa } from '../regex/lazy-dfa.ts';

/** Off only in tests, to compare against starting every thread. */
export const secondUnitFilter = { enabled: true };

/** Unit kinds a start can follow (nfa.ts `UnitKind`: Edge, Word, LineTerminator, Other). */
const KIND_COUNT = 4;

function buildRow(dfa: LazyDfa, g1: number, classCount: number): Uint8Array {
  const row = new Uint8Array(classCount);
  for (let k = 0; k < KIND_COUNT; k++) {
    const s0 = dfa.start(k as 0 | 1 | 2 | 3);
    if (s0 === DEAD) continue;
    const s1 = dfa.step(s0, g1) >> 1;
    if (s1 === DEAD) continue;
    if (dfa.cannotExtend(s1)) return row.fill(1);
    for (let g2 = 0; g2 < classCount; g2++) {
      const packed = dfa.step(s1, g2);
      // Live on, or the first unit alone accepted (bit 0: acceptance before `g2`).
      if (packed >> 1 !== DEAD || (packed & 1) === 1) row[g2] = 1;
    }
  }
  return row;
}

/**
 * One rule's rows, built on first use. Shared by every guard of a pack (one per
 * automaton), and held by each scanner per rule so the hot path does no lookup.
 */
export class SecondUnits {
  private readonly byFirst: (Uint8Array | undefined)[] = [];

  constructor(
    private readonly dfa: LazyDfa,
    private readonly maxLength: number,
    private readonly classCount: number,
  ) {}

  /** Whether a thread begun with a unit of class `g1` can outlive a second unit of class `g2`. */
  canFollow(g1: number, g2: number): boolean {
    // One unit long: settled by its first unit, which `spawn` reads.
    if (!secondUnitFilter.enabled || this.maxLength < 2) return true;
    let row = this.byFirst[g1];
    if (row === undefined) {
      row = buildRow(this.dfa, g1, this.classCount);
      this.byFirst[g1] = row;
    }
    return row[g2] === 1;
  }
}

const shared = new WeakMap<LazyDfa, SecondUnits>();

/** The rows of a rule's automaton (cached per automaton, so per pack). */
export function secondUnitsOf(dfa: LazyDfa, maxLength: number, classCount: number): SecondUnits {
  let units = shared.get(dfa);
  if (units === undefined) {
    units = new SecondUnits(dfa, maxLength, classCount);
    shared.set(dfa, units);
  }
  return units;
}
