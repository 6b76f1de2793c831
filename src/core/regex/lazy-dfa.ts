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
 *
 * Storage is flat typed arrays (one transition table, one column per state
 * property), so every DFA of a pack has the same hidden classes and element
 * kinds: with 240 rules, per-state `number[]` columns that were SMI in some
 * DFAs and double in others (Infinity distances) made the scanner's hot reads
 * polymorphic. The per-rule tables (local classes) are built on first use:
 * most rules of a big pack never start on a given page, and building them for
 * all was a third of loading a pack.
 */
import type { Alphabet } from './alphabet.ts';
import { classList, classMask } from './alphabet.ts';
import { type Nfa, UnitKind, conditionCodeHolds } from './nfa.ts';

/** Packed transition: `(next << 1) | acceptedBefore`. */
export const DEAD = 0;

/** Beyond this many states one rule's cache is considered runaway (fail closed). */
const MAX_DFA_STATES = 200_000;

/** Rows allocated at first (grown by doubling). */
const INITIAL_STATES = 8;

export class DfaLimitError extends Error {
  override name = 'DfaLimitError';
}

export class LazyDfa {
  /** Global class → local class of this rule (all 0 until the first `start`). */
  private localOf: Uint16Array;
  private localCount = 1;
  private localKind: Uint8Array = new Uint8Array(1);
  /** Per local class, per NFA set id: 1 when the set contains the class. */
  private setHas: Uint8Array = new Uint8Array(0);
  private prepared = false;
  private readonly cores: Int32Array[] = [];
  private prevs = new Uint8Array(INITIAL_STATES);
  /** `trans[state * localCount + local]`: packed transition, or -1 when not computed yet. */
  private trans: Int32Array;
  private eof = new Int8Array(INITIAL_STATES);
  private terminal = new Int8Array(INITIAL_STATES);
  private settled = new Int8Array(INITIAL_STATES);
  /** Fewest code units still needed before each state can accept (Infinity: never). */
  private dists = new Float64Array(INITIAL_STATES);
  private count = 0;
  private readonly index = new Map<string, number>();
  private readonly starts = new Int32Array(4).fill(-1);
  private readonly setCount: number;
  /**
   * Closure scratch, allocated on first use (many rules of a pack never run):
   * a stamp per NFA state (seen when equal to `stamp`) and a stack.
   */
  private seenStamp: Uint32Array | null = null;
  private stamp = 0;
  private stack: Int32Array | null = null;
  /** The closures of state `lastState`, by kind of next unit. */
  private readonly lastClosures: (Int32Array | null)[] = [null, null, null, null];
  private lastState = -1;

  constructor(
    private readonly nfa: Nfa,
    private readonly dist: Float64Array,
    private readonly alphabet: Alphabet,
  ) {
    this.setCount = nfa.sets.length;
    this.localOf = new Uint16Array(alphabet.classCount);
    // State 0 is the dead state: empty set, every transition back to itself (0 = DEAD).
    this.trans = new Int32Array(INITIAL_STATES);
    this.intern([], 0);
    this.trans.fill(DEAD, 0, this.localCount);
    this.eof[0] = 0;
    this.terminal[0] = 1;
  }

  get stateCount(): number {
    return this.count;
  }

  /** Local classes of this rule (computed on first use). */
  get localClassCount(): number {
    this.prepare();
    return this.localCount;
  }

  /** The state for a match starting after a unit of kind `prev` (Edge at stream start). */
  start(prev: UnitKind): number {
    const cached = this.starts[prev] as number;
    if (cached >= 0) return cached;
    this.prepare();
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
    const t = this.trans[state * this.localCount + l] as number;
    return t >= 0 ? t : this.compute(state, l);
  }

  /** Fewest code units still needed before `state` can accept (Infinity: never). */
  minDist(state: number): number {
    return this.dists[state] as number;
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
      const row = state * this.localCount;
      for (let l = 0; l < this.localCount && v === 1; l++) {
        const known = this.trans[row + l] as number;
        const t = known >= 0 ? known : this.compute(state, l);
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

  /**
   * Local classes: global classes that no set of this rule (nor, with
   * assertions, the unit kind) tells apart. Partition refinement over integer
   * block ids: each set moves its classes out of their blocks into fresh ones,
   * so a set costs only the classes it holds (most sets are a literal's one or
   * two classes).
   */
  private prepare(): void {
    if (this.prepared) return;
    this.prepared = true;
    const { nfa, alphabet } = this;
    const sets = nfa.sets;
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
    const localRep: number[] = [];
    for (let g = 0; g < classCount; g++) {
      const id = ids[g] as number;
      if (first[id] === -1) {
        first[id] = localRep.length;
        localRep.push(g);
      }
      this.localOf[g] = first[id] as number;
    }
    const localCount = localRep.length;
    this.localKind = Uint8Array.from(localRep, (g) => alphabet.kind[g] as number);
    this.setHas = new Uint8Array(localCount * this.setCount);
    sets.forEach((set, k) => {
      const mask = classMask(alphabet, set);
      localRep.forEach((g, l) => {
        this.setHas[l * this.setCount + k] = mask[g] as number;
      });
    });
    // Only the dead state exists so far: its row is all DEAD at the real width.
    this.localCount = localCount;
    this.trans = new Int32Array(Math.max(INITIAL_STATES, this.prevs.length) * localCount).fill(-1);
    this.trans.fill(DEAD, 0, localCount);
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
    this.trans[state * this.localCount + l] = packed;
    return packed;
  }

  /**
   * The epsilon closure of a state's core before a unit of kind `next` (Edge:
   * end of stream). Those of the last state are kept: its transitions are mostly
   * computed one after another (start classes, `cannotExtend`), and on rules
   * with big repetitions one closure visits thousands of NFA states.
   */
  private closure(state: number, next: UnitKind): Int32Array {
    if (this.lastState !== state) {
      this.lastState = state;
      this.lastClosures.fill(null);
    }
    let closure = this.lastClosures[next];
    if (closure === null || closure === undefined) {
      closure = this.computeClosure(state, next);
      this.lastClosures[next] = closure;
    }
    return closure;
  }

  private computeClosure(state: number, next: UnitKind): Int32Array {
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
    const id = this.count;
    if (id >= MAX_DFA_STATES) {
      throw new DfaLimitError(`automaton cache exceeded ${MAX_DFA_STATES} states`);
    }
    if (id === this.prevs.length) this.grow();
    this.count = id + 1;
    this.index.set(key, id);
    this.cores.push(Int32Array.from(core));
    this.prevs[id] = prev;
    this.eof[id] = -1;
    this.terminal[id] = -1;
    this.settled[id] = -2;
    let min = Infinity;
    for (const s of core) min = Math.min(min, this.dist[s] as number);
    this.dists[id] = min;
    return id;
  }

  /** Doubles every per-state column; new transitions start as "not computed". */
  private grow(): void {
    const capacity = this.prevs.length * 2;
    const widen = <T extends Int8Array | Uint8Array | Float64Array>(
      old: T,
      make: (n: number) => T,
    ): T => {
      const next = make(capacity);
      next.set(old);
      return next;
    };
    this.prevs = widen(this.prevs, (n) => new Uint8Array(n));
    this.eof = widen(this.eof, (n) => new Int8Array(n));
    this.terminal = widen(this.terminal, (n) => new Int8Array(n));
    this.settled = widen(this.settled, (n) => new Int8Array(n));
    this.dists = widen(this.dists, (n) => new Float64Array(n));
    const trans = new Int32Array(capacity * this.localCount).fill(-1);
    trans.set(this.trans.subarray(0, this.count * this.localCount));
    this.trans = trans;
  }
}
