/**
 * Issue 21 §2: the OTLP log record of an audit record, decoded back from the body
 * the official serializers wrote (OTLP/JSON and binary protobuf) with the official
 * protocol definitions (test/e2e/otlp-receiver.ts), and the guarantee that no
 * conversation text reaches the export in either encoding.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoredAuditRecord } from '../../../src/audit/audit-db.ts';
import { createDigester, newAuditKeyHex } from '../../../src/audit/audit-digest.ts';
import { recordsFromGuardEvents } from '../../../src/background/audit-records.ts';
import {
  DROPPED_ATTRIBUTE,
  EXPORTED_ATTRIBUTES,
  exportRequestBody,
} from '../../../src/background/otlp-log-record.ts';
import type { AuditRecord } from '../../../src/protocol/runtime-messages.ts';
import { decodeLogsRequest } from '../../e2e/otlp-receiver.ts';
import type { OtlpEncoding } from '../../../src/background/otlp-endpoint.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';
import { auditRecord } from '../audit/audit-records.ts';

const IDENTITY = { installId: '3f0e6c1a-5b2d-4c8e-9a7f-1d2e3f4a5b6c', version: '0.1.0' };
const decode = (body: Uint8Array) => decodeLogsRequest(new TextDecoder().decode(body));
const ENCODINGS: OtlpEncoding[] = ['json', 'protobuf'];

describe('exportRequestBody', () => {
  it('maps each field of the record to its attribute, with the resource and the scope', () => {
    const record: StoredAuditRecord = {
      ...auditRecord(Date.UTC(2026, 11, 2, 10, 0, 0, 123), { also: ['aws-key'] }),
      id: 42,
    };
    const [log, ...rest] = decode(exportRequestBody([record], IDENTITY, 0, record.time + 5));
    expect(rest).toEqual([]);
    expect(log?.resource).toEqual({
      'service.name': 'chat-stream-guard',
      'service.version': '0.1.0',
      'service.instance.id': IDENTITY.installId,
    });
    expect(log?.scope).toEqual({
      name: 'chat-stream-guard.audit',
      version: '0.1.0',
      attributes: {},
    });
    expect(log?.timeUnixNano).toBe(BigInt(record.time) * 1_000_000n);
    expect(log?.eventName).toBe('csg.audit');
    expect(log?.severityNumber).toBe(9); // INFO: a redaction
    expect(log?.hasBody).toBe(false);
    expect(log?.attributes).toEqual({
      'csg.record.id': `${IDENTITY.installId}:42`,
      'csg.rule.id': 'github-pat',
      'csg.rule.also': ['aws-key'],
      'csg.kind': 'secret',
      'csg.action': 'redact',
      'csg.site': 'chatgpt.com',
      'csg.direction': 'in',
      'csg.offset.start': 10,
      'csg.offset.end': 50,
      'csg.length': 40,
      'csg.digest': '0123456789abcdef0123456789abcdef',
      'csg.pack.version': 'core',
    });
  });

  it('puts the dropped count on the batch (the scope), only when there is one', () => {
    const records = [1, 2, 3].map((id) => ({ ...auditRecord(id * 1000), id }));
    const logs = decode(exportRequestBody(records, IDENTITY, 7, 5000));
    expect(logs.map((log) => log.scope.attributes)).toEqual([
      { [DROPPED_ATTRIBUTE]: 7 },
      { [DROPPED_ATTRIBUTE]: 7 },
      { [DROPPED_ATTRIBUTE]: 7 },
    ]);
    expect(logs.map((log) => log.attributes['csg.record.id'])).toEqual(
      [1, 2, 3].map((id) => `${IDENTITY.installId}:${id}`),
    );
  });

  it('grades severity by action: blocks and send-anyway warn, errors are errors', () => {
    const actions: AuditRecord['action'][] = ['flag', 'block', 'send-anyway', 'error'];
    const records = actions.map((action, id) => ({ ...auditRecord(1000, { action }), id }));
    const logs = decode(exportRequestBody(records, IDENTITY, 0, 1000));
    expect(logs.map((log) => log.severityNumber)).toEqual([9, 13, 13, 17]);
  });

  it('says the same in binary protobuf as in OTLP/JSON', () => {
    const records = [1, 2].map((id) => ({ ...auditRecord(id * 1000, { also: ['x'] }), id }));
    const json = exportRequestBody(records, IDENTITY, 4, 5000, 'json');
    const protobuf = exportRequestBody(records, IDENTITY, 4, 5000, 'protobuf');
    // Not JSON text: a protobuf body starts with field 1 (resource_logs), wire type 2.
    expect(protobuf[0]).toBe(0x0a);
    expect(decodeLogsRequest(protobuf, 'protobuf')).toEqual(decode(json));
    expect(() => decodeLogsRequest(json, 'protobuf')).toThrow();
    expect(() => decodeLogsRequest(protobuf, 'json')).toThrow();
  });
});

describe('the receiver decodes strictly (test/e2e/otlp-receiver.ts)', () => {
  const body = () =>
    JSON.parse(
      new TextDecoder().decode(
        exportRequestBody([{ ...auditRecord(1000), id: 1 }], IDENTITY, 0, 1),
      ),
    ) as {
      resourceLogs: { scopeLogs: { logRecords: Record<string, unknown>[] }[] }[];
    };
  const firstLog = (request: ReturnType<typeof body>) =>
    request.resourceLogs[0]!.scopeLogs[0]!.logRecords[0]!;

  it('takes 64-bit integers as numbers or strings, and trace ids as hex', () => {
    const request = body();
    const log = firstLog(request);
    log.timeUnixNano = 1_000_000;
    log.traceId = '5b8efff798038103d269b633813fc60c';
    log.spanId = 'eee19b7ec3c1b174';
    expect(decodeLogsRequest(JSON.stringify(request))[0]?.timeUnixNano).toBe(1_000_000n);
  });

  it.each([
    ['an unknown field', (log: Record<string, unknown>) => (log.text = 'hello')],
    ['a snake_case field', (log: Record<string, unknown>) => (log.event_name = 'csg.audit')],
    ['a number where a string belongs', (log: Record<string, unknown>) => (log.eventName = 7)],
    [
      'a 64-bit integer that is no number',
      (log: Record<string, unknown>) => (log.timeUnixNano = 'soon'),
    ],
    [
      'a trace id in base64',
      (log: Record<string, unknown>) => (log.traceId = 'W47/95gDgQPSabYzgT/GDA=='),
    ],
    ['a list where an object belongs', (log: Record<string, unknown>) => (log.body = [])],
  ])('refuses %s', (_, spoil) => {
    const request = body();
    spoil(firstLog(request));
    expect(() => decodeLogsRequest(JSON.stringify(request))).toThrow();
  });
});

describe('no conversation text reaches the export', () => {
  /** Every string field of a record holds a marker naming it. */
  function markedRecord(): StoredAuditRecord {
    const record = auditRecord(1000) as unknown as Record<string, unknown>;
    for (const [field, value] of Object.entries(record)) {
      if (typeof value === 'string') record[field] = `MARK-${field}-MARK`;
    }
    return { ...(record as unknown as AuditRecord), also: ['MARK-also-MARK'], id: 1 };
  }

  it('exports only the allow-listed attributes, and no other field of the record', () => {
    const body = new TextDecoder().decode(exportRequestBody([markedRecord()], IDENTITY, 0, 1));
    const exported = [...body.matchAll(/MARK-(\w+)-MARK/g)].map((m) => m[1]).sort();
    // conversationId, turnId, streamId and format name the conversation or the wire: not exported.
    expect(exported).toEqual([
      'action',
      'also',
      'digest',
      'direction',
      'kind',
      'pack',
      'rule',
      'site',
    ]);
    const [log] = decodeLogsRequest(body);
    const allowed: readonly string[] = EXPORTED_ATTRIBUTES;
    expect(Object.keys(log?.attributes ?? {}).filter((key) => !allowed.includes(key))).toEqual([]);
  });

  it('for any matched text and conversation id, the request built from the guard events holds neither', async () => {
    const digest = await createDigester(newAuditKeyHex());
    // A run of 12+ letters and digits marks the text: no attribute name or value holds one
    // by chance (the digest is 32 hex digits; 12 of them match with odds below 1e-13).
    const marked = fc
      .tuple(
        fc.string({ maxLength: 30 }),
        fc.stringMatching(/^[G-Zg-z][A-Za-z0-9]{11,23}$/),
        fc.string({ maxLength: 30 }),
      )
      .map(([before, core, after]) => ({ text: before + core + after, core }));
    await fc.assert(
      fc.asyncProperty(
        marked,
        marked,
        fc.constantFrom(...ENCODINGS),
        async (matched, conversation, encoding) => {
          const records = await recordsFromGuardEvents(
            [
              {
                type: 'match',
                rule: 'github-pat',
                kind: 'secret',
                action: 'redact',
                start: 3,
                end: 3 + matched.text.length,
                pack: 'core@1.0.0',
                matched: matched.text,
              },
            ],
            {
              streamId: 's-1',
              direction: 'in',
              format: 'openai-chat',
              conversationId: conversation.text,
              turnId: 't',
            },
            { tabId: 1, frameId: 0, site: 'chatgpt.com' },
            digest,
            1000,
          );
          const stored = records.map((record, index) => ({ ...record, id: index + 1 }));
          const body = new TextDecoder().decode(
            exportRequestBody(stored, IDENTITY, 0, 1000, encoding),
          );
          expect(body).not.toContain(matched.core);
          expect(body).not.toContain(conversation.core);
        },
      ),
      { numRuns: Math.min(PROPERTY_RUNS, 500) },
    );
  });
});
