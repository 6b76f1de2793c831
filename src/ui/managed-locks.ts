/**
 * Issue 21 §1: which controls the organisation's policy locks, for the popup and
 * the options page. Pure: derived from the parsed policy with the same functions
 * the background applies (apply-managed-policy.ts), so what the UI shows as
 * locked is exactly what the background keeps in force.
 */
import {
  isIncomingOffLocked,
  isPackLocked,
  isRuleLocked,
  isSiteLocked,
} from '../background/apply-managed-policy.ts';
import {
  emptyManagedPolicy,
  isEmptyManagedPolicy,
  type ManagedIssue,
  type ManagedPolicy,
} from '../background/managed-policy.ts';
import type { RuleKind } from '../core/rules/rule.ts';

export interface ManagedLocks {
  /** True when the policy sets anything (the page says so once). */
  any: boolean;
  site(site: string): boolean;
  incoming(kind: RuleKind): boolean;
  /** `off` is not offered for this kind in answers (the organisation's packs use it). */
  incomingOff(kind: RuleKind): boolean;
  outgoing(kind: RuleKind): boolean;
  imageHosts: boolean;
  pack(name: string): boolean;
  rule(id: string): boolean;
  retention(field: 'maxRecords' | 'maxAgeDays'): boolean;
  /** Values of the policy that were ignored (shown as a warning). */
  issues: readonly ManagedIssue[];
}

export function locksOf(policy: ManagedPolicy, issues: readonly ManagedIssue[] = []): ManagedLocks {
  return {
    any: !isEmptyManagedPolicy(policy),
    site: (site) => isSiteLocked(policy, site),
    incoming: (kind) => Object.hasOwn(policy.incoming, kind),
    incomingOff: (kind) => isIncomingOffLocked(policy, kind),
    outgoing: (kind) => Object.hasOwn(policy.outgoing, kind),
    imageHosts: policy.allowedImageHosts !== undefined,
    pack: (name) => isPackLocked(policy, name),
    rule: (id) => isRuleLocked(policy, id),
    retention: (field) => policy.audit[field] !== undefined,
    issues,
  };
}

/** Nothing locked: before the policy is read, and when there is none. */
export const NO_LOCKS: ManagedLocks = locksOf(emptyManagedPolicy());
