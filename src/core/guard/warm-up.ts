/**
 * Builds, in steps, what the first StreamGuard of a pack would build in one go:
 * each rule's start classes, the keyword automata of the rule sets a guard with
 * these options runs, and the rest of a guard. All of it is cached on the pack,
 * so later guards start in about a millisecond.
 *
 * Why in steps: in the extension the guard runs on the page's main thread, and
 * the first guard of the built-in packs took one task of about 100 ms (issue
 * 4: no long tasks caused by the guard). After each yield the caller either goes
 * on or resumes the generator from a new task, by a time budget per task
 * (src/content/task-pacer.ts); nothing about the guard's behaviour depends on
 * whether, or how, it was warmed.
 */
import type { CompiledPack } from '../rules/compile-pack.ts';
import { foldedUnitsSteps } from './keyword-automaton.ts';
import { warmBigramSteps } from './scanner.ts';
import { type GuardOptions, StreamGuard, activeRules, scannerRuleSets } from './stream-guard.ts';

/**
 * Rules whose start classes are computed between two yields. Each yield is a
 * point where the caller may pause; the caller decides whether to (a time
 * budget per task: src/content/task-pacer.ts), so steps are kept small.
 */
const RULES_PER_STEP = 4;

/** The two rule sets a guard with these options scans with (stream-guard.ts), either may be empty. */
function ruleSetsOf(pack: CompiledPack, options: GuardOptions) {
  const active = activeRules(pack, options);
  const { flagging, seen, written } = scannerRuleSets(pack, options);
  return { active, scanned: [seen, written, flagging] };
}

/**
 * Builds the keyword automata of every rule set guards with any of these
 * options scan with, the largest set first: a smaller set whose keyword rules
 * a larger one holds then gets a view of its automaton instead of one of its
 * own (keyword-automata.ts). Call before `warmUpSteps` for each options.
 */
export function* warmKeywordAutomataSteps(
  pack: CompiledPack,
  optionsList: readonly GuardOptions[],
): Generator<void, void, void> {
  yield* foldedUnitsSteps();
  const sets = optionsList
    .flatMap((options) => {
      return ruleSetsOf(pack, options).scanned;
    })
    .filter((rules) => rules.length > 0)
    .sort((a, b) => b.length - a.length);
  for (const rules of sets) {
    yield* pack.keywordAutomatonSteps(rules);
    yield;
  }
}

export function* warmUpSteps(
  pack: CompiledPack,
  options: GuardOptions,
): Generator<void, void, void> {
  // The process-wide case-fold table every keyword automaton reads.
  yield* foldedUnitsSteps();
  const { active, scanned } = ruleSetsOf(pack, options);
  for (const [i, [rule]] of active.entries()) {
    void rule.startClasses;
    // What an always-on rule's starts wait for (start-deferral.ts): derived from its automaton.
    void rule.deferral;
    if (i % RULES_PER_STEP === RULES_PER_STEP - 1) yield;
  }
  yield;
  // The rule sets a guard scans with (stream-guard.ts): their keyword automata,
  // then the bigram tables their scanners build from them.
  for (const rules of scanned) {
    if (rules.length === 0) continue;
    const keywords = yield* pack.keywordAutomatonSteps(rules);
    yield;
    yield* warmBigramSteps(rules, keywords, pack.alphabet);
    yield;
  }
  new StreamGuard(pack, options).push('');
}
