/**
 * Proves that declared keywords are literal prefixes of every match, which is
 * what makes the keyword prefilter sound: a keyword rule is started only where
 * a keyword ends, so a match that could begin any other way would be missed.
 * The proof walks the NFA from its start, one case-folded unit at a time, until
 * each path has spelled a whole keyword.
 */
import { foldText, foldUnit } from '../guard/keyword-automaton.ts';
import { forEachRange, size } from '../regex/char-set.ts';
import type { Nfa, NfaState } from '../regex/nfa.ts';

const WIDE_SET = 64;
const EXPLORATION_BUDGET = 20_000;

function closure(nfa: Nfa, dist: Float64Array, seeds: Iterable<number>): number[] {
  const seen = new Set<number>();
  const stack = [...seeds];
  while (stack.length > 0) {
    const s = stack.pop() as number;
    if (seen.has(s) || dist[s] === Infinity) continue;
    seen.add(s);
    const st = nfa.states[s] as NfaState;
    stack.push(...st.eps, ...st.cond.map((c) => c.to));
  }
  return [...seen].sort((a, b) => a - b);
}

function show(text: string): string {
  return JSON.stringify(text);
}

/** Null when every match starts with a keyword; otherwise why not. */
export function keywordProblem(
  nfa: Nfa,
  dist: Float64Array,
  keywords: readonly string[],
): string | null {
  const folded = keywords.map(foldText);
  if (folded.some((k) => k.length === 0)) return 'keywords must not be empty';
  const stack: { states: number[]; text: string }[] = [
    { states: closure(nfa, dist, [nfa.start]), text: '' },
  ];
  let budget = EXPLORATION_BUDGET;
  const seen = new Set<string>();
  while (stack.length > 0) {
    const { states, text } = stack.pop() as { states: number[]; text: string };
    const key = `${text}|${states.join(',')}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (--budget < 0) return 'too many distinct prefixes to prove the keywords; shorten them';
    if (folded.includes(text)) continue;
    if (states.includes(nfa.final)) {
      return `a match can be ${show(text)}, which starts with no keyword`;
    }
    const next = new Map<number, number[]>();
    for (const s of states) {
      const st = nfa.states[s] as NfaState;
      if (st.set === null || st.set.length === 0) continue;
      if (size(st.set) > WIDE_SET) {
        return `after ${show(text)} a match continues with any of ${size(st.set)} characters, so keywords cannot cover it`;
      }
      forEachRange(st.set, (lo, hi) => {
        for (let u = lo; u <= hi; u++) {
          const f = foldUnit(u);
          const list = next.get(f) ?? [];
          list.push(st.to);
          next.set(f, list);
        }
      });
    }
    for (const [unit, targets] of next) {
      const longer = text + String.fromCharCode(unit);
      if (!folded.some((k) => k.startsWith(longer))) {
        return `a match can start with ${show(longer)}, which no keyword covers`;
      }
      stack.push({ states: closure(nfa, dist, targets), text: longer });
    }
  }
  return null;
}
