/**
 * What happens to a match in text the person sends (issue 5 §1). Mirrors
 * `OutgoingAction` of src/protocol/settings-schema.ts, which core may not
 * import (core purity): the two stay structurally identical.
 *
 * - `redact`: the match is replaced in the request copy; the page keeps what the person typed.
 * - `warn`: nothing changes yet; the caller holds the send and asks the person.
 * - `block`: the request must not leave.
 * - `off`: the kind is not checked on send.
 */
import type { RuleAction, RuleKind } from '../rules/rule.ts';

export type OutgoingPolicyAction = 'redact' | 'warn' | 'block' | 'off';

export type OutgoingPolicy = Record<RuleKind, OutgoingPolicyAction>;

/**
 * Defaults from issue 5 §1: secrets are redacted, personal data asks first.
 * Invisible characters are stripped from the copy (smuggled text never helps
 * the person); injection phrases in the person's own message are theirs to
 * send, and links they write are not exfiltration, so both are off.
 */
export const DEFAULT_OUTGOING_POLICY: Readonly<OutgoingPolicy> = {
  secret: 'redact',
  pii: 'warn',
  exfil: 'off',
  invisible: 'redact',
  injection: 'off',
  custom: 'redact',
};

/** The engine's per-kind action for a send: a warning is a flag the caller turns into a question. */
export function guardActionFor(action: OutgoingPolicyAction): RuleAction {
  return action === 'warn' ? 'flag' : action;
}

export function resolvePolicy(policy: Partial<OutgoingPolicy> = {}): OutgoingPolicy {
  return { ...DEFAULT_OUTGOING_POLICY, ...policy };
}
