/**
 * Writing, trimming, querying and clearing the audit store. One batch is one
 * readwrite transaction: add the records, drop expired ones, drop the oldest
 * beyond the count bound. Oldest means smallest `time`, then smallest id (the
 * `time` index orders equal times by primary key).
 */
import type { AuditQuery, AuditRecord } from '../protocol/runtime-messages.ts';
import { AUDIT_STORE, type AuditDb, type StoredAuditRecord } from './audit-db.ts';
import { retentionCutoff, type Retention } from './audit-retention.ts';
import { enqueueInTransaction, LOGGING_STORES } from './export-queue.ts';

/** Upper bound of records one query returns. */
export const MAX_QUERY_LIMIT = 100_000;

/**
 * Adds `records` and enforces `retention` in one transaction. If the batch alone
 * exceeds the count bound only its newest records are written; records already
 * expired are not written at all. With `exportBound` (an OTLP endpoint is set,
 * issue 21 §2) the records written are also queued for export, in the same
 * transaction, with the queue bounded to `exportBound` (export-queue.ts).
 */
export async function addBatch(
  db: AuditDb,
  records: readonly AuditRecord[],
  retention: Retention,
  now: number,
  exportBound?: number,
): Promise<void> {
  const cutoff = retentionCutoff(retention, now);
  // Newest by time (stable for equal times), as the store's own trimming counts it.
  const fresh = records.filter((record) => record.time >= cutoff).sort((a, b) => a.time - b.time);
  const kept = fresh.slice(Math.max(0, fresh.length - retention.maxRecords));
  const tx = db.transaction([...LOGGING_STORES], 'readwrite');
  const events = tx.objectStore(AUDIT_STORE);
  const work = (async () => {
    const added: StoredAuditRecord[] = [];
    for (const record of kept) {
      const { id: _ignored, ...value } = record;
      added.push({ ...value, id: await events.add(value as AuditRecord) });
    }
    if (exportBound !== undefined) await enqueueInTransaction(tx, added, exportBound);
    let expired = await events.index('time').openCursor(IDBKeyRange.upperBound(cutoff, true));
    while (expired) {
      await expired.delete();
      expired = await expired.continue();
    }
    let excess = (await events.count()) - retention.maxRecords;
    let oldest = excess > 0 ? await events.index('time').openCursor() : null;
    while (oldest && excess > 0) {
      await oldest.delete();
      excess -= 1;
      oldest = await oldest.continue();
    }
  })();
  await Promise.all([work, tx.done]);
}

/** Drops the `count` oldest records; returns how many were dropped. */
export async function dropOldest(db: AuditDb, count: number): Promise<number> {
  const tx = db.transaction(AUDIT_STORE, 'readwrite');
  const work = (async () => {
    let dropped = 0;
    let cursor = await tx.store.index('time').openCursor();
    while (cursor && dropped < count) {
      await cursor.delete();
      dropped += 1;
      cursor = await cursor.continue();
    }
    return dropped;
  })();
  const [dropped] = await Promise.all([work, tx.done]);
  return dropped;
}

export async function countRecords(db: AuditDb): Promise<number> {
  return db.count(AUDIT_STORE);
}

function matchesQuery(record: AuditRecord, query: AuditQuery): boolean {
  return (
    (query.site === undefined || record.site === query.site) &&
    (query.kind === undefined || record.kind === query.kind) &&
    (query.action === undefined || record.action === query.action)
  );
}

/** Records matching `query`, newest first, at most `query.limit`. */
export async function queryRecords(db: AuditDb, query: AuditQuery): Promise<StoredAuditRecord[]> {
  const limit = Math.min(Math.max(0, Math.floor(query.limit ?? MAX_QUERY_LIMIT)), MAX_QUERY_LIMIT);
  const range = query.since === undefined ? undefined : IDBKeyRange.lowerBound(query.since);
  const found: StoredAuditRecord[] = [];
  if (limit === 0) return found;
  const tx = db.transaction(AUDIT_STORE, 'readonly');
  let cursor = await tx.store.index('time').openCursor(range, 'prev');
  while (cursor && found.length < limit) {
    if (matchesQuery(cursor.value, query)) found.push(cursor.value as StoredAuditRecord);
    cursor = await cursor.continue();
  }
  await tx.done;
  return found;
}

/** How many records have `time` at or after `since`. */
export async function countSince(db: AuditDb, since: number): Promise<number> {
  return db.countFromIndex(AUDIT_STORE, 'time', IDBKeyRange.lowerBound(since));
}

export async function clearRecords(db: AuditDb): Promise<void> {
  await db.clear(AUDIT_STORE);
}
