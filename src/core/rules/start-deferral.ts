/**
 * Deferred starts for rules without keywords (issue 19 §3: "a required literal
 * or character class per always-on rule, verified backwards within the rule's
 * bound"). A rule such as `email-address` can begin at almost every word start,
 * so the scanner used to run one thread per word for it (about 140 starts per
 * 1,000 units of prose). But every e-mail address contains `@`: until an `@`
 * is read, no match can have been completed, so the rule's starts can wait for
 * one and then be made backwards, within the rule's `maxLength`, each thread
 * caught up to the `@` (scanner.ts `backStart`). What a rule waits for is
 * derived here from its automaton at compile time, not annotated per rule.
 *
 * The *trigger* classes of a rule are a set of alphabet classes such that every
 * string its automaton accepts contains a unit of one of them: with every edge
 * that consumes only trigger classes removed, the final state is unreachable.
 * Conditions (`\b`, `^`) are taken as always true, which only adds paths, so the
 * proof is sound. Among the many such sets one with rare units is chosen
 * greedily: starting from every class the rule reads, the most common classes
 * on a fixed sample of ordinary text (prefilter-cost.ts) are dropped first while
 * the set stays a proof. A rule is deferred only when its triggers occur much
 * less often on that sample than its starts; otherwise nothing changes for it.
 *
 * The *breaker* classes are those the rule never reads: a thread that reads
 * one dies, so no live start lies at or before it (it bounds the backward look).
 */
import { type Alphabet, classList } from '../regex/alphabet.ts';
import type { Nfa } from '../regex/nfa.ts';
import { UnitKind } from '../regex/nfa.ts';
import { unitKind } from '../regex/alphabet.ts';
import { PREFILTER_SAMPLE } from './ordinary-text-sample.ts';

export interface StartDeferral {
  /** 1 for each alphabet class of the trigger set: every match contains a unit of one. */
  readonly trigger: Uint8Array;
  /** 1 for each class no match contains (a thread reading one dies). */
  readonly breaker: Uint8Array;
}

/**
 * Defer only when the sample has at least this many times more starts than
 * trigger units: back-starting costs a look behind each trigger, so a trigger
 * nearly as common as the starts would save nothing.
 */
const MIN_START_TO_TRIGGER_RATIO = 4;

/**
 * Dropping classes from a trigger set one by one costs a pass over the
 * automaton per class: done when classes × states stays below this.
 */
const MINIMISE_BUDGET = 2_000_000;

/** Whether the final state is reachable through edges that consume a class outside `trigger`. */
function reachesFinalAvoiding(nfa: Nfa, passable: Uint8Array, seen: Uint8Array): boolean {
  seen.fill(0);
  const stack = [nfa.start];
  seen[nfa.start] = 1;
  const visit = (s: number): void => {
    if (seen[s] === 0) {
      seen[s] = 1;
      stack.push(s);
    }
  };
  while (stack.length > 0) {
    const s = stack.pop() as number;
    if (s === nfa.final) return true;
    const set = nfa.setOf[s] as number;
    if (set >= 0 && passable[set] === 1) visit(nfa.to[s] as number);
    for (let e = nfa.epsStart[s] as number; e < (nfa.epsStart[s + 1] as number); e++) {
      visit(nfa.epsTo[e] as number);
    }
    for (let e = nfa.condStart[s] as number; e < (nfa.condStart[s + 1] as number); e++) {
      visit(nfa.condTo[e] as number);
    }
  }
  return false;
}

/** Whether every accepted string contains a unit of a class in `trigger`. */
function isRequired(
  nfa: Nfa,
  classesOfSet: readonly Int32Array[],
  trigger: Uint8Array,
  seen: Uint8Array,
): boolean {
  const passable = new Uint8Array(classesOfSet.length);
  classesOfSet.forEach((classes, i) => {
    for (const g of classes) {
      if (trigger[g] === 0) {
        passable[i] = 1;
        return;
      }
    }
  });
  return !reachesFinalAvoiding(nfa, passable, seen);
}

/** Units of each class on the sample, and the classes' sizes (ties: a wider class is commoner). */
function classWeights(alphabet: Alphabet): { count: Uint32Array; size: Uint32Array } {
  const count = new Uint32Array(alphabet.classCount);
  for (let i = 0; i < PREFILTER_SAMPLE.length; i++) {
    const g = alphabet.classOf[PREFILTER_SAMPLE.charCodeAt(i)] as number;
    count[g] = (count[g] as number) + 1;
  }
  const size = new Uint32Array(alphabet.classCount);
  const starts = alphabet.intervalStart;
  for (let i = 0; i < starts.length; i++) {
    const lo = starts[i] as number;
    const hi = (starts[i + 1] as number | undefined) ?? 0x10000;
    const g = alphabet.classOf[lo] as number;
    size[g] = (size[g] as number) + (hi - lo);
  }
  return { count, size };
}

const weightsCache = new WeakMap<Alphabet, { count: Uint32Array; size: Uint32Array }>();

function cachedWeights(alphabet: Alphabet): { count: Uint32Array; size: Uint32Array } {
  let weights = weightsCache.get(alphabet);
  if (weights === undefined) {
    weights = classWeights(alphabet);
    weightsCache.set(alphabet, weights);
  }
  return weights;
}

/** Sample positions where the rule can start (`startClasses` as in ScanRule). */
function sampleStarts(alphabet: Alphabet, startClasses: Uint8Array): number {
  let starts = 0;
  for (let i = 0; i < PREFILTER_SAMPLE.length; i++) {
    const prev = i === 0 ? UnitKind.Edge : unitKind(PREFILTER_SAMPLE.charCodeAt(i - 1));
    const g = alphabet.classOf[PREFILTER_SAMPLE.charCodeAt(i)] as number;
    if (((startClasses[g] as number) & (1 << prev)) !== 0) starts++;
  }
  return starts;
}

/**
 * The rule's start deferral, or null when it would not pay (or no set of
 * classes is provably required, which for a rule that never matches empty text
 * cannot happen: every class it reads is such a set).
 */
export function startDeferral(
  nfa: Nfa,
  alphabet: Alphabet,
  startClasses: Uint8Array,
): StartDeferral | null {
  const starts = sampleStarts(alphabet, startClasses);
  if (starts === 0) return null;
  const classesOfSet = nfa.sets.map((set) => classList(alphabet, set));
  const read = new Uint8Array(alphabet.classCount);
  for (const classes of classesOfSet) for (const g of classes) read[g] = 1;
  const seen = new Uint8Array(nfa.stateCount);
  const trigger =
    singleLiteral(nfa, classesOfSet, alphabet, starts, seen) ??
    rareClasses(nfa, classesOfSet, read, starts, seen, alphabet);
  if (trigger === null) return null;
  const breaker = new Uint8Array(alphabet.classCount);
  for (let g = 0; g < alphabet.classCount; g++) breaker[g] = read[g] === 1 ? 0 : 1;
  return { trigger, breaker };
}

/** The rarest literal unit (a set of one class: `@`, `]`) that every match contains, if one pays. */
function singleLiteral(
  nfa: Nfa,
  classesOfSet: readonly Int32Array[],
  alphabet: Alphabet,
  starts: number,
  seen: Uint8Array,
): Uint8Array | null {
  const { count, size } = cachedWeights(alphabet);
  const literals = [
    ...new Set(classesOfSet.filter((c) => c.length === 1).map((c) => c[0] as number)),
  ]
    .filter((g) => (count[g] as number) * MIN_START_TO_TRIGGER_RATIO <= starts)
    .sort(
      (a, b) =>
        (count[a] as number) - (count[b] as number) || (size[a] as number) - (size[b] as number),
    );
  const alone = new Uint8Array(alphabet.classCount);
  for (const g of literals) {
    alone[g] = 1;
    if (isRequired(nfa, classesOfSet, alone, seen)) return alone;
    alone[g] = 0;
  }
  return null;
}

/**
 * Otherwise the classes at most k times on the sample, for the least k that
 * makes a proof and still pays; then as few of them as the proof needs (the
 * commonest and widest dropped first), when the automaton is small enough to
 * try them one by one.
 */
function rareClasses(
  nfa: Nfa,
  classesOfSet: readonly Int32Array[],
  read: Uint8Array,
  starts: number,
  seen: Uint8Array,
  alphabet: Alphabet,
): Uint8Array | null {
  const { count, size } = cachedWeights(alphabet);
  for (let k = 0; k * MIN_START_TO_TRIGGER_RATIO <= starts; k = k === 0 ? 1 : k * 2) {
    const trigger = new Uint8Array(alphabet.classCount);
    const members: number[] = [];
    let total = 0;
    for (let g = 0; g < alphabet.classCount; g++) {
      if (read[g] === 1 && (count[g] as number) <= k) {
        trigger[g] = 1;
        members.push(g);
        total += count[g] as number;
      }
    }
    if (total * MIN_START_TO_TRIGGER_RATIO > starts) return null;
    if (!isRequired(nfa, classesOfSet, trigger, seen)) continue;
    if (members.length * nfa.stateCount <= MINIMISE_BUDGET) {
      members.sort(
        (a, b) =>
          (count[b] as number) - (count[a] as number) || (size[b] as number) - (size[a] as number),
      );
      for (const g of members) {
        trigger[g] = 0;
        if (!isRequired(nfa, classesOfSet, trigger, seen)) trigger[g] = 1;
      }
    }
    return trigger;
  }
  return null;
}
