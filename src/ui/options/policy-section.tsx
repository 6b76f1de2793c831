import { RULE_KINDS, type RuleKind } from '../../core/rules/rule.ts';
import type { IncomingAction, OutgoingAction, Settings } from '../../protocol/settings-schema.ts';
import { t } from '../i18n.ts';
import { LockedBadge } from '../locked-badge.tsx';
import type { ManagedLocks } from '../managed-locks.ts';
import { kindName } from '../rule-names.ts';

const INCOMING: readonly IncomingAction[] = ['redact', 'block', 'flag', 'off'];
const OUTGOING: readonly OutgoingAction[] = ['redact', 'warn', 'block', 'off'];

export interface PolicySectionProps {
  policy: Settings['policy'];
  disabled: boolean;
  /** Issue 21 §1: kinds whose policy the organisation sets. */
  locks: Pick<ManagedLocks, 'incoming' | 'incomingOff' | 'outgoing'>;
  onIncoming: (kind: RuleKind, action: IncomingAction) => void;
  onOutgoing: (kind: RuleKind, action: OutgoingAction) => void;
}

function policyLabel(action: string): string {
  return t(`policy_${action}`);
}

/** What happens to matches of each kind, in answers (incoming) and in what is sent (outgoing). */
export function PolicySection(props: PolicySectionProps) {
  const { policy, disabled, locks, onIncoming, onOutgoing } = props;
  return (
    <section aria-labelledby="csg-policy-title">
      <h2 id="csg-policy-title">{t('options_policy_title')}</h2>
      <table class="csg-table" data-testid="policy">
        <thead>
          <tr>
            <th scope="col">{t('options_policy_kind')}</th>
            <th scope="col">{t('options_policy_incoming')}</th>
            <th scope="col">{t('options_policy_outgoing')}</th>
          </tr>
        </thead>
        <tbody>
          {RULE_KINDS.map((kind) => (
            <tr key={kind}>
              <th scope="row">{kindName(kind, t)}</th>
              <td>
                <select
                  aria-label={t('options_policy_incoming_for', kindName(kind, t))}
                  value={policy.incoming[kind]}
                  disabled={disabled || locks.incoming(kind)}
                  data-testid={`policy-in-${kind}`}
                  onChange={(event) => {
                    const value = event.currentTarget.value;
                    const action = INCOMING.find((choice) => choice === value);
                    if (action) onIncoming(kind, action);
                  }}
                >
                  {INCOMING.map((action) => (
                    <option
                      key={action}
                      value={action}
                      disabled={action === 'off' && locks.incomingOff(kind)}
                    >
                      {policyLabel(action)}
                    </option>
                  ))}
                </select>
                {locks.incoming(kind) ? <LockedBadge /> : null}
              </td>
              <td>
                <select
                  aria-label={t('options_policy_outgoing_for', kindName(kind, t))}
                  value={policy.outgoing[kind]}
                  disabled={disabled || locks.outgoing(kind)}
                  data-testid={`policy-out-${kind}`}
                  onChange={(event) => {
                    const value = event.currentTarget.value;
                    const action = OUTGOING.find((choice) => choice === value);
                    if (action) onOutgoing(kind, action);
                  }}
                >
                  {OUTGOING.map((action) => (
                    <option key={action} value={action}>
                      {policyLabel(action)}
                    </option>
                  ))}
                </select>
                {locks.outgoing(kind) ? <LockedBadge /> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
