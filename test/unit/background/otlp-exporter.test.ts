/**
 * Issue 21 §2: the export queue and its delivery (src/audit/export-queue.ts,
 * src/background/otlp-exporter.ts) against fake-indexeddb, a scripted endpoint and
 * fake timers: batching, backoff with jitter, exactly once across failures and a
 * worker restart, the queue's bound, and no request at all with no endpoint.
 */
import 'fake-indexeddb/auto';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openAuditDb, type AuditDb } from '../../../src/audit/audit-db.ts';
import { addBatch } from '../../../src/audit/audit-store.ts';
import { exportQueueState } from '../../../src/audit/export-queue.ts';
import { backoffDelay, retryAfterMs } from '../../../src/background/otlp-backoff.ts';
import {
  EXPORT_ALARM,
  EXPORT_SETTINGS_KEY,
  EXPORT_STATUS_KEY,
  OtlpExporter,
  type OtlpExporterDeps,
} from '../../../src/background/otlp-exporter.ts';
import { DROPPED_ATTRIBUTE } from '../../../src/background/otlp-log-record.ts';
import { decodeLogsRequest } from '../../e2e/otlp-receiver.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';
import { auditRecord } from '../audit/audit-records.ts';

const ENDPOINT = 'https://otel.example.org:4318/v1/logs';
const RETENTION = { maxRecords: 10_000, maxAgeDays: 30 };
let dbCounter = 0;

class MemoryArea {
  data: Record<string, unknown> = {};
  get(key: string) {
    return Promise.resolve(key in this.data ? { [key]: this.data[key] } : {});
  }
  set(items: Record<string, unknown>) {
    Object.assign(this.data, structuredClone(items));
    return Promise.resolve();
  }
}

/**
 * A scripted endpoint: answers with the next status of `script` (then 200), decodes
 * bodies by their Content-Type with the official definitions (otlp-receiver.ts).
 */
function endpoint(script: (number | 'network')[] = []) {
  const requests: { url: string; type: string | null; ids: string[]; dropped: unknown }[] = [];
  const fetch = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
    const type = new Headers(init?.headers).get('Content-Type');
    const encoding = type === 'application/x-protobuf' ? 'protobuf' : 'json';
    const logs = decodeLogsRequest(init?.body as Uint8Array, encoding);
    const outcome = script.shift() ?? 200;
    requests.push({
      url: String(url),
      type,
      ids: logs.map((log) => String(log.attributes['csg.record.id'])),
      dropped: logs[0]?.scope.attributes[DROPPED_ATTRIBUTE],
    });
    if (outcome === 'network') throw new TypeError('Failed to fetch');
    return new Response('{}', { status: outcome });
  });
  return { fetch, requests };
}

interface Harness {
  db: AuditDb;
  local: MemoryArea;
  session: MemoryArea;
  alarms: { create: ReturnType<typeof vi.fn>; clear: ReturnType<typeof vi.fn> };
  exporter: OtlpExporter;
  log(count: number, time?: number): Promise<void>;
}

async function harness(
  fetch: OtlpExporterDeps['fetch'],
  options: Partial<Omit<OtlpExporterDeps, 'db' | 'local' | 'session'>> & {
    db?: AuditDb;
    local?: MemoryArea;
    session?: MemoryArea;
  } = {},
): Promise<Harness> {
  const { db: _db, local: _local, session: _session, ...deps } = options;
  const db = options.db ?? (await openAuditDb(`csg-otlp-${++dbCounter}`));
  const local = options.local ?? new MemoryArea();
  const session = options.session ?? new MemoryArea();
  if (options.local === undefined) local.data[EXPORT_SETTINGS_KEY] = { endpoint: ENDPOINT };
  const alarms = { create: vi.fn(), clear: vi.fn() };
  const exporter = new OtlpExporter({
    db: () => Promise.resolve(db),
    local,
    session,
    managedEndpoint: () => Promise.resolve(undefined),
    hasOrigins: () => Promise.resolve(true),
    fetch,
    alarms,
    version: '0.1.0',
    random: () => 0.5,
    batchDelayMs: 1000,
    maxBatch: 3,
    ...deps,
  });
  let time = 1000;
  return {
    db,
    local,
    session,
    alarms,
    exporter,
    async log(count, at) {
      const records = Array.from({ length: count }, () => auditRecord(at ?? (time += 1)));
      await addBatch(db, records, RETENTION, time, await exporter.queueBound());
      exporter.recordsLogged();
    },
  };
}

/** Lets timers and IndexedDB (which runs on real setImmediate) make progress. */
async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

async function settle(condition: () => boolean | Promise<boolean>, stepMs = 100, maxSteps = 400) {
  for (let step = 0; step < maxSteps; step += 1) {
    if (await condition()) return;
    await advance(stepMs);
  }
  throw new Error('did not settle');
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('backoff', () => {
  it('waits between half and all of the doubling step, never beyond the cap', () => {
    const options = { baseMs: 1000, capMs: 60_000 };
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        (n, r) => {
          const step = Math.min(options.capMs, 1000 * 2 ** Math.min(n - 1, 30));
          const delay = backoffDelay(n, options, () => r);
          expect(delay).toBeGreaterThanOrEqual(step / 2);
          expect(delay).toBeLessThanOrEqual(step);
        },
      ),
      { numRuns: Math.min(PROPERTY_RUNS, 1000) },
    );
  });

  it('reads Retry-After in seconds, capped; anything else is not a delay', () => {
    const options = { baseMs: 1000, capMs: 60_000 };
    expect(retryAfterMs('7', options)).toBe(7000);
    expect(retryAfterMs('3600', options)).toBe(60_000);
    expect(retryAfterMs('Wed, 21 Oct 2026 07:28:00 GMT', options)).toBeUndefined();
    expect(retryAfterMs(null, options)).toBeUndefined();
  });
});

describe('OtlpExporter', () => {
  it('makes no request and queues nothing with no endpoint set', async () => {
    const { fetch } = endpoint();
    const local = new MemoryArea();
    const h = await harness(fetch, { local });
    await h.log(5);
    h.exporter.start();
    await advance(10_000);
    expect(fetch).not.toHaveBeenCalled();
    expect(await exportQueueState(h.db)).toEqual({ queued: 0, dropped: 0, droppedTotal: 0 });
    expect(h.alarms.create).not.toHaveBeenCalled();
  });

  it('batches records logged close together, at most maxBatch per request, oldest first', async () => {
    const { fetch, requests } = endpoint();
    const h = await harness(fetch);
    await h.log(2);
    await advance(500);
    await h.log(3);
    expect(fetch).not.toHaveBeenCalled();
    await settle(async () => (await exportQueueState(h.db)).queued === 0);
    await settle(() => h.alarms.clear.mock.calls.length > 0);
    expect(requests.map((r) => r.ids.length)).toEqual([3, 2]);
    const ids = requests.flatMap((r) => r.ids.map((id) => Number(id.split(':')[1])));
    expect(ids).toEqual([1, 2, 3, 4, 5]);
    expect(requests.every((r) => r.url === ENDPOINT)).toBe(true);
    expect(h.alarms.clear).toHaveBeenCalledWith(EXPORT_ALARM);
  });

  it('retries with growing waits and delivers every record exactly once after failures', async () => {
    const { fetch, requests } = endpoint(['network', 503, 500, 'network']);
    const h = await harness(fetch);
    await h.log(2);
    await settle(() => requests.length === 1);
    const times: number[] = [Date.now()];
    for (let attempt = 2; attempt <= 5; attempt += 1) {
      await settle(() => requests.length === attempt, 50);
      times.push(Date.now());
    }
    await settle(async () => (await exportQueueState(h.db)).queued === 0);
    const waits = times.slice(1).map((t, i) => t - times[i]!);
    // random() = 0.5: three quarters of 1 s, 2 s, 4 s, 8 s (within the polling step).
    expect(waits.map((w) => Math.round(w / 250) * 250)).toEqual([750, 1500, 3000, 6000]);
    const delivered = requests.slice(-1).flatMap((r) => r.ids);
    expect(delivered).toHaveLength(2);
    expect(new Set(requests.flatMap((r) => r.ids)).size).toBe(2);
    expect(h.alarms.create).toHaveBeenCalledWith(
      EXPORT_ALARM,
      expect.objectContaining({ when: expect.any(Number) }),
    );
    expect(h.local.data[EXPORT_STATUS_KEY]).toMatchObject({ queued: 0, endpoint: ENDPOINT });
  });

  it('a restarted worker waits out the backoff it inherits, then delivers what was queued', async () => {
    const down = endpoint(['network', 'network', 'network']);
    const first = await harness(down.fetch);
    await first.log(4);
    await settle(() => down.requests.length === 3, 50);
    // The worker stops: its timers are gone; only the stores and the alarm remain.
    vi.clearAllTimers();
    const up = endpoint();
    const second = await harness(up.fetch, {
      db: first.db,
      local: first.local,
      session: first.session,
    });
    second.exporter.start();
    await advance(100);
    expect(up.fetch).not.toHaveBeenCalled(); // still backing off (third wait: 3 s)
    second.exporter.onAlarm(EXPORT_ALARM);
    await settle(async () => (await exportQueueState(second.db)).queued === 0);
    const ids = up.requests.flatMap((r) => r.ids);
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
  });

  it('bounds the queue: the oldest are dropped, counted, reported once with the next batch', async () => {
    const { fetch, requests } = endpoint(['network']);
    const h = await harness(fetch, { queueBound: 5, maxBatch: 100 });
    await h.log(1);
    await settle(() => requests.length === 1);
    await h.log(6);
    expect(await exportQueueState(h.db)).toEqual({ queued: 5, dropped: 2, droppedTotal: 2 });
    await settle(async () => (await exportQueueState(h.db)).queued === 0, 100, 1000);
    expect(requests.at(-1)?.dropped).toBe(2);
    expect(requests.at(-1)?.ids.map((id) => Number(id.split(':')[1]))).toEqual([3, 4, 5, 6, 7]);
    expect(await exportQueueState(h.db)).toEqual({ queued: 0, dropped: 0, droppedTotal: 2 });
    await h.log(1);
    await settle(() => requests.length === 3);
    expect(requests.at(-1)?.dropped).toBeUndefined();
  });

  it('a batch the endpoint refuses for what it holds (400, 413) is dropped and counted, not retried', async () => {
    const { fetch, requests } = endpoint([400, 413]);
    const h = await harness(fetch, { maxBatch: 2 });
    await h.log(5);
    await settle(async () => (await exportQueueState(h.db)).queued === 0);
    // Two refused batches of two, then the fifth record delivered with the count.
    expect(requests.map((r) => r.ids.length)).toEqual([2, 2, 1]);
    expect(new Set(requests.flatMap((r) => r.ids)).size).toBe(5);
    expect(requests.at(-1)?.dropped).toBe(4);
    expect(await exportQueueState(h.db)).toEqual({ queued: 0, dropped: 0, droppedTotal: 4 });
    expect(h.local.data[EXPORT_STATUS_KEY]).toMatchObject({ droppedTotal: 4 });
  });

  it('keeps the records through failures that are not the batch fault (401, 500, 502)', async () => {
    const { fetch, requests } = endpoint([401, 500, 502]);
    const h = await harness(fetch);
    await h.log(2);
    await settle(() => requests.length === 4, 100, 1000);
    await settle(async () => (await exportQueueState(h.db)).queued === 0);
    expect(requests.every((r) => r.ids.length === 2)).toBe(true);
    expect(await exportQueueState(h.db)).toEqual({ queued: 0, dropped: 0, droppedTotal: 0 });
  });

  it('sends nothing without the endpoint host permission, and says so', async () => {
    const { fetch } = endpoint();
    const h = await harness(fetch, { hasOrigins: () => Promise.resolve(false) });
    await h.log(2);
    await advance(5000);
    expect(fetch).not.toHaveBeenCalled();
    expect(h.local.data[EXPORT_STATUS_KEY]).toMatchObject({ permissionMissing: true, queued: 2 });
  });

  it('prefers the organisation endpoint; with none left, keeps the queue and sends nothing', async () => {
    const { fetch, requests } = endpoint(['network']);
    const managed = 'https://collector.corp.example/v1/logs';
    const h = await harness(fetch, { managedEndpoint: () => Promise.resolve(managed) });
    await h.log(2);
    await settle(() => requests.length === 1);
    expect(requests[0]?.url).toBe(managed);
    // The policy is lifted and the worker restarts with no endpoint at all.
    vi.clearAllTimers();
    const off = await harness(fetch, { db: h.db, local: new MemoryArea(), session: h.session });
    await off.exporter.reconfigure();
    off.exporter.onAlarm(EXPORT_ALARM);
    await advance(60_000);
    expect(requests).toHaveLength(1);
    expect(await exportQueueState(h.db)).toMatchObject({ queued: 2 });
  });

  it('sends in the encoding in force, with its Content-Type: the organisation over the person', async () => {
    const { fetch, requests } = endpoint();
    const local = new MemoryArea();
    local.data[EXPORT_SETTINGS_KEY] = { endpoint: ENDPOINT, encoding: 'protobuf' };
    const h = await harness(fetch, { local });
    await h.log(2);
    await settle(() => requests.length === 1);
    expect(requests[0]).toMatchObject({ type: 'application/x-protobuf' });
    expect(requests[0]?.ids).toHaveLength(2);

    vi.clearAllTimers();
    const managed = await harness(fetch, {
      db: h.db,
      local,
      session: h.session,
      managedEncoding: () => Promise.resolve('json'),
    });
    await managed.log(1);
    await settle(() => requests.length === 2);
    expect(requests[1]).toMatchObject({ type: 'application/json' });
    expect(requests.flatMap((r) => r.ids)).toHaveLength(3);
  });
});
