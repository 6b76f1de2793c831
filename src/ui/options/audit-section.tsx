import type { AuditSettings } from '../../protocol/settings-schema.ts';
import { t } from '../i18n.ts';
import type { ManagedLocks } from '../managed-locks.ts';
import { AuditExportField } from './audit-export-field.tsx';
import { ClearLogButton } from './clear-log-button.tsx';
import { RetentionField } from './retention-field.tsx';
import { RETENTION_LIMITS } from './settings-edits.ts';

export interface AuditSectionProps {
  audit: AuditSettings;
  disabled: boolean;
  /** Issue 21 §1: retention bounds the organisation sets. */
  locks: Pick<ManagedLocks, 'retention'>;
  onRetention: (field: keyof AuditSettings, typed: string) => boolean;
  onExport: (format: 'json' | 'csv') => void;
  onClear: () => void;
}

/** Audit log retention, export (JSON, CSV) and clearing. */
export function AuditSection({
  audit,
  disabled,
  locks,
  onRetention,
  onExport,
  onClear,
}: AuditSectionProps) {
  return (
    <section aria-labelledby="csg-audit-title">
      <h2 id="csg-audit-title">{t('options_audit_title')}</h2>
      <p class="csg-muted">{t('options_audit_help')}</p>
      <div class="csg-fields">
        <RetentionField
          key={`records-${audit.maxRecords}`}
          name="maxRecords"
          label={t('options_retention_records')}
          value={audit.maxRecords}
          min={RETENTION_LIMITS.maxRecords.min}
          max={RETENTION_LIMITS.maxRecords.max}
          disabled={disabled}
          locked={locks.retention('maxRecords')}
          onCommit={(typed) => onRetention('maxRecords', typed)}
        />
        <RetentionField
          key={`days-${audit.maxAgeDays}`}
          name="maxAgeDays"
          label={t('options_retention_days')}
          value={audit.maxAgeDays}
          min={RETENTION_LIMITS.maxAgeDays.min}
          max={RETENTION_LIMITS.maxAgeDays.max}
          disabled={disabled}
          locked={locks.retention('maxAgeDays')}
          onCommit={(typed) => onRetention('maxAgeDays', typed)}
        />
      </div>
      <div class="csg-buttons">
        <button type="button" data-testid="audit-export-json" onClick={() => onExport('json')}>
          {t('options_export_json')}
        </button>
        <button type="button" data-testid="audit-export-csv" onClick={() => onExport('csv')}>
          {t('options_export_csv')}
        </button>
        <ClearLogButton disabled={disabled} onConfirm={onClear} />
      </div>
      <AuditExportField disabled={disabled} />
    </section>
  );
}
