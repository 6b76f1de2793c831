import type { CharSet } from './char-set.ts';

/**
 * Zero-width conditions on the characters around a position. They are the only
 * assertions in the compilable subset: each looks at most one code unit back and
 * one ahead, so a streaming matcher can decide them as soon as the next code
 * unit (or the end of the stream) is known.
 */
export type Condition = 'bof' | 'eof' | 'bol' | 'eol' | 'word-boundary' | 'not-word-boundary';

/** Conditions by their compact code (the index), as stored in `Nfa.condWhen`. */
export const CONDITIONS: readonly Condition[] = [
  'bof',
  'eof',
  'bol',
  'eol',
  'word-boundary',
  'not-word-boundary',
];

/** Above this many NFA states a rule is rejected: its automaton would not be small. */
export const MAX_NFA_STATES = 200_000;

/** What surrounds a position: a word unit, a line terminator, another unit, or the stream edge. */
export const UnitKind = { Edge: 0, Word: 1, LineTerminator: 2, Other: 3 } as const;
export type UnitKind = (typeof UnitKind)[keyof typeof UnitKind];

/** One state as plain objects: a readable view for oracles and debugging, not the hot path. */
export interface NfaState {
  /** Unconditional epsilon edges. */
  eps: number[];
  /** Epsilon edges taken only when the condition holds at the current position. */
  cond: { when: Condition; to: number }[];
  /** The code units this state consumes (UTF-16), or null for a pure epsilon state. */
  set: CharSet | null;
  /** Target after consuming a unit of `set`. */
  to: number;
}

/** The arrays of an NFA; every index is checked by whoever builds one from untrusted data. */
export interface NfaArrays {
  readonly start: number;
  readonly final: number;
  /** The distinct non-empty unit sets the states consume. */
  readonly sets: readonly CharSet[];
  /** Per state: index into `sets`, or -1 for a state that consumes nothing. */
  readonly setOf: Int32Array;
  /** Per state: target after consuming a unit of its set (-1 when it consumes nothing). */
  readonly to: Int32Array;
  /** Epsilon edges of state s: `epsTo[epsStart[s] .. epsStart[s + 1]]` (length states + 1). */
  readonly epsStart: Int32Array;
  readonly epsTo: Int32Array;
  /** Conditional edges of state s: `condTo/condWhen[condStart[s] .. condStart[s + 1]]`. */
  readonly condStart: Int32Array;
  readonly condTo: Int32Array;
  /** Index into CONDITIONS. */
  readonly condWhen: Uint8Array;
}

/**
 * A Thompson-style NFA over UTF-16 code units with one start and one final
 * state, stored as flat typed arrays (compressed sparse rows for the edges).
 * Bounded repetitions make NFAs of tens of thousands of states; objects and
 * arrays per state made compiling a pack take most of a second, typed arrays
 * make every analysis one allocation-free linear pass.
 */
export class Nfa implements NfaArrays {
  readonly start: number;
  readonly final: number;
  readonly sets: readonly CharSet[];
  readonly setOf: Int32Array;
  readonly to: Int32Array;
  readonly epsStart: Int32Array;
  readonly epsTo: Int32Array;
  readonly condStart: Int32Array;
  readonly condTo: Int32Array;
  readonly condWhen: Uint8Array;
  readonly stateCount: number;
  readonly hasConditions: boolean;
  private view: NfaState[] | undefined;

  constructor(arrays: NfaArrays) {
    this.start = arrays.start;
    this.final = arrays.final;
    this.sets = arrays.sets;
    this.setOf = arrays.setOf;
    this.to = arrays.to;
    this.epsStart = arrays.epsStart;
    this.epsTo = arrays.epsTo;
    this.condStart = arrays.condStart;
    this.condTo = arrays.condTo;
    this.condWhen = arrays.condWhen;
    this.stateCount = arrays.setOf.length;
    this.hasConditions = arrays.condTo.length > 0;
  }

  /** The unit set state `s` consumes, or null. */
  setAt(s: number): CharSet | null {
    const id = this.setOf[s] as number;
    return id < 0 ? null : (this.sets[id] as CharSet);
  }

  /** The states as objects (built on first use; for oracles, tests and debugging). */
  get states(): readonly NfaState[] {
    if (this.view === undefined) {
      const view: NfaState[] = [];
      for (let s = 0; s < this.stateCount; s++) {
        const eps: number[] = [];
        for (let e = this.epsStart[s] as number; e < (this.epsStart[s + 1] as number); e++) {
          eps.push(this.epsTo[e] as number);
        }
        const cond: { when: Condition; to: number }[] = [];
        for (let e = this.condStart[s] as number; e < (this.condStart[s + 1] as number); e++) {
          cond.push({
            when: CONDITIONS[this.condWhen[e] as number] as Condition,
            to: this.condTo[e] as number,
          });
        }
        view.push({ eps, cond, set: this.setAt(s), to: this.to[s] as number });
      }
      this.view = view;
    }
    return this.view;
  }
}

export function conditionHolds(when: Condition, prev: UnitKind, next: UnitKind): boolean {
  switch (when) {
    case 'bof':
      return prev === UnitKind.Edge;
    case 'eof':
      return next === UnitKind.Edge;
    case 'bol':
      return prev === UnitKind.Edge || prev === UnitKind.LineTerminator;
    case 'eol':
      return next === UnitKind.Edge || next === UnitKind.LineTerminator;
    case 'word-boundary':
      return (prev === UnitKind.Word) !== (next === UnitKind.Word);
    case 'not-word-boundary':
      return (prev === UnitKind.Word) === (next === UnitKind.Word);
  }
}

/** `conditionHolds` by condition code, for the hot loops. */
export function conditionCodeHolds(code: number, prev: UnitKind, next: UnitKind): boolean {
  return conditionHolds(CONDITIONS[code] as Condition, prev, next);
}
