/**
 * The audit log as the e2e tests read it: every record of the background's
 * IndexedDB store (src/audit), read straight from an extension page.
 */
import type { Page } from 'puppeteer';

export interface LoggedRecord {
  format: string;
  rule: string;
  kind: string;
  action: string;
  site: string;
  digest: string;
  also?: string[];
}

/** Every record of the audit store, read straight from IndexedDB in an extension page. */
export function readAuditStore(extensionPage: Page): Promise<LoggedRecord[] | null> {
  return extensionPage.evaluate(async () => {
    // Opening a database that does not exist would create it empty (version 1, no
    // store) and break the background's upgrade: look first.
    const names = (await indexedDB.databases()).map((db) => db.name);
    if (!names.includes('csg-audit')) return null;
    return new Promise<LoggedRecord[]>((resolve, reject) => {
      const open = indexedDB.open('csg-audit');
      open.onerror = () => reject(new Error('open failed'));
      open.onsuccess = () => {
        const db = open.result;
        const request = db.transaction('events').objectStore('events').getAll();
        request.onsuccess = () => {
          resolve(request.result as LoggedRecord[]);
          db.close();
        };
        request.onerror = () => reject(new Error('read failed'));
      };
    });
  });
}
