/**
 * Proves that declared keywords are literal prefixes of every match, which is
 * what makes the keyword prefilter sound: a keyword rule is started only where
 * a keyword ends, so a match that could begin any other way would be missed.
 * The proof walks the NFA from its start, one case-folded unit at a time, until
 * each path has spelled a whole keyword.
 */
import { foldText, foldUnit } from '../guard/keyword-automaton.ts';
import { forEachRange, size } from '../regex/char-set.ts';
import type { Nfa } from '../regex/nfa.ts';

const WIDE_SET = 64;
const EXPLORATION_BUDGET = 20_000;

function closure(nfa: Nfa, dist: Float64Array, seeds: Iterable<number>): number[] {
  const seen = new Set<number>();
  const stack = [...seeds];
  const { epsStart, epsTo, condStart, condTo } = nfa;
  while (stack.length > 0) {
    const s = stack.pop() as number;
    if (seen.has(s) || dist[s] === Infinity) continue;
    seen.add(s);
    for (let e = epsStart[s] as number; e < (epsStart[s + 1] as number); e++) {
      stack.push(epsTo[e] as number);
    }
    for (let e = condStart[s] as number; e < (condStart[s + 1] as number); e++) {
      stack.push(condTo[e] as number);
    }
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
  // A set and a sorted list, not scans of the list: a rule may declare hundreds of keywords.
  const whole = new Set(folded);
  const sorted = [...whole].sort();
  const isPrefix = (text: string): boolean => {
    // The least keyword not below `text` starts with it, if any keyword does.
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((sorted[mid] as string) < text) lo = mid + 1;
      else hi = mid;
    }
    return lo < sorted.length && (sorted[lo] as string).startsWith(text);
  };
  const stack: { states: number[]; text: string }[] = [
    { states: closure(nfa, dist, [nfa.start]), text: '' },
  ];
  let budget = EXPLORATION_BUDGET;
  // Each text is pushed once (by its one parent, which groups targets by next unit), so the
  // exploration is a trie of distinct prefixes and needs no "seen" set.
  while (stack.length > 0) {
    const { states, text } = stack.pop() as { states: number[]; text: string };
    if (--budget < 0) return 'too many distinct prefixes to prove the keywords; shorten them';
    if (whole.has(text)) continue;
    if (states.includes(nfa.final)) {
      return `a match can be ${show(text)}, which starts with no keyword`;
    }
    const next = new Map<number, number[]>();
    for (const s of states) {
      const set = nfa.setAt(s);
      if (set === null || set.length === 0) continue;
      if (size(set) > WIDE_SET) {
        return `after ${show(text)} a match continues with any of ${size(set)} characters, so keywords cannot cover it`;
      }
      const to = nfa.to[s] as number;
      forEachRange(set, (lo, hi) => {
        for (let u = lo; u <= hi; u++) {
          const f = foldUnit(u);
          const list = next.get(f) ?? [];
          list.push(to);
          next.set(f, list);
        }
      });
    }
    for (const [unit, targets] of next) {
      const longer = text + String.fromCharCode(unit);
      if (!isPrefix(longer)) {
        return `a match can start with ${show(longer)}, which no keyword covers`;
      }
      stack.push({ states: closure(nfa, dist, targets), text: longer });
    }
  }
  return null;
}
