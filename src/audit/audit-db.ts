/**
 * The audit database (docs/audit-log.md): IndexedDB `csg-audit`, object store
 * `events` with an auto-increment key and indexes on time, site and kind. Only the
 * background opens it; IndexedDB of an extension origin is unreachable from pages
 * and content scripts (which see the page origin's databases).
 *
 * Version 2 (issue 21 §2) adds the OTLP export queue: `export-queue` holds a copy
 * of each record still to be delivered, keyed by its `events` id (the idempotent
 * record id), and `export-meta` the counts of records the queue's bound dropped.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { AuditRecord } from '../protocol/runtime-messages.ts';

export const AUDIT_DB_NAME = 'csg-audit';
export const AUDIT_DB_VERSION = 2;
export const AUDIT_STORE = 'events';
export const EXPORT_QUEUE_STORE = 'export-queue';
export const EXPORT_META_STORE = 'export-meta';

/** A record as stored: the key is assigned by the store. */
export type StoredAuditRecord = AuditRecord & { id: number };

export interface AuditSchema extends DBSchema {
  events: {
    key: number;
    value: AuditRecord;
    indexes: { time: number; site: string; kind: string };
  };
  'export-queue': {
    key: number;
    value: StoredAuditRecord;
  };
  /** `dropped`: dropped and not yet reported; `droppedTotal`: dropped since install. */
  'export-meta': {
    key: 'dropped' | 'droppedTotal';
    value: number;
  };
}

export type AuditDb = IDBPDatabase<AuditSchema>;

export function openAuditDb(name: string = AUDIT_DB_NAME): Promise<AuditDb> {
  return openDB<AuditSchema>(name, AUDIT_DB_VERSION, {
    upgrade(db, oldVersion) {
      if (oldVersion < 1) {
        const store = db.createObjectStore(AUDIT_STORE, { keyPath: 'id', autoIncrement: true });
        store.createIndex('time', 'time');
        store.createIndex('site', 'site');
        store.createIndex('kind', 'kind');
      }
      if (oldVersion < 2) {
        // Records logged before the export existed are not queued: the export starts
        // when an endpoint is set, and the person's own export covers the past.
        db.createObjectStore(EXPORT_QUEUE_STORE, { keyPath: 'id' });
        db.createObjectStore(EXPORT_META_STORE);
      }
    },
  });
}
