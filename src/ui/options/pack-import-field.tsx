import { useState } from 'preact/hooks';
import type { RulePack } from '../../core/rules/rule.ts';
import { t } from '../i18n.ts';
import { Notice } from '../notice.tsx';
import { importPack } from './pack-import.ts';

export interface PackImportFieldProps {
  builtinNames: readonly string[];
  disabled: boolean;
  onImport: (pack: RulePack) => void;
}

type ImportOutcome =
  | { kind: 'none' }
  | { kind: 'ok'; name: string; rules: number }
  | { kind: 'invalid'; file: string; problems: string[] };

/**
 * Imports a custom pack from a JSON file, checked like `csg rules check`; every
 * problem is listed with the CLI's one-line message.
 */
export function PackImportField({ builtinNames, disabled, onImport }: PackImportFieldProps) {
  const [outcome, setOutcome] = useState<ImportOutcome>({ kind: 'none' });
  return (
    <div class="csg-import">
      <label for="csg-pack-file">{t('options_pack_import_label')}</label>
      <input
        id="csg-pack-file"
        type="file"
        accept="application/json,.json"
        disabled={disabled}
        data-testid="pack-import"
        onChange={(event) => {
          const input = event.currentTarget;
          const file = input.files?.[0];
          if (!file) return;
          void file.text().then((text) => {
            const result = importPack(text, builtinNames);
            input.value = '';
            if (!result.ok) {
              setOutcome({ kind: 'invalid', file: file.name, problems: result.problems });
              return;
            }
            setOutcome({ kind: 'ok', name: result.pack.name, rules: result.ruleCount });
            onImport(result.pack);
          });
        }}
      />
      {outcome.kind === 'ok' ? (
        <Notice tone="info" testId="pack-import-ok">
          {t('options_pack_imported', [outcome.name, String(outcome.rules)])}
        </Notice>
      ) : null}
      {outcome.kind === 'invalid' ? (
        <div role="alert" data-testid="pack-import-errors">
          <p class="csg-field-error">{t('options_pack_invalid', outcome.file)}</p>
          <ul class="csg-problems">
            {outcome.problems.map((problem, index) => (
              <li key={index} class="csg-mono">
                {problem}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
