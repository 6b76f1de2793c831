import { useState } from 'preact/hooks';
import { t } from '../i18n.ts';
import { LockedBadge } from '../locked-badge.tsx';
import {
  allowEndpointHost,
  removeEndpoint,
  saveEncoding,
  saveEndpoint,
  useAuditExport,
  type AuditExportView,
  type SaveOutcome,
} from '../audit-export-client.ts';
import { OTLP_ENCODINGS, parseOtlpEncoding } from '../../background/otlp-endpoint.ts';
import type { ExportStatus } from '../../background/otlp-exporter.ts';

/** The export's state in one line: counts, last delivery, last failure. No content. */
function StatusLine({ status }: { status: ExportStatus }) {
  const parts = [t('options_export_status', [String(status.queued), String(status.droppedTotal)])];
  if (status.lastDeliveredAt !== undefined) {
    parts.push(t('options_export_delivered', new Date(status.lastDeliveredAt).toLocaleString()));
  }
  if (status.lastFailure !== undefined) {
    const code = status.lastFailure.status === 0 ? '—' : String(status.lastFailure.status);
    parts.push(
      t('options_export_failed', [new Date(status.lastFailure.at).toLocaleString(), code]),
    );
  }
  if (status.permissionMissing === true) parts.push(t('options_export_permission_missing'));
  return (
    <p class="csg-muted" data-testid="audit-export-status">
      {parts.join(' · ')}
    </p>
  );
}

/**
 * OTLP/HTTP's two encodings (otlp-endpoint.ts), the organisation's shown locked.
 * Saved as soon as it is chosen: the endpoint's host permission covers both.
 */
function EncodingChoice({ view, disabled }: { view: AuditExportView; disabled: boolean }) {
  const locked = view.managedEncoding !== undefined;
  return (
    <>
      <label for="csg-export-encoding">{t('options_export_encoding')}</label>
      <select
        id="csg-export-encoding"
        data-testid="audit-export-encoding"
        value={view.managedEncoding ?? view.ownEncoding}
        disabled={disabled || locked}
        onChange={(event) => {
          const encoding = parseOtlpEncoding(event.currentTarget.value);
          if (encoding !== undefined) void saveEncoding(encoding);
        }}
      >
        {OTLP_ENCODINGS.map((encoding) => (
          <option key={encoding} value={encoding}>
            {t(`options_export_encoding_${encoding}`)}
          </option>
        ))}
      </select>
      {locked ? <LockedBadge /> : null}
    </>
  );
}

/**
 * Issue 21 §2: the OTLP/HTTP endpoint the audit log is exported to (off when
 * empty), with the organisation's endpoint shown locked when its policy sets one,
 * and the export's queue and dropped counts. docs/deployment.md "Audit export".
 */
export function AuditExportField({ disabled }: { disabled: boolean }) {
  const view = useAuditExport();
  const [typed, setTyped] = useState<string | undefined>(undefined);
  const [outcome, setOutcome] = useState<SaveOutcome | undefined>(undefined);
  if (view === undefined) return null;
  const locked = view.managed !== undefined;
  const value = locked ? view.managed : (typed ?? view.own);
  return (
    <div class="csg-field" data-testid="audit-export">
      <h3>{t('options_export_title')}</h3>
      <p class="csg-muted">{t('options_export_help')}</p>
      <label for="csg-export-endpoint">{t('options_export_endpoint')}</label>
      <input
        id="csg-export-endpoint"
        type="url"
        placeholder="https://otel.example.org:4318/v1/logs"
        value={value}
        disabled={disabled || locked}
        aria-invalid={outcome === 'invalid'}
        data-testid="audit-export-endpoint"
        onInput={(event) => setTyped(event.currentTarget.value)}
      />
      {locked ? <LockedBadge /> : null}
      <EncodingChoice view={view} disabled={disabled} />
      {locked && view.status?.permissionMissing === true ? (
        <div class="csg-buttons">
          <button
            type="button"
            data-testid="audit-export-allow"
            onClick={() => void allowEndpointHost(view.managed ?? '')}
          >
            {t('options_export_allow')}
          </button>
        </div>
      ) : null}
      {locked ? null : (
        <div class="csg-buttons">
          <button
            type="button"
            data-testid="audit-export-save"
            disabled={disabled}
            onClick={() => {
              // Synchronously in the click: the permission request needs the gesture.
              void saveEndpoint(value ?? '').then((result) => {
                setOutcome(result);
                if (result === 'saved') setTyped(undefined);
              });
            }}
          >
            {t('options_export_save')}
          </button>
          <button
            type="button"
            data-testid="audit-export-remove"
            disabled={disabled || view.own === ''}
            onClick={() => {
              setTyped(undefined);
              setOutcome(undefined);
              void removeEndpoint();
            }}
          >
            {t('options_export_remove')}
          </button>
        </div>
      )}
      {outcome === 'invalid' || outcome === 'denied' ? (
        <p class="csg-field-error" role="alert">
          {t(outcome === 'invalid' ? 'options_export_invalid' : 'options_export_denied')}
        </p>
      ) : null}
      {view.status !== undefined && (locked || view.own !== '') ? (
        <StatusLine status={view.status} />
      ) : null}
    </div>
  );
}
