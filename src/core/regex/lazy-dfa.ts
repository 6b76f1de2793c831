/**
 * An anchored DFA for one rule, built lazily (a state and a transition are
 * computed on first use and cached). Eager subset construction explodes on
 * counted repetitions followed by a literal from the same class (issue 2,
 * feasibility notes); a lazy DFA only ever builds the states the text visits,
 * and an anchored one (one start per match candidate) stays small.
 *
 * A DFA state is the set of NFA states *before* the epsilon closure, plus the
 * kind of the previous code unit when the rule has assertions: `\b`, `$` and
 * friends depend on the next unit, so closure and acceptance are computed per
 * (state, class of the next unit). A transition therefore also says whether the
 * rule accepted right *before* that unit.
 */
import type { Alphabet } from './alphabet.ts';
import { classList, classMask } from './alphabet.ts';
import { type Nfa, UnitKind, conditionCodeHolds } from './nfa.ts';

/** Packed transition: `(next << 1) | acceptedBefore`. */
export const DEAD = 0;

/** Beyond this many states one rule's cache is considered runaway (fail closed). */
const MAX_DFA_STATES = 200_000;

export class DfaLimitError extends Error {
  override name = 'DfaLimitError';
}

export class LazyDfa {
  /** Global class → local class of this rule. */
  readonly localOf: Uint16Array;
  readonly localCount: number;
  private readonly localKind: Uint8Array;
  private readonly cores: Int32Array[] = [];
  private readonly prevs: number[] = [];
  private readonly trans: Int32Array[] = [];
  private readonly eof: number[] = [];
  private readonly terminal: number[] = [];
  private readonly settled: number[] = [];
  /** Fewest code units still needed before this state can accept. */
  readonly minDist: number[] = [];
  private readonly index = new Map<string, number>();
  private readonly starts = new Int32Array(4).fill(-1);

  /** Per local class, per NFA set id: 1 when the set contains the class. */
  private readonly setHas: Uint8Array;
  private readonly setCount: number;
  /**
   * Closure scratch, allocated on first use (many rules of a pack never run):
   * a stamp per NFA state (seen when equal to `stamp`) and a stack.
   */
  private seenStamp: Uint32Array | null = null;
  private stamp = 0;
  private stack: Int32Array | null = null;

  constructor(
    private readonly nfa: Nfa,
    private readonly dist: Float64Array,
    alphabet: Alphabet,
  ) {
    const sets = nfa.sets;
    this.setCount = sets.length;
    // Local classes: global classes that no set of this rule (nor, with assertions, the
    // unit kind) tells apart. Partition refinement over integer block ids: each set moves
    // its classes out of their blocks into fresh ones, so a set costs only the classes it
    // holds (most sets are a literal's one or two classes).
    const classCount = alphabet.classCount;
    const ids = nfa.hasConditions ? Int32Array.from(alphabet.kind) : new Int32Array(classCount);
    let count = nfa.hasConditions ? 4 : 1;
    const splitOf: number[] = [];
    const touched: number[] = [];
    for (const set of sets) {
      const list = classList(alphabet, set);
      for (let i = 0; i < list.length; i++) {
        const g = list[i] as number;
        const block = ids[g] as number;
        let moved = splitOf[block];
        if (moved === undefined || moved < 0) {
          moved = count++;
          splitOf[block] = moved;
          touched.push(block);
        }
        ids[g] = moved;
      }
      for (const block of touched) splitOf[block] = -1;
      touched.length = 0;
    }
    // Number local classes by first occurrence, and keep one global class of each.
    const first = new Int32Array(count).fill(-1);
    this.localOf = new Uint16Array(classCount);
    const localRep: number[] = [];
    for (let g = 0; g < classCount; g++) {
      const id = ids[g] as number;
      if (first[id] === -1) {
        first[id] = localRep.length;
        localRep.push(g);
      }
      this.localOf[g] = first[id] as number;
    }
    this.localCount = localRep.length;
    this.localKind = Uint8Array.from(localRep, (g) => alphabet.kind[g] as number);
    this.setHas = new Uint8Array(this.localCount * this.setCount);
    sets.forEach((set, k) => {
      const mask = classMask(alphabet, set);
      localRep.forEach((g, l) => {
        this.setHas[l * this.setCount + k] = mask[g] as number;
      });
    });
    // State 0 is the dead state: empty set, every transition back to itself.
    this.intern([], 0);
    (this.trans[0] as Int32Array).fill(DEAD);
    this.eof[0] = 0;
    this.terminal[0] = 1;
  }

  get stateCount(): number {
    return this.cores.length;
  }

  /** The state for a match starting after a unit of kind `prev` (Edge at stream start). */
  start(prev: UnitKind): number {
    const cached = this.starts[prev] as number;
    if (cached >= 0) return cached;
    const id =
      this.dist[this.nfa.start] === Infinity
        ? DEAD
        : this.intern([this.nfa.start], this.nfa.hasConditions ? prev : 0);
    this.starts[prev] = id;
    return id;
  }

  /** Packed transition on a unit of global class `g`. */
  step(state: number, g: number): number {
    const l = this.localOf[g] as number;
    const row = this.trans[state] as Int32Array;
    const t = row[l] as number;
    return t >= 0 ? t : this.compute(state, l);
  }

  /**
   * True when no unit can extend a match from this state. Without assertions
   * acceptance then no longer depends on what follows, so the match is settled
   * one unit earlier than by waiting for the next unit.
   */
  cannotExtend(state: number): boolean {
    let v = this.terminal[state] as number;
    if (v < 0) {
      v = 1;
      for (let l = 0; l < this.localCount && v === 1; l++) {
        const row = this.trans[state] as Int32Array;
        const t = (row[l] as number) >= 0 ? (row[l] as number) : this.compute(state, l);
        if (t >> 1 !== DEAD) v = 0;
      }
      this.terminal[state] = v;
    }
    return v === 1;
  }

  /**
   * Acceptance in this state when it does not depend on the next unit: 1 or 0;
   * -1 when it does (a `\b` or `$` still to decide).
   */
  settledAcceptance(state: number): number {
    let v = this.settled[state] as number;
    if (v === -2) {
      const kinds = [UnitKind.Edge, UnitKind.Word, UnitKind.LineTerminator, UnitKind.Other];
      const accepts = kinds.map((k) => this.closure(state, k).includes(this.nfa.final));
      v = accepts.every((a) => a === accepts[0]) ? (accepts[0] ? 1 : 0) : -1;
      this.settled[state] = v;
    }
    return v;
  }

  /** Whether the rule accepts at the end of the stream in this state. */
  acceptsAtEnd(state: number): boolean {
    let v = this.eof[state] as number;
    if (v < 0) {
      const closure = this.closure(state, UnitKind.Edge);
      v = closure.includes(this.nfa.final) ? 1 : 0;
      this.eof[state] = v;
    }
    return v === 1;
  }

  private compute(state: number, l: number): number {
    const next = this.localKind[l] as UnitKind;
    const closure = this.closure(state, next);
    const { final, setOf, to } = this.nfa;
    let accepted = 0;
    const targets: number[] = [];
    const row = l * this.setCount;
    for (let i = 0; i < closure.length; i++) {
      const s = closure[i] as number;
      if (s === final) accepted = 1;
      const set = setOf[s] as number;
      if (set >= 0 && this.setHas[row + set] === 1) {
        const t = to[s] as number;
        if (this.dist[t] !== Infinity) targets.push(t);
      }
    }
    targets.sort((a, b) => a - b);
    let unique = 0;
    for (let i = 0; i < targets.length; i++) {
      if (i === 0 || targets[i] !== targets[i - 1]) targets[unique++] = targets[i] as number;
    }
    targets.length = unique;
    const id =
      targets.length === 0 ? DEAD : this.intern(targets, this.nfa.hasConditions ? next : 0);
    const packed = (id << 1) | accepted;
    (this.trans[state] as Int32Array)[l] = packed;
    return packed;
  }

  /** The epsilon closure of a state's core before a unit of kind `next` (Edge: end of stream). */
  private closure(state: number, next: UnitKind): Int32Array {
    const core = this.cores[state] as Int32Array;
    const prev = this.prevs[state] as UnitKind;
    const { epsStart, epsTo, condStart, condTo, condWhen } = this.nfa;
    const nfa = this.nfa;
    // Every state is visited once and every edge pushes at most once: that bounds the stack.
    const seen = (this.seenStamp ??= new Uint32Array(nfa.stateCount));
    const stack = (this.stack ??= new Int32Array(
      nfa.stateCount + nfa.epsTo.length + nfa.condTo.length + 1,
    ));
    const dist = this.dist;
    this.stamp = this.stamp === 0xffffffff ? 1 : this.stamp + 1;
    if (this.stamp === 1) seen.fill(0);
    const stamp = this.stamp;
    const out: number[] = [];
    let depth = 0;
    for (let i = 0; i < core.length; i++) stack[depth++] = core[i] as number;
    while (depth > 0) {
      const s = stack[--depth] as number;
      if (seen[s] === stamp) continue;
      seen[s] = stamp;
      out.push(s);
      for (let e = epsStart[s] as number; e < (epsStart[s + 1] as number); e++) {
        const t = epsTo[e] as number;
        if (seen[t] !== stamp && dist[t] !== Infinity) stack[depth++] = t;
      }
      for (let e = condStart[s] as number; e < (condStart[s + 1] as number); e++) {
        const t = condTo[e] as number;
        if (
          seen[t] !== stamp &&
          dist[t] !== Infinity &&
          conditionCodeHolds(condWhen[e] as number, prev, next)
        ) {
          stack[depth++] = t;
        }
      }
    }
    return Int32Array.from(out);
  }

  private intern(core: number[], prev: number): number {
    const key = `${prev}|${core.join(',')}`;
    const known = this.index.get(key);
    if (known !== undefined) return known;
    const id = this.cores.length;
    if (id >= MAX_DFA_STATES) {
      throw new DfaLimitError(`automaton cache exceeded ${MAX_DFA_STATES} states`);
    }
    this.index.set(key, id);
    this.cores.push(Int32Array.from(core));
    this.prevs.push(prev);
    this.trans.push(new Int32Array(this.localCount).fill(-1));
    this.eof.push(-1);
    this.terminal.push(-1);
    this.settled.push(-2);
    let min = Infinity;
    for (const s of core) min = Math.min(min, this.dist[s] as number);
    this.minDist.push(min);
    return id;
  }
}
