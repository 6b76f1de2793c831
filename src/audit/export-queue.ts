/**
 * The OTLP export queue (issue 21 §2, docs/deployment.md "Audit export"): a copy of
 * each audit record still to be delivered, keyed by its `events` id. A record is
 * queued in the same transaction that logs it (audit-store.ts `addBatch`), so a
 * record is either logged and queued or neither, whatever stops the worker; it
 * leaves the queue only after the endpoint answered 2xx for it (`ackExported`).
 *
 * The queue is bounded: when it holds more than the bound, the oldest records are
 * dropped and counted in `export-meta` (`dropped`, reported with the next batch and
 * then subtracted; `droppedTotal`, shown in the options page).
 */
import type { IDBPTransaction } from 'idb';
import {
  AUDIT_STORE,
  EXPORT_META_STORE,
  EXPORT_QUEUE_STORE,
  type AuditDb,
  type AuditSchema,
  type StoredAuditRecord,
} from './audit-db.ts';

/** Records queued at most by default: about 5 MB of small records. */
export const DEFAULT_EXPORT_QUEUE_BOUND = 20_000;

export const LOGGING_STORES = [AUDIT_STORE, EXPORT_QUEUE_STORE, EXPORT_META_STORE] as const;
export type LoggingTransaction = IDBPTransaction<
  AuditSchema,
  typeof LOGGING_STORES extends readonly (infer S)[] ? S[] : never,
  'readwrite'
>;

export interface ExportQueueState {
  queued: number;
  /** Dropped by the bound and not yet reported to the endpoint. */
  dropped: number;
  /** Dropped by the bound since install. */
  droppedTotal: number;
}

/** Queues `records` (already given their ids) and drops the oldest beyond `bound`. */
export async function enqueueInTransaction(
  tx: LoggingTransaction,
  records: readonly StoredAuditRecord[],
  bound: number,
): Promise<void> {
  const queue = tx.objectStore(EXPORT_QUEUE_STORE);
  for (const record of records) await queue.put(record);
  let excess = (await queue.count()) - bound;
  if (excess <= 0) return;
  const meta = tx.objectStore(EXPORT_META_STORE);
  const dropped = excess;
  let oldest = await queue.openCursor();
  while (oldest && excess > 0) {
    await oldest.delete();
    excess -= 1;
    oldest = await oldest.continue();
  }
  await meta.put(((await meta.get('dropped')) ?? 0) + dropped, 'dropped');
  await meta.put(((await meta.get('droppedTotal')) ?? 0) + dropped, 'droppedTotal');
}

/** The `max` oldest queued records, oldest first. */
export async function peekQueue(db: AuditDb, max: number): Promise<StoredAuditRecord[]> {
  return db.getAll(EXPORT_QUEUE_STORE, undefined, max);
}

export async function exportQueueState(db: AuditDb): Promise<ExportQueueState> {
  const tx = db.transaction([EXPORT_QUEUE_STORE, EXPORT_META_STORE], 'readonly');
  const meta = tx.objectStore(EXPORT_META_STORE);
  const [queued, dropped, droppedTotal] = await Promise.all([
    tx.objectStore(EXPORT_QUEUE_STORE).count(),
    meta.get('dropped'),
    meta.get('droppedTotal'),
    tx.done,
  ]);
  return { queued, dropped: dropped ?? 0, droppedTotal: droppedTotal ?? 0 };
}

/**
 * The endpoint accepted `ids` (and the `reportedDropped` count sent with them):
 * they leave the queue, and the count reported is subtracted (drops counted since
 * the batch was built stay for the next one).
 */
export async function ackExported(
  db: AuditDb,
  ids: readonly number[],
  reportedDropped: number,
): Promise<void> {
  const tx = db.transaction([EXPORT_QUEUE_STORE, EXPORT_META_STORE], 'readwrite');
  const queue = tx.objectStore(EXPORT_QUEUE_STORE);
  const meta = tx.objectStore(EXPORT_META_STORE);
  const work = (async () => {
    for (const id of ids) await queue.delete(id);
    if (reportedDropped > 0) {
      const dropped = (await meta.get('dropped')) ?? 0;
      await meta.put(Math.max(0, dropped - reportedDropped), 'dropped');
    }
  })();
  await Promise.all([work, tx.done]);
}

/**
 * The endpoint refused the request that carried `ids` for what it holds (OTLP/HTTP
 * "Failures": such a status must not be retried, the same request would be refused
 * again): they leave the queue and are counted as dropped, like the bound's, so the
 * organisation sees the gap with the next batch and the options page shows it.
 */
export async function rejectExported(db: AuditDb, ids: readonly number[]): Promise<void> {
  const tx = db.transaction([EXPORT_QUEUE_STORE, EXPORT_META_STORE], 'readwrite');
  const queue = tx.objectStore(EXPORT_QUEUE_STORE);
  const meta = tx.objectStore(EXPORT_META_STORE);
  const work = (async () => {
    let removed = 0;
    for (const id of ids) {
      if ((await queue.getKey(id)) === undefined) continue;
      await queue.delete(id);
      removed += 1;
    }
    await meta.put(((await meta.get('dropped')) ?? 0) + removed, 'dropped');
    await meta.put(((await meta.get('droppedTotal')) ?? 0) + removed, 'droppedTotal');
  })();
  await Promise.all([work, tx.done]);
}
