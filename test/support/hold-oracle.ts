/**
 * The minimal-hold oracle (issue 2): brute force, straight on each rule's NFA,
 * sharing nothing with the engine's lazy DFA, threads or keyword automaton.
 * For a text seen so far it returns the length of the longest suffix that is
 * still a live prefix of some text-changing rule's match, given the unit
 * before it (for `\b`, `^`).
 */
import type { CompiledPack, CompiledRule } from '../../src/core/rules/compile-pack.ts';
import { unitKind } from '../../src/core/regex/alphabet.ts';
import { has } from '../../src/core/regex/char-set.ts';
import { type Nfa, type NfaState, UnitKind, conditionHolds } from '../../src/core/regex/nfa.ts';
import { distancesToFinal } from '../../src/core/regex/nfa-analysis.ts';

function closure(
  nfa: Nfa,
  dist: Float64Array,
  seeds: number[],
  prev: UnitKind,
  next: UnitKind | null,
): Set<number> {
  const seen = new Set<number>();
  const stack = [...seeds];
  while (stack.length > 0) {
    const s = stack.pop() as number;
    if (seen.has(s) || dist[s] === Infinity) continue;
    seen.add(s);
    const st = nfa.states[s] as NfaState;
    stack.push(...st.eps);
    // With the next unit unknown, any condition may still hold.
    for (const c of st.cond)
      if (next === null || conditionHolds(c.when, prev, next)) stack.push(c.to);
  }
  return seen;
}

const KINDS = [UnitKind.Edge, UnitKind.Word, UnitKind.LineTerminator, UnitKind.Other];

/**
 * Live: the suffix from `start` is a prefix of a match that is not decided yet,
 * i.e. one more unit can still extend it within the rule's maximum length, or
 * whether it matches still depends on the next unit (`\b`, `$`). A complete
 * match that nothing can extend is decided, hence not live.
 */
function isLivePrefix(
  rule: CompiledRule,
  dist: Float64Array,
  units: readonly number[],
  text: string,
  start: number,
): boolean {
  const nfa = rule.nfa;
  const kindAt = (i: number): UnitKind => (i < 0 ? UnitKind.Edge : unitKind(text.charCodeAt(i)));
  const stepOver = (core: number[], prev: UnitKind, unit: number): number[] => {
    const next: number[] = [];
    for (const s of closure(nfa, dist, core, prev, unitKind(unit))) {
      const st = nfa.states[s] as NfaState;
      if (st.set && has(st.set, unit) && dist[st.to] !== Infinity) next.push(st.to);
    }
    return next;
  };
  const minDist = (core: number[]) => Math.min(...core.map((s) => dist[s] as number));
  let core = [nfa.start];
  for (let i = start; i < text.length; i++) {
    core = stepOver(core, kindAt(i - 1), text.charCodeAt(i));
    if (core.length === 0) return false;
  }
  const consumed = text.length - start;
  if (consumed === 0 || consumed + minDist(core) > rule.maxLength) return false;
  const last = kindAt(text.length - 1);
  const extendable = units.some((unit) => {
    const next = stepOver(core, last, unit);
    return next.length > 0 && consumed + 1 + minDist(next) <= rule.maxLength;
  });
  if (extendable) return true;
  const accepts = KINDS.map((k) => closure(nfa, dist, core, last, k).has(nfa.final));
  return accepts.some((a) => a !== accepts[0]);
}

export function makeHoldOracle(pack: CompiledPack, changing: (rule: CompiledRule) => boolean) {
  const rules = pack.rules
    .filter(changing)
    .map((rule) => ({ rule, dist: distancesToFinal(rule.nfa) }));
  // One unit of each alphabet class stands for every unit of that class.
  const units = Array.from(pack.alphabet.representative);
  return (text: string): number => {
    const longest = Math.max(0, ...rules.map(({ rule }) => rule.maxLength));
    for (let start = Math.max(0, text.length - longest); start < text.length; start++) {
      if (rules.some(({ rule, dist }) => isLivePrefix(rule, dist, units, text, start)))
        return text.length - start;
    }
    return 0;
  };
}
