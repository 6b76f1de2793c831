/**
 * Issue 21 §2: one audit record as an OpenTelemetry log record, and a batch of them
 * as an OTLP/HTTP request body. The model is the SDK's (`ReadableLogRecord`,
 * `Resource`) and the encoding the official transformer's (`JsonLogsSerializer`:
 * the OTLP/JSON mapping of ExportLogsServiceRequest; `ProtobufLogsSerializer`: its
 * binary protobuf encoding), not JSON of our own.
 *
 * What is exported is an allow-list of the record's fields (EXPORTED_ATTRIBUTES):
 * rule id, kind, action, site, direction, offsets, keyed digest, pack version and
 * time. Audit records hold no conversation text (DESIGN.md invariant 7); the ids of
 * the conversation, turn and stream and the tab are not exported either, and there
 * is no body. docs/deployment.md "Audit export" lists the attributes.
 */
import { SeverityNumber, type Attributes } from '@opentelemetry/api';
import { millisToHrTime } from '@opentelemetry/core';
import { JsonLogsSerializer, ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { StoredAuditRecord } from '../audit/audit-db.ts';
import type { OtlpEncoding } from './otlp-endpoint.ts';

export const OTLP_SERVICE_NAME = 'chat-stream-guard';
/** The instrumentation scope of every exported record. */
export const OTLP_SCOPE_NAME = 'chat-stream-guard.audit';
/** The log record's event name (OTLP LogRecord.event_name). */
export const OTLP_EVENT_NAME = 'csg.audit';

/** Every attribute a log record may carry: the test of the export checks against it. */
export const EXPORTED_ATTRIBUTES = [
  'csg.record.id',
  'csg.rule.id',
  'csg.rule.also',
  'csg.kind',
  'csg.action',
  'csg.site',
  'csg.direction',
  'csg.offset.start',
  'csg.offset.end',
  'csg.length',
  'csg.digest',
  'csg.pack.version',
] as const;

/** The scope attribute carrying how many records the queue's bound dropped since the last batch. */
export const DROPPED_ATTRIBUTE = 'csg.export.dropped_records';

export interface ExportIdentity {
  /** Random, made once per install and stored (otlp-install-id.ts). */
  installId: string;
  /** The extension's version (manifest). */
  version: string;
}

/** The resource every batch describes: the extension in one browser profile. */
export function exportResource(identity: ExportIdentity): Resource {
  return resourceFromAttributes({
    'service.name': OTLP_SERVICE_NAME,
    'service.version': identity.version,
    'service.instance.id': identity.installId,
  });
}

/** Severity by action: what was stopped is a warning, an error is an error. */
function severityOf(action: StoredAuditRecord['action']): SeverityNumber {
  if (action === 'error') return SeverityNumber.ERROR;
  if (action === 'block' || action === 'send-anyway') return SeverityNumber.WARN;
  return SeverityNumber.INFO;
}

/**
 * The record id is the install id and the log's own key: unique across installs,
 * and the same on every retry, so a receiver can drop a batch it already has.
 */
function attributesOf(record: StoredAuditRecord, installId: string): Attributes {
  const attributes: Attributes = {
    'csg.record.id': `${installId}:${record.id}`,
    'csg.rule.id': record.rule,
    'csg.kind': record.kind,
    'csg.action': record.action,
    'csg.site': record.site,
    'csg.direction': record.direction,
    'csg.offset.start': record.start,
    'csg.offset.end': record.end,
    'csg.length': record.length,
    'csg.digest': record.digest,
    'csg.pack.version': record.pack,
  };
  if (record.also !== undefined && record.also.length > 0) {
    attributes['csg.rule.also'] = [...record.also];
  }
  return attributes;
}

export function toLogRecord(
  record: StoredAuditRecord,
  identity: ExportIdentity,
  resource: Resource,
  scope: ReadableLogRecord['instrumentationScope'],
  observedAt: number,
): ReadableLogRecord {
  const severityNumber = severityOf(record.action);
  return {
    hrTime: millisToHrTime(record.time),
    hrTimeObserved: millisToHrTime(observedAt),
    severityNumber,
    severityText: SeverityNumber[severityNumber],
    eventName: OTLP_EVENT_NAME,
    resource,
    instrumentationScope: scope,
    attributes: attributesOf(record, identity.installId),
    droppedAttributesCount: 0,
  };
}

const SERIALIZERS = { json: JsonLogsSerializer, protobuf: ProtobufLogsSerializer };

/**
 * The body of one OTLP/HTTP export request for `records`, in `encoding` (the
 * request's Content-Type: OTLP_CONTENT_TYPES, otlp-endpoint.ts). `dropped` (records the
 * queue's bound dropped since the last delivered batch) rides on the scope, so a
 * receiver sees the gap with the next batch.
 */
export function exportRequestBody(
  records: readonly StoredAuditRecord[],
  identity: ExportIdentity,
  dropped: number,
  now: number,
  encoding: OtlpEncoding = 'json',
): Uint8Array {
  const resource = exportResource(identity);
  // One scope object per batch: the transformer groups records by scope identity.
  const scope: ReadableLogRecord['instrumentationScope'] = {
    name: OTLP_SCOPE_NAME,
    version: identity.version,
    ...(dropped > 0 ? { attributes: { [DROPPED_ATTRIBUTE]: dropped } } : {}),
  };
  const logs = records.map((record) => toLogRecord(record, identity, resource, scope, now));
  const body = SERIALIZERS[encoding].serializeRequest(logs);
  if (body === undefined) throw new Error('OTLP serialisation failed');
  return body;
}
