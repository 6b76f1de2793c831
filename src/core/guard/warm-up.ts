/**
 * Builds, in steps, what the first StreamGuard of a pack would build in one go:
 * each rule's start classes, the keyword automata of the rule sets a guard with
 * these options runs, and the rest of a guard. All of it is cached on the pack,
 * so later guards start in about a millisecond.
 *
 * Why in steps: in the extension the guard runs on the page's main thread, and
 * the first guard of the built-in packs took one task of about 100 ms (issue
 * 4: no long tasks caused by the guard). The caller resumes the generator from
 * a new task after each yield (a timer, `scheduler.yield()`); nothing about
 * the guard's behaviour depends on whether, or how, it was warmed.
 */
import type { CompiledPack } from '../rules/compile-pack.ts';
import { type GuardOptions, StreamGuard, activeRules } from './stream-guard.ts';

/** Rules whose start classes are computed between two yields (a few ms of work). */
const RULES_PER_STEP = 24;

export function* warmUpSteps(
  pack: CompiledPack,
  options: GuardOptions,
): Generator<void, void, void> {
  const active = activeRules(pack, options);
  for (const [i, [rule]] of active.entries()) {
    void rule.startClasses;
    if (i % RULES_PER_STEP === RULES_PER_STEP - 1) yield;
  }
  yield;
  const changing = active.filter(([, action]) => action !== 'flag').map(([rule]) => rule);
  const flagging = active.filter(([, action]) => action === 'flag').map(([rule]) => rule);
  if (changing.length > 0) pack.keywordAutomaton(changing);
  yield;
  if (flagging.length > 0) pack.keywordAutomaton(flagging);
  yield;
  new StreamGuard(pack, options).push('');
}
