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

/**
 * The options object a pack's plan was last asked for, and what the plan was made
 * of then. A history load asks once per message with one options object (1,241
 * guards for the conversation of bench/history-load.ts, channel-ledger.ts), and
 * spelling `optionsKey` for each (entries, sort, JSON) was 6–22 ms of a load in
 * Chromium profiles (docs/page-setup.md "History load, 3 December 2026"). The
 * options are compared field by field, not trusted by identity alone: a caller may
 * change them in place, and a stale plan would run the wrong rules.
 */
interface LastAsked {
  readonly options: GuardOptions;
  readonly alwaysOnOnly: boolean;
  readonly policyMode: GuardOptions['policyMode'];
  readonly policy: GuardOptions['policy'];
  /** The policy's own defined entries then, in enumeration order: kind, action, kind, … */
  readonly entries: readonly string[];
  readonly plan: GuardPlan;
}

const lastAsked = new WeakMap<CompiledPack, LastAsked>();

/** The policy's own defined entries, kind then action, in enumeration order. */
function policyEntries(policy: GuardOptions['policy']): string[] {
  const entries: string[] = [];
  for (const [kind, action] of Object.entries(policy ?? {})) {
    if (action !== undefined) entries.push(kind, action);
  }
  return entries;
}

/**
 * True when `options` is the object last asked for and holds what it held then.
 * Never with a session: its active flags change from turn to turn.
 */
function unchangedSince(last: LastAsked, options: GuardOptions): boolean {
  if (last.options !== options || options.session !== undefined) return false;
  if ((options.alwaysOnOnly === true) !== last.alwaysOnOnly) return false;
  if (options.policyMode !== last.policyMode || options.policy !== last.policy) return false;
  const policy = options.policy;
  if (policy === undefined) return last.entries.length === 0;
  const entries = last.entries;
  let i = 0;
  for (const kind in policy) {
    if (!Object.prototype.hasOwnProperty.call(policy, kind)) continue;
    const action = policy[kind as keyof typeof policy];
    if (action === undefined) continue;
    if (entries[i] !== kind || entries[i + 1] !== action) return false;
    i += 2;
  }
  return i === entries.length;
}

/** The shared plan of a guard on `pack` with `options` (built on first use). */
export function guardPlan(pack: CompiledPack, options: GuardOptions): GuardPlan {
  const last = lastAsked.get(pack);
  if (last !== undefined && unchangedSince(last, options)) return last.plan;
  const plan = keyedPlan(pack, options);
  if (options.session !== undefined) {
    // Not remembered: the flags may change before the next guard, and a remembered
    // object that later drops its session must not find this plan (the test's first catch).
    lastAsked.delete(pack);
    return plan;
  }
  lastAsked.set(pack, {
    options,
    alwaysOnOnly: options.alwaysOnOnly === true,
    policyMode: options.policyMode,
    policy: options.policy,
    entries: policyEntries(options.policy),
    plan,
  });
  return plan;
}

/** The plan by `optionsKey`, made on first use. */
function keyedPlan(pack: CompiledPack, options: GuardOptions): GuardPlan {
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
