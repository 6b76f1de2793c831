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
  /** A code unit of each class. */
  readonly representative: Uint16Array;
  /** Unit kind (word / line terminator / other) of each class, for assertions. */
  readonly kind: Uint8Array;
}

export function buildAlphabet(sets: readonly CharSet[]): Alphabet {
  const all = [WORD, LINE_TERMINATOR, ...sets];
  const cuts = new Set<number>([0, MAX_UNIT + 1]);
  for (const set of all) {
    for (let i = 0; i < set.length; i += 2) {
      const lo = set[i] as number;
      const hi = set[i + 1] as number;
      if (lo <= MAX_UNIT) cuts.add(lo);
      if (hi + 1 <= MAX_UNIT) cuts.add(hi + 1);
    }
  }
  const points = [...cuts].sort((a, b) => a - b);
  const classOf = new Uint16Array(MAX_UNIT + 1);
  const bySignature = new Map<string, number>();
  const representative: number[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const lo = points[i] as number;
    const hi = (points[i + 1] as number) - 1;
    let signature = '';
    for (let s = 0; s < all.length; s++) {
      if (has(all[s] as CharSet, lo)) signature += `${s},`;
    }
    let id = bySignature.get(signature);
    if (id === undefined) {
      id = representative.length;
      if (id > 0xffff) throw new Error('alphabet has more than 65535 classes');
      bySignature.set(signature, id);
      representative.push(lo);
    }
    classOf.fill(id, lo, hi + 1);
  }
  const kind = new Uint8Array(representative.length);
  representative.forEach((unit, id) => {
    kind[id] = unitKind(unit);
  });
  return {
    classOf,
    classCount: representative.length,
    representative: Uint16Array.from(representative),
    kind,
  };
}

export function unitKind(unit: number): UnitKind {
  if (has(WORD, unit)) return UnitKind.Word;
  if (has(LINE_TERMINATOR, unit)) return UnitKind.LineTerminator;
  return UnitKind.Other;
}
