/**
 * The minimal-hold oracle (issue 2): brute force, straight on each rule's NFA,
 * sharing nothing with the engine's lazy DFA, threads or keyword automaton.
 * For a text seen so far it returns the length of the longest suffix that is
 * still a live prefix of some text-changing rule's match: a suffix the rule
 * could still extend to a match within its maximum length, given the unit
 * before it (for `\b`, `^`).
 */
import type { CompiledPack, CompiledRule } from '../../src/core/rules/compile-pack.ts';
import { unitKind } from '../../src/core/regex/alphabet.ts';
import { has } from '../../src/core/regex/char-set.ts';
import { type Nfa, type NfaState, UnitKind, conditionHolds } from '../../src/core/regex/nfa.ts';
import { distancesToFinal } from '../../src/core/regex/nfa-analysis.ts';

function closure(nfa: Nfa, dist: Float64Array, seeds: number[], prev: UnitKind, next: UnitKind | null): Set<number> {
  const seen = new Set<number>();
  const stack = [...seeds];
  while (stack.length > 0) {
    const s = stack.pop() as number;
    if (seen.has(s) || dist[s] === Infinity) continue;
    seen.add(s);
    const st = nfa.states[s] as NfaState;
    stack.push(...st.eps);
    // With the next unit unknown, any condition may still hold.
    for (const c of st.cond) if (next === null || conditionHolds(c.when, prev, next)) stack.push(c.to);
  }
  return seen;
}

function isLivePrefix(rule: CompiledRule, dist: Float64Array, text: string, start: number): boolean {
  const nfa = rule.nfa;
  const kindAt = (i: number): UnitKind => (i < 0 ? UnitKind.Edge : unitKind(text.charCodeAt(i)));
  let core = [nfa.start];
  for (let i = start; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const states = closure(nfa, dist, core, kindAt(i - 1), kindAt(i));
    const next: number[] = [];
    for (const s of states) {
      const st = nfa.states[s] as NfaState;
      if (st.set && has(st.set, unit) && dist[st.to] !== Infinity) next.push(st.to);
    }
    core = next;
    if (core.length === 0) return false;
  }
  const consumed = text.length - start;
  if (consumed === 0) return false;
  let minDist = Infinity;
  for (const s of core) minDist = Math.min(minDist, dist[s] as number);
  return consumed + minDist <= rule.maxLength;
}

export function makeHoldOracle(pack: CompiledPack, changing: (rule: CompiledRule) => boolean) {
  const rules = pack.rules.filter(changing).map((rule) => ({ rule, dist: distancesToFinal(rule.nfa) }));
  return (text: string): number => {
    const longest = Math.max(0, ...rules.map(({ rule }) => rule.maxLength));
    for (let start = Math.max(0, text.length - longest); start < text.length; start++) {
      if (rules.some(({ rule, dist }) => isLivePrefix(rule, dist, text, start))) return text.length - start;
    }
    return 0;
  };
}
