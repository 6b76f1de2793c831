/**
 * Which rules a guard with given options runs, with what action, and in which of
 * its scanners (stream-guard.ts): what the person's settings (kind-policy.ts)
 * and the conversation's raised flags (seed 002 §9) make of the pack's rules.
 */
import { combineKindPolicy, type PolicyMode } from './kind-policy.ts';
import type { CompiledPack, CompiledRule } from '../rules/compile-pack.ts';
import type { RuleAction, RuleKind } from '../rules/rule.ts';
import type { GuardOptions } from './stream-guard.ts';

/**
 * Kinds whose rules read the text as a person sees it, hidden units left out
 * (rendered-view.ts): a key with a zero-width space or `**` inside is still the
 * key. Invisible-character and exfil rules read every unit: the hidden units
 * are what some of them look for, and a URL is read by a browser, not a person.
 */
export const SEEN_KINDS: ReadonlySet<RuleKind> = new Set<RuleKind>(['secret', 'pii', 'custom']);

/** The rule sets a guard scans with: flag rules, and text-changing ones read as seen or as written. */
export interface ScannerRuleSets {
  flagging: CompiledRule[];
  seen: CompiledRule[];
  written: CompiledRule[];
}

export function scannerRuleSets(pack: CompiledPack, options: GuardOptions): ScannerRuleSets {
  const sets: ScannerRuleSets = { flagging: [], seen: [], written: [] };
  for (const [rule, action] of activeRules(pack, options)) {
    if (action === 'flag') sets.flagging.push(rule);
    else (SEEN_KINDS.has(rule.kind) ? sets.seen : sets.written).push(rule);
  }
  return sets;
}

/** The rules a guard with `options` runs, each with its effective action (never `off`). */
export function activeRules(
  pack: CompiledPack,
  options: GuardOptions,
): [CompiledRule, Exclude<RuleAction, 'off'>][] {
  const active = options.session?.activeFlags() ?? new Set<string>();
  const out: [CompiledRule, Exclude<RuleAction, 'off'>][] = [];
  for (const rule of pack.rules) {
    if (options.alwaysOnOnly === true && rule.keyword) continue;
    const action = effectiveAction(rule, options.policy, active, options.policyMode);
    if (action !== 'off') out.push([rule, action]);
  }
  return out;
}

function effectiveAction(
  rule: CompiledRule,
  policy: Partial<Record<RuleKind, RuleAction>> | undefined,
  activeFlags: ReadonlySet<string>,
  mode: PolicyMode | undefined,
): RuleAction {
  const escalation = rule.spec.escalation;
  if (escalation !== undefined && activeFlags.has(escalation.whenFlag)) return escalation.action;
  return combineKindPolicy(rule.action, policy?.[rule.kind], mode);
}
