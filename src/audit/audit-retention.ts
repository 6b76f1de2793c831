/** The retention bound of the audit log (settings.audit, docs/audit-log.md "Retention"). */

export interface Retention {
  maxRecords: number;
  maxAgeDays: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Records with `time` below this are expired at `now`. */
export function retentionCutoff(retention: Retention, now: number): number {
  return now - retention.maxAgeDays * DAY_MS;
}
