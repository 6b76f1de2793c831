/**
 * Export of the audit log (docs/audit-log.md "Export"): JSON (an object with a
 * format tag and the records) and CSV (RFC 4180, a header row, one row per
 * record). CSV cells that a spreadsheet would read as a formula are prefixed with
 * `'` (OWASP "CSV injection"): site names and rule ids come from pages and packs.
 */
import type { AuditRecord } from '../protocol/runtime-messages.ts';

export const AUDIT_EXPORT_FORMAT = 'csg-audit-export';
export const AUDIT_EXPORT_VERSION = 1;

/** Column order of the CSV export: every AuditRecord field. */
export const CSV_COLUMNS = [
  'id',
  'time',
  'isoTime',
  'site',
  'tabId',
  'conversationId',
  'turnId',
  'streamId',
  'direction',
  'format',
  'rule',
  'kind',
  'action',
  'start',
  'end',
  'length',
  'digest',
  'pack',
  'also',
] as const;

export function toJsonExport(records: readonly AuditRecord[], exportedAt: number): string {
  return JSON.stringify(
    {
      format: AUDIT_EXPORT_FORMAT,
      version: AUDIT_EXPORT_VERSION,
      exportedAt: new Date(exportedAt).toISOString(),
      records,
    },
    null,
    2,
  );
}

/** Characters that make a spreadsheet treat a cell as a formula (incl. tab and CR). */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: string | number | undefined): string {
  let text = value === undefined ? '' : String(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function cellsOf(record: AuditRecord): (string | number | undefined)[] {
  return CSV_COLUMNS.map((column) => {
    if (column === 'isoTime') return new Date(record.time).toISOString();
    // Rule ids hold no spaces (validate-pack), so one space joins the list in one cell.
    if (column === 'also') return record.also?.join(' ');
    return record[column];
  });
}

export function toCsvExport(records: readonly AuditRecord[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const record of records) lines.push(cellsOf(record).map(csvCell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
