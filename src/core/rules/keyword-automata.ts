/**
 * The keyword automata of a pack's rule subsets, cached per subset. A guard
 * scans with two subsets (the rules that change text and those that flag it,
 * stream-guard.ts), and the extension guards answers and requests with
 * different policies, so one page asks for several subsets, of which the
 * largest nearly contain the others (the secrets that a request's DLP redacts
 * are most of what an answer's guard changes). Building each from scratch was
 * most of the warm-up before a page's first request (issue 4). So a subset
 * whose keyword rules all lie in an automaton already built, with few others
 * besides (MAX_EXTRA_SHARE), gets a view of that one instead
 * (KeywordAutomaton.restrictedTo): the same hits, holds and results, at the
 * cost of stopping at the other rules' keywords in a scan.
 */
import { KeywordAutomaton } from '../guard/keyword-automaton.ts';
import type { CompiledRule } from './compiled-pack.ts';

/** At most this share of a reused automaton's keyword rules may lie outside the subset. */
const MAX_EXTRA_SHARE = 0.25;

interface Built {
  subset: readonly CompiledRule[];
  /** Pack indices of the subset's rules with keywords. */
  keywordRules: ReadonlySet<number>;
  automaton: KeywordAutomaton;
}

function keywordRulesOf(subset: readonly CompiledRule[]): Set<number> {
  return new Set(subset.filter((r) => r.keywords !== null).map((r) => r.index));
}

/** The smallest automaton built whose keyword rules contain all of `wanted` and few more. */
function containing(built: readonly Built[], wanted: ReadonlySet<number>): Built | undefined {
  let best: Built | undefined;
  for (const b of built) {
    const extra = b.keywordRules.size - wanted.size;
    if (extra < 0 || extra > MAX_EXTRA_SHARE * b.keywordRules.size) continue;
    if (![...wanted].every((index) => b.keywordRules.has(index))) continue;
    if (best === undefined || b.keywordRules.size < best.keywordRules.size) best = b;
  }
  return best;
}

/** For each rule of `base`, its index in `subset`, or -1. */
function localIndices(base: readonly CompiledRule[], subset: readonly CompiledRule[]): Int32Array {
  const position = new Map(subset.map((rule, i) => [rule.index, i]));
  return Int32Array.from(base, (rule) => position.get(rule.index) ?? -1);
}

export type KeywordAutomatonSteps = (
  subset: readonly CompiledRule[],
) => Generator<void, KeywordAutomaton | null, void>;

/** A pack's cache: the automaton of a subset (null when no rule of it has keywords), in steps. */
export function createKeywordAutomata(): KeywordAutomatonSteps {
  const bySubset = new Map<string, KeywordAutomaton | null>();
  const built: Built[] = [];
  return function* automatonSteps(subset) {
    const key = subset.map((r) => r.index).join(',');
    const cached = bySubset.get(key);
    if (cached !== undefined) return cached;
    const keywordLists = subset.map((r) => r.keywords ?? []);
    const keywordRules = keywordRulesOf(subset);
    let automaton: KeywordAutomaton | null = null;
    if (keywordRules.size > 0) {
      const base = containing(built, keywordRules);
      if (base !== undefined) {
        automaton = base.automaton.restrictedTo(localIndices(base.subset, subset), keywordLists);
      } else {
        automaton = yield* KeywordAutomaton.steps(keywordLists);
        built.push({ subset, keywordRules, automaton });
      }
    }
    bySubset.set(key, automaton);
    return automaton;
  };
}
