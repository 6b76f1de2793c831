/**
 * How the person's policy for a kind combines with a rule's own action
 * (docs/settings.md "How policy and rule actions combine"). One definition for
 * the engine, the extension and the CLI:
 *
 * - `off` on either side switches the rule off. A rule that is `off` in its pack
 *   only runs when a session flag raises it (seed 002 §5.2 second confirmation),
 *   so a kind's policy never switches such a rule on by itself.
 * - Otherwise the stronger of the two wins (flag < redact < block): the policy is
 *   a floor. `pii: flag` keeps the pack's redaction of card numbers, IBANs and ID
 *   numbers while e-mail addresses stay flagged (issue 6 defaults); `pii: redact`
 *   redacts them all. A policy never weakens a rule: weakening one rule is done by
 *   disabling it, so a typo in a setting can never let a secret through.
 *
 * On send (issue 5 §1) the person's policy is applied as set instead (`mode: 'set'`):
 * there the choices are about the person's own text (redact / warn / block / off per
 * kind, e.g. card numbers warned about rather than silently redacted), and the pack's
 * actions describe answers. A rule that is `off` in its pack stays off in both modes.
 */
import type { RuleAction } from '../rules/rule.ts';

const STRENGTH: Record<Exclude<RuleAction, 'off'>, number> = { flag: 0, redact: 1, block: 2 };

export type PolicyMode = 'floor' | 'set';

export function combineKindPolicy(
  ruleAction: RuleAction,
  policy: RuleAction | undefined,
  mode: PolicyMode = 'floor',
): RuleAction {
  if (policy === undefined) return ruleAction;
  if (ruleAction === 'off' || policy === 'off') return 'off';
  if (mode === 'set') return policy;
  return STRENGTH[policy] > STRENGTH[ruleAction] ? policy : ruleAction;
}
