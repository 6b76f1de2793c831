/**
 * Filters of the audit log view (kind, action). The same filter becomes the
 * background query and is re-applied to what comes back and to live records,
 * so the list never shows a record the filter excludes.
 */
import type { AuditQuery, AuditRecord } from '../protocol/runtime-messages.ts';

export const AUDIT_KINDS: readonly AuditRecord['kind'][] = [
  'secret',
  'pii',
  'exfil',
  'invisible',
  'injection',
  'custom',
  'error',
];

export const AUDIT_ACTIONS: readonly AuditRecord['action'][] = [
  'redact',
  'block',
  'flag',
  'warn',
  'send-anyway',
  'error',
];

export interface AuditFilter {
  kind: AuditRecord['kind'] | 'all';
  action: AuditRecord['action'] | 'all';
}

export const NO_FILTER: AuditFilter = { kind: 'all', action: 'all' };

export function matchesFilter(record: AuditRecord, filter: AuditFilter): boolean {
  return (
    (filter.kind === 'all' || record.kind === filter.kind) &&
    (filter.action === 'all' || record.action === filter.action)
  );
}

/** The records the filter keeps, newest first, at most `limit`. */
export function filterRecords(
  records: readonly AuditRecord[],
  filter: AuditFilter,
  limit: number,
): AuditRecord[] {
  return records
    .filter((record) => matchesFilter(record, filter))
    .sort((a, b) => b.time - a.time)
    .slice(0, Math.max(0, limit));
}

/** The background query for a filter (the `all` choices add no condition). */
export function filterQuery(filter: AuditFilter, extra: AuditQuery = {}): AuditQuery {
  const query: AuditQuery = { ...extra };
  if (filter.kind !== 'all') query.kind = filter.kind;
  if (filter.action !== 'all') query.action = filter.action;
  return query;
}

/** Parses a `<select>` value back into a filter field; anything unknown means `all`. */
export function parseKindChoice(value: string): AuditFilter['kind'] {
  return (AUDIT_KINDS as readonly string[]).includes(value)
    ? (value as AuditRecord['kind'])
    : 'all';
}

export function parseActionChoice(value: string): AuditFilter['action'] {
  return (AUDIT_ACTIONS as readonly string[]).includes(value)
    ? (value as AuditRecord['action'])
    : 'all';
}
