import type { CharSet } from './char-set.ts';

/**
 * Zero-width conditions on the characters around a position. They are the only
 * assertions in the compilable subset: each looks at most one code unit back and
 * one ahead, so a streaming matcher can decide them as soon as the next code
 * unit (or the end of the stream) is known.
 */
export type Condition = 'bof' | 'eof' | 'bol' | 'eol' | 'word-boundary' | 'not-word-boundary';

/** What surrounds a position: a word unit, a line terminator, another unit, or the stream edge. */
export const UnitKind = { Edge: 0, Word: 1, LineTerminator: 2, Other: 3 } as const;
export type UnitKind = (typeof UnitKind)[keyof typeof UnitKind];

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

/** A Thompson NFA over UTF-16 code units with one start and one final state. */
export interface Nfa {
  states: NfaState[];
  start: number;
  final: number;
  hasConditions: boolean;
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
