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
import { type CharSet, has } from './char-set.ts';
import { type Nfa, type NfaState, UnitKind, conditionHolds } from './nfa.ts';

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
  /** consumes[s * localCount + l]: NFA state s consumes local class l. */
  private readonly consumes: Uint8Array;
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

  constructor(
    private readonly nfa: Nfa,
    private readonly dist: Float64Array,
    alphabet: Alphabet,
  ) {
    const sets: CharSet[] = [];
    const setIds = new Map<string, number>();
    const stateSet = new Int32Array(nfa.states.length).fill(-1);
    nfa.states.forEach((st, i) => {
      if (!st.set) return;
      const key = st.set.join(',');
      let id = setIds.get(key);
      if (id === undefined) {
        id = sets.length;
        sets.push(st.set);
        setIds.set(key, id);
      }
      stateSet[i] = id;
    });
    this.localOf = new Uint16Array(alphabet.classCount);
    const bySignature = new Map<string, number>();
    const localRep: number[] = [];
    const localKind: number[] = [];
    for (let g = 0; g < alphabet.classCount; g++) {
      const unit = alphabet.representative[g] as number;
      const kind = alphabet.kind[g] as number;
      let signature = nfa.hasConditions ? `${kind}:` : '';
      for (let s = 0; s < sets.length; s++) signature += has(sets[s] as CharSet, unit) ? '1' : '0';
      let local = bySignature.get(signature);
      if (local === undefined) {
        local = localRep.length;
        bySignature.set(signature, local);
        localRep.push(unit);
        localKind.push(kind);
      }
      this.localOf[g] = local;
    }
    this.localCount = localRep.length;
    this.localKind = Uint8Array.from(localKind);
    this.consumes = new Uint8Array(nfa.states.length * this.localCount);
    nfa.states.forEach((st, i) => {
      const set = stateSet[i] as number;
      if (set < 0) return;
      for (let l = 0; l < this.localCount; l++) {
        if (has(sets[set] as CharSet, localRep[l] as number))
          this.consumes[i * this.localCount + l] = 1;
      }
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
    const accepted = closure.includes(this.nfa.final) ? 1 : 0;
    const targets = new Set<number>();
    for (const s of closure) {
      if (this.consumes[s * this.localCount + l] === 1) {
        const to = (this.nfa.states[s] as NfaState).to;
        if (this.dist[to] !== Infinity) targets.add(to);
      }
    }
    const core = [...targets].sort((a, b) => a - b);
    const id = core.length === 0 ? DEAD : this.intern(core, this.nfa.hasConditions ? next : 0);
    const packed = (id << 1) | accepted;
    (this.trans[state] as Int32Array)[l] = packed;
    return packed;
  }

  private closure(state: number, next: UnitKind): number[] {
    const core = this.cores[state] as Int32Array;
    const prev = this.prevs[state] as UnitKind;
    const seen = new Set<number>();
    const stack = Array.from(core);
    while (stack.length > 0) {
      const s = stack.pop() as number;
      if (seen.has(s)) continue;
      seen.add(s);
      const st = this.nfa.states[s] as NfaState;
      for (const t of st.eps) if (this.dist[t] !== Infinity) stack.push(t);
      for (const c of st.cond) {
        if (this.dist[c.to] !== Infinity && conditionHolds(c.when, prev, next)) stack.push(c.to);
      }
    }
    return [...seen];
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
