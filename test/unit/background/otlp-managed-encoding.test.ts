/**
 * Issue 21 §1 and §2 together, in the background: the organisation's
 * `auditExport.encoding` is the one the export uses (over the person's), and a
 * malformed one is ignored, logged as an audit record like any ignored managed
 * value, and leaves the person's choice in force. The ignored value's own audit
 * record is what gets exported, so the request shows which encoding is in force.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it, vi } from 'vitest';
import { openAuditDb } from '../../../src/audit/audit-db.ts';
import { GuardBackground } from '../../../src/background/guard-background.ts';
import { EXPORT_SETTINGS_KEY } from '../../../src/background/otlp-exporter.ts';
import { decodeLogsRequest, type OtlpEncoding } from '../../e2e/otlp-receiver.ts';

const ENDPOINT = 'https://otel.example.org/v1/logs';
const self = { id: 'csg-id', baseUrl: 'chrome-extension://csg-id/' };
let dbCounter = 0;

/** The background with `policy` in force and the person's `own` export settings. */
async function exportUnder(policy: unknown, own: Record<string, unknown>) {
  const data: Record<string, unknown> = { [EXPORT_SETTINGS_KEY]: own };
  const sent: { encoding: OtlpEncoding; rules: string[] }[] = [];
  const fetch = vi.fn(async (_url: string | URL | Request, init?: RequestInit) => {
    const type = new Headers(init?.headers).get('Content-Type');
    const encoding: OtlpEncoding = type === 'application/x-protobuf' ? 'protobuf' : 'json';
    const logs = decodeLogsRequest(init?.body as Uint8Array, encoding);
    sent.push({ encoding, rules: logs.map((log) => String(log.attributes['csg.rule.id'])) });
    return new Response('{}', { status: 200 });
  });
  const background = new GuardBackground({
    storage: {
      get: async (key: string) => (key in data ? { [key]: structuredClone(data[key]) } : {}),
      set: async (items: Record<string, unknown>) =>
        void Object.assign(data, structuredClone(items)),
    },
    managed: { get: async () => structuredClone(policy) as Record<string, unknown> },
    scripting: {
      getRegisteredContentScripts: async () => [],
      registerContentScripts: async () => undefined,
      unregisterContentScripts: async () => undefined,
    },
    hasOrigins: async () => true,
    setBadge: async () => undefined,
    tabUrl: async () => undefined,
    identity: () => self,
    openPopup: async () => false,
    openDb: () => openAuditDb(`csg-otlp-managed-${++dbCounter}`),
    batchDelayMs: 5,
    otlp: { fetch, version: '0.1.0', batchDelayMs: 5 },
  });
  await background.start();
  await background.resync();
  await vi.waitFor(() => expect(sent.length).toBeGreaterThan(0), { timeout: 10_000 });
  return sent;
}

// The first start compiles the built-in packs: seconds, not milliseconds.
describe('the export encoding under a managed policy', { timeout: 20_000 }, () => {
  it('uses the organisation encoding over the person one', async () => {
    const sent = await exportUnder(
      { auditExport: { endpoint: ENDPOINT, encoding: 'protobuf', headers: {} } },
      { endpoint: ENDPOINT, encoding: 'json' },
    );
    expect(sent).toEqual([{ encoding: 'protobuf', rules: ['managed-policy/auditExport.headers'] }]);
  });

  it('ignores a malformed one with an audit record, and keeps the person choice', async () => {
    const sent = await exportUnder(
      { auditExport: { endpoint: ENDPOINT, encoding: 'grpc' } },
      { endpoint: ENDPOINT, encoding: 'protobuf' },
    );
    expect(sent).toEqual([
      { encoding: 'protobuf', rules: ['managed-policy/auditExport.encoding'] },
    ]);
  });
});
