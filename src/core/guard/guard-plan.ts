/**
 * What every guard of one pack with the same options builds alike: the active
 * rules and their actions, the three rule sets with their keyword automata, and
 * the redaction reach. Made once per (pack, options) and shared, read only.
 *
 * Why: a history load makes a guard per assistant message (1,241 for a long
 * ChatGPT-web conversation, bench/history-load.ts), and walking the pack's rules,
 * keying the automaton cache and filling an action map per guard cost about as
 * much as scanning the messages (issue 19 §5). Nothing here is per stream: the
 * guard keeps its own text, scanners and spans (stream-guard.ts).
 */
import type { CompiledPack, CompiledRule } from '../rules/compile-pack.ts';
import type { RuleAction } from '../rules/rule.ts';
import { activeRules, scannerRuleSets } from './active-rules.ts';
import type { KeywordAutomaton } from './keyword-automaton.ts';
import { HIDDEN_STRETCH } from './scanner.ts';
import type { GuardOptions } from './stream-guard.ts';

export type ActiveAction = Exclude<RuleAction, 'off'>;

/** One scanner's rules and the pack's keyword automaton for exactly them. */
export interface PlannedRules {
  readonly rules: readonly CompiledRule[];
  readonly keywords: KeywordAutomaton | null;
}

export interface GuardPlan {
  /** `name@version`, as events name the pack. */
  readonly packLabel: string;
  readonly actions: ReadonlyMap<CompiledRule, ActiveAction>;
  /** Flag rules; text-changing rules read as seen and as written (null: no such rule). */
  readonly flagging: PlannedRules | null;
  readonly seen: PlannedRules | null;
  readonly written: PlannedRules | null;
  /** How far back a redaction span may still grow (redaction-spans.ts). */
  readonly reach: number;
}

/**
 * Plans per pack, by `optionsKey`. A page has a handful of option sets (answers,
 * sends, the flags a conversation raised); past this many the map starts over
 * rather than growing with every combination of flags.
 */
const MAX_PLANS_PER_PACK = 32;
const plans = new WeakMap<CompiledPack, Map<string, GuardPlan>>();

/** The shared plan of a guard on `pack` with `options` (built on first use). */
export function guardPlan(pack: CompiledPack, options: GuardOptions): GuardPlan {
  let byOptions = plans.get(pack);
  if (byOptions === undefined) {
    byOptions = new Map();
    plans.set(pack, byOptions);
  }
  const key = optionsKey(options);
  let plan = byOptions.get(key);
  if (plan === undefined) {
    plan = planOf(pack, options);
    if (byOptions.size >= MAX_PLANS_PER_PACK) byOptions.clear();
    byOptions.set(key, plan);
  }
  return plan;
}

/**
 * Everything in the options that decides which rules run with what action
 * (active-rules.ts): `alwaysOnOnly`, the policy and its mode, and the session's
 * flags active now. The rest (`now`, `attachMatchedText`, `profile`) is per guard.
 */
export function optionsKey(options: GuardOptions): string {
  const policy = Object.entries(options.policy ?? {})
    .filter(([, action]) => action !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const flags = options.session === undefined ? [] : [...options.session.activeFlags()].sort();
  return JSON.stringify([options.alwaysOnOnly === true, options.policyMode ?? null, policy, flags]);
}

function planOf(pack: CompiledPack, options: GuardOptions): GuardPlan {
  const sets = scannerRuleSets(pack, options);
  const planned = (rules: CompiledRule[]): PlannedRules | null =>
    rules.length === 0 ? null : { rules, keywords: pack.keywordAutomaton(rules) };
  // A seen rule's match may stretch over hidden units (scanner.ts HIDDEN_STRETCH).
  let reach = 1;
  for (const rule of sets.seen) reach = Math.max(reach, rule.maxLength * HIDDEN_STRETCH);
  for (const rule of sets.written) reach = Math.max(reach, rule.maxLength);
  return {
    packLabel: `${pack.name}@${pack.version}`,
    actions: new Map(activeRules(pack, options)),
    // The same order as the guard built them in before (seen, written, flagging).
    seen: planned(sets.seen),
    written: planned(sets.written),
    flagging: planned(sets.flagging),
    reach,
  };
}
