import type { RulePack } from '../../core/rules/rule.ts';
import type { Settings } from '../../protocol/settings-schema.ts';
import { t } from '../i18n.ts';
import type { ManagedLocks } from '../managed-locks.ts';
import { PackCard } from './pack-card.tsx';
import { PackImportField } from './pack-import-field.tsx';
import { summarisePack } from './pack-summary.ts';
import { customPackName, isPackEnabled } from './settings-edits.ts';

export interface PacksSectionProps {
  settings: Settings;
  builtin: readonly RulePack[];
  disabled: boolean;
  /** Issue 21 §1: packs and rules the organisation switches (or ships). */
  locks: Pick<ManagedLocks, 'pack' | 'rule'>;
  onPackToggle: (pack: string, enabled: boolean) => void;
  onRuleToggle: (rule: string, enabled: boolean) => void;
  onImport: (pack: RulePack) => void;
  onRemoveCustom: (name: string) => void;
  onExport: (pack: unknown) => void;
}

/** Built-in and custom rule packs, import and export. */
export function PacksSection(props: PacksSectionProps) {
  const { settings, builtin, disabled } = props;
  const builtinNames = builtin.map((pack) => pack.name);
  const card = (source: unknown, isBuiltin: boolean) => {
    const pack = summarisePack(source);
    if (pack === undefined) return null;
    return (
      <PackCard
        key={`${isBuiltin ? 'builtin' : 'custom'}-${pack.name}`}
        pack={pack}
        builtin={isBuiltin}
        enabled={isPackEnabled(settings, pack.name)}
        disabledRules={settings.packs.disabledRules}
        disabled={disabled}
        packLocked={props.locks.pack(pack.name)}
        isRuleLocked={props.locks.rule}
        onPackToggle={(enabled) => props.onPackToggle(pack.name, enabled)}
        onRuleToggle={props.onRuleToggle}
        onExport={() => props.onExport(source)}
        onRemove={
          isBuiltin || props.locks.pack(pack.name)
            ? undefined
            : () => props.onRemoveCustom(pack.name)
        }
      />
    );
  };
  return (
    <section aria-labelledby="csg-packs-title">
      <h2 id="csg-packs-title">{t('options_packs_title')}</h2>
      <ul class="csg-packs" data-testid="packs">
        {builtin.map((pack) => card(pack, true))}
        {settings.packs.custom
          .filter((entry) => customPackName(entry) !== undefined)
          .map((entry) => card(entry, false))}
      </ul>
      <PackImportField builtinNames={builtinNames} disabled={disabled} onImport={props.onImport} />
    </section>
  );
}
