/**
 * The audit database (docs/audit-log.md): IndexedDB `csg-audit`, object store
 * `events` with an auto-increment key and indexes on time, site and kind. Only the
 * background opens it; IndexedDB of an extension origin is unreachable from pages
 * and content scripts (which see the page origin's databases).
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { AuditRecord } from '../protocol/runtime-messages.ts';

export const AUDIT_DB_NAME = 'csg-audit';
export const AUDIT_DB_VERSION = 1;
export const AUDIT_STORE = 'events';

/** A record as stored: the key is assigned by the store. */
export type StoredAuditRecord = AuditRecord & { id: number };

export interface AuditSchema extends DBSchema {
  events: {
    key: number;
    value: AuditRecord;
    indexes: { time: number; site: string; kind: string };
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
    },
  });
}
