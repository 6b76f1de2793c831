import { t } from '../i18n.ts';
import { LockedBadge } from '../locked-badge.tsx';
import { kindName, ruleName } from '../rule-names.ts';
import type { PackSummary } from './pack-summary.ts';

export interface PackCardProps {
  pack: PackSummary;
  builtin: boolean;
  enabled: boolean;
  disabledRules: readonly string[];
  disabled: boolean;
  /** Issue 21 §1: the organisation switches this pack (or it is the organisation's). */
  packLocked: boolean;
  isRuleLocked: (id: string) => boolean;
  onPackToggle: (enabled: boolean) => void;
  onRuleToggle: (rule: string, enabled: boolean) => void;
  onExport: () => void;
  /** Custom packs only. */
  onRemove?: () => void;
}

/** One rule pack: on/off, its rules each on/off, export (and remove for custom packs). */
export function PackCard(props: PackCardProps) {
  const { pack, builtin, enabled, disabledRules, disabled, packLocked } = props;
  return (
    <li class="csg-pack" data-pack={pack.name} data-testid="pack">
      <div class="csg-pack-head">
        <label class="csg-check">
          <input
            type="checkbox"
            checked={enabled}
            disabled={disabled || packLocked}
            data-testid="pack-enabled"
            onChange={() => props.onPackToggle(!enabled)}
          />
          <strong>{pack.name}</strong>
          <span class="csg-muted">
            {t('options_pack_meta', [pack.version, String(pack.rules.length)])}
            {builtin ? ` · ${t('options_pack_builtin')}` : ''}
          </span>
        </label>
        {packLocked ? <LockedBadge /> : null}
        <button
          type="button"
          aria-label={t('options_pack_export_named', pack.name)}
          data-testid="pack-export"
          onClick={props.onExport}
        >
          {t('options_export_json')}
        </button>
        {props.onRemove ? (
          <button
            type="button"
            disabled={disabled}
            aria-label={t('options_remove_named', pack.name)}
            data-testid="pack-remove"
            onClick={props.onRemove}
          >
            {t('options_remove')}
          </button>
        ) : null}
      </div>
      <details>
        <summary>{t('options_pack_rules')}</summary>
        <ul class="csg-rows">
          {pack.rules.map((rule) => {
            const ruleEnabled = !disabledRules.includes(rule.id);
            const ruleLocked = props.isRuleLocked(rule.id);
            return (
              <li key={rule.id} data-rule={rule.id}>
                <label class="csg-check" title={rule.description}>
                  <input
                    type="checkbox"
                    checked={ruleEnabled}
                    disabled={disabled || !enabled || ruleLocked}
                    data-testid="rule-enabled"
                    onChange={() => props.onRuleToggle(rule.id, !ruleEnabled)}
                  />
                  <span>{ruleName(rule.id, t)}</span>
                  <span class="csg-muted csg-mono">
                    {rule.id} · {kindName(rule.kind, t)}
                  </span>
                </label>
                {ruleLocked ? <LockedBadge /> : null}
              </li>
            );
          })}
        </ul>
      </details>
    </li>
  );
}
