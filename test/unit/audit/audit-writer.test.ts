import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { openAuditDb, type AuditDb } from '../../../src/audit/audit-db.ts';
import {
  addBatch,
  countRecords,
  dropOldest,
  queryRecords,
} from '../../../src/audit/audit-store.ts';
import { AuditWriter, type AuditSink } from '../../../src/audit/audit-writer.ts';
import { auditRecord } from './audit-records.ts';

let dbCounter = 0;
const freshDb = (): Promise<AuditDb> => openAuditDb(`csg-audit-writer-${++dbCounter}`);
const retention = { maxRecords: 1000, maxAgeDays: 30 };
const NOW = 1_800_000_000_000;

/** The real IndexedDB store behind the sink, counting transactions. */
function storeSink(db: AuditDb) {
  const batches: number[] = [];
  const sink: AuditSink = {
    addBatch: async (records, r, now) => {
      batches.push(records.length);
      await addBatch(db, records, r, now);
    },
    dropOldest: (count) => dropOldest(db, count),
    count: () => countRecords(db),
  };
  return { sink, batches };
}

/**
 * A disk that holds at most `capacity` records: a batch that would not fit fails
 * whole with QuotaExceededError, as an aborted IndexedDB transaction does.
 */
function fullDiskSink(db: AuditDb, capacity: number): AuditSink {
  const { sink } = storeSink(db);
  return {
    ...sink,
    addBatch: async (records, r, now) => {
      if ((await countRecords(db)) + records.length > capacity) {
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      }
      await sink.addBatch(records, r, now);
    },
  };
}

describe('AuditWriter', () => {
  it('batches events that arrive together into one transaction', async () => {
    const db = await freshDb();
    const { sink, batches } = storeSink(db);
    const writer = new AuditWriter({
      sink,
      retention: () => retention,
      now: () => NOW,
      delayMs: 20,
      maxBatch: 50,
    });
    for (let i = 0; i < 10; i += 1) writer.add([auditRecord(NOW + i)]);
    expect(batches).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    await writer.flush();
    expect(batches).toEqual([10]);
    expect(await countRecords(db)).toBe(10);
  });

  it('writes at once when a batch is full, in slices of maxBatch', async () => {
    const db = await freshDb();
    const { sink, batches } = storeSink(db);
    const writer = new AuditWriter({
      sink,
      retention: () => retention,
      now: () => NOW,
      delayMs: 10_000,
      maxBatch: 4,
    });
    writer.add(Array.from({ length: 9 }, (_, i) => auditRecord(NOW + i)));
    await writer.flush();
    expect(batches).toEqual([4, 4, 1]);
    expect(await countRecords(db)).toBe(9);
  });

  it('stores every event exactly once when several tabs write at once', async () => {
    const db = await freshDb();
    const { sink } = storeSink(db);
    const writer = new AuditWriter({
      sink,
      retention: () => retention,
      now: () => NOW,
      delayMs: 1,
      maxBatch: 7,
    });
    await Promise.all(
      Array.from({ length: 5 }, async (_, tab) => {
        for (let i = 0; i < 20; i += 1) {
          writer.add([auditRecord(NOW + i, { tabId: tab, rule: `t${tab}-${i}` })]);
          if (i % 3 === 0) await new Promise((resolve) => setTimeout(resolve, 0));
        }
      }),
    );
    await writer.flush();
    const rules = (await queryRecords(db, {})).map((r) => r.rule).sort();
    const expected = Array.from({ length: 5 }, (_, t) =>
      Array.from({ length: 20 }, (_, i) => `t${t}-${i}`),
    )
      .flat()
      .sort();
    expect(rules).toEqual(expected);
  });

  it('on QuotaExceededError drops the oldest records and keeps the newest events', async () => {
    const db = await freshDb();
    const capacity = 30;
    const losses: number[] = [];
    const writer = new AuditWriter({
      sink: fullDiskSink(db, capacity),
      retention: () => retention,
      now: () => NOW,
      delayMs: 1,
      maxBatch: 10,
      onLoss: (lost) => losses.push(lost),
    });
    for (let i = 0; i < 100; i += 1) writer.add([auditRecord(NOW + i, { rule: `e${i}` })]);
    await writer.flush();
    const kept = (await queryRecords(db, {})).map((r) => r.rule);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThanOrEqual(capacity);
    // The newest 10 (the last batch) are all there, the newest first.
    expect(kept.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => `e${99 - i}`));
    expect(losses).toEqual([]);
  });

  it('gives up the oldest part of a batch that cannot fit even in an empty store', async () => {
    const db = await freshDb();
    const losses: number[] = [];
    const writer = new AuditWriter({
      sink: fullDiskSink(db, 3),
      retention: () => retention,
      now: () => NOW,
      delayMs: 1,
      maxBatch: 10,
      onLoss: (lost) => losses.push(lost),
    });
    writer.add(Array.from({ length: 10 }, (_, i) => auditRecord(NOW + i, { rule: `e${i}` })));
    await writer.flush();
    expect((await queryRecords(db, {})).map((r) => r.rule)).toEqual(['e9', 'e8', 'e7']);
    expect(losses.reduce((a, b) => a + b, 0)).toBe(7);
  });

  it('keeps writing after a failed batch', async () => {
    const db = await freshDb();
    const { sink } = storeSink(db);
    let failNext = true;
    const writer = new AuditWriter({
      sink: {
        ...sink,
        addBatch: async (records, r, now) => {
          if (failNext) {
            failNext = false;
            throw new Error('disk error');
          }
          await sink.addBatch(records, r, now);
        },
      },
      retention: () => retention,
      now: () => NOW,
    });
    writer.add([auditRecord(NOW, { rule: 'lost' })]);
    await writer.flush();
    writer.add([auditRecord(NOW + 1, { rule: 'kept' })]);
    await writer.flush();
    expect((await queryRecords(db, {})).map((r) => r.rule)).toEqual(['kept']);
  });
});
