import 'fake-indexeddb/auto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openAuditDb, type AuditDb } from '../../../src/audit/audit-db.ts';
import {
  addBatch,
  clearRecords,
  countSince,
  queryRecords,
} from '../../../src/audit/audit-store.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';
import { auditRecord } from './audit-records.ts';

const DAY = 24 * 60 * 60 * 1000;
let dbCounter = 0;
const freshDb = (): Promise<AuditDb> => openAuditDb(`csg-audit-test-${++dbCounter}`);

/** All stored records, oldest first (time, then id). */
async function stored(db: AuditDb) {
  return (await queryRecords(db, {})).reverse();
}

describe('audit store schema', () => {
  it('has the events store with time, site and kind indexes and an auto-increment key', async () => {
    const db = await freshDb();
    expect([...db.objectStoreNames]).toEqual(['events', 'export-meta', 'export-queue']);
    const store = db.transaction('events').store;
    expect(store.keyPath).toBe('id');
    expect(store.autoIncrement).toBe(true);
    expect([...store.indexNames].sort()).toEqual(['kind', 'site', 'time']);
  });
});

describe('addBatch retention', () => {
  it('drops records older than maxAgeDays and the oldest beyond maxRecords', async () => {
    const db = await freshDb();
    const now = 100 * DAY;
    await addBatch(
      db,
      [auditRecord(now - 3 * DAY), auditRecord(now - DAY)],
      { maxRecords: 10, maxAgeDays: 30 },
      now,
    );
    await addBatch(db, [auditRecord(now)], { maxRecords: 10, maxAgeDays: 2 }, now);
    expect((await stored(db)).map((r) => r.time)).toEqual([now - DAY, now]);
    await addBatch(
      db,
      [auditRecord(now + 1), auditRecord(now + 2)],
      { maxRecords: 3, maxAgeDays: 2 },
      now + 2,
    );
    expect((await stored(db)).map((r) => r.time)).toEqual([now, now + 1, now + 2]);
  });

  it('for any sequence of batches: keeps exactly the newest unexpired records within the bound', async () => {
    const batch = fc.array(fc.integer({ min: 0, max: 5 * DAY }), { maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(batch, fc.integer({ min: 0, max: DAY })), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 15 }),
        fc.integer({ min: 1, max: 3 }),
        async (batches, maxRecords, maxAgeDays) => {
          const db = await freshDb();
          const retention = { maxRecords, maxAgeDays };
          let model: { time: number; seq: number }[] = [];
          let now = 10 * DAY;
          let seq = 0;
          for (const [offsets, advance] of batches) {
            now += advance;
            const records = offsets.map((offset) =>
              auditRecord(now - offset, { rule: `r${seq++}` }),
            );
            await addBatch(db, records, retention, now);
            const cutoff = now - maxAgeDays * DAY;
            model = [
              ...model,
              ...records.map((r) => ({ time: r.time, seq: Number(r.rule.slice(1)) })),
            ]
              .filter((r) => r.time >= cutoff)
              .sort((a, b) => a.time - b.time || a.seq - b.seq);
            model = model.slice(Math.max(0, model.length - maxRecords));
            const actual = (await stored(db)).map((r) => ({
              time: r.time,
              seq: Number(r.rule.slice(1)),
            }));
            expect(actual).toEqual(model);
          }
          db.close();
        },
      ),
      { numRuns: Math.min(PROPERTY_RUNS, 150) },
    );
  }, 120_000);
});

describe('queryRecords', () => {
  it('filters by site, kind, action and time, newest first, up to the limit', async () => {
    const db = await freshDb();
    const retention = { maxRecords: 100, maxAgeDays: 30 };
    const now = 50 * DAY;
    await addBatch(
      db,
      [
        auditRecord(now - 30, { site: 'claude.ai' }),
        auditRecord(now - 20, { kind: 'pii', action: 'flag', rule: 'email' }),
        auditRecord(now - 10),
        auditRecord(now, { kind: 'exfil', rule: 'markdown-image-exfil' }),
      ],
      retention,
      now,
    );
    expect((await queryRecords(db, {})).map((r) => r.time)).toEqual([
      now,
      now - 10,
      now - 20,
      now - 30,
    ]);
    expect((await queryRecords(db, { site: 'claude.ai' })).map((r) => r.time)).toEqual([now - 30]);
    expect((await queryRecords(db, { kind: 'pii' })).map((r) => r.rule)).toEqual(['email']);
    expect(
      (await queryRecords(db, { action: 'redact', since: now - 15 })).map((r) => r.time),
    ).toEqual([now, now - 10]);
    expect((await queryRecords(db, { limit: 1 })).map((r) => r.time)).toEqual([now]);
    expect(await countSince(db, now - 10)).toBe(2);
    await clearRecords(db);
    expect(await queryRecords(db, {})).toEqual([]);
  });
});

describe('audit database version 2 (issue 21 §2)', () => {
  it('keeps the records of a version 1 database and adds the empty export stores', async () => {
    const name = `csg-audit-v1-${++dbCounter}`;
    await new Promise<void>((resolve, reject) => {
      const open = indexedDB.open(name, 1);
      open.onupgradeneeded = () => {
        const store = open.result.createObjectStore('events', {
          keyPath: 'id',
          autoIncrement: true,
        });
        store.createIndex('time', 'time');
        store.createIndex('site', 'site');
        store.createIndex('kind', 'kind');
        store.add(auditRecord(1000));
      };
      open.onsuccess = () => {
        open.result.close();
        resolve();
      };
      open.onerror = () => reject(new Error('open failed'));
    });
    const db = await openAuditDb(name);
    expect(db.version).toBe(2);
    expect(await queryRecords(db, {})).toMatchObject([{ id: 1, time: 1000, rule: 'github-pat' }]);
    expect(await db.count('export-queue')).toBe(0);
    db.close();
  });

  it('queues the records it logs, under their log ids, only when asked to', async () => {
    const db = await freshDb();
    await addBatch(db, [auditRecord(1000)], { maxRecords: 100, maxAgeDays: 30 }, 1000);
    await addBatch(
      db,
      [auditRecord(2000), auditRecord(3000)],
      { maxRecords: 100, maxAgeDays: 30 },
      3000,
      10,
    );
    expect((await db.getAll('export-queue')).map((record) => [record.id, record.time])).toEqual([
      [2, 2000],
      [3, 3000],
    ]);
  });
});
