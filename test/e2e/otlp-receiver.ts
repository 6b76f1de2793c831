/**
 * A loopback OTLP/HTTP logs receiver for the e2e tests (issue 21 §3): accepts
 * `POST /v1/logs` in either OTLP/HTTP encoding and decodes it with the official
 * OpenTelemetry protocol definitions: the protobufjs code generated from
 * opentelemetry-proto that `@opentelemetry/otlp-transformer` 0.214.0 ships
 * (package.json devDependency `otlp-proto-definitions`; the last release that
 * ships the logs definitions, docs/deployment.md "Audit export").
 *
 * - `application/x-protobuf`: `ExportLogsServiceRequest.decode`, then `verify`.
 * - `application/json`: the OTLP/JSON mapping (OTLP specification, "JSON Protobuf
 *   Encoding": lowerCamelCase field names, which protobufjs uses too; enums as
 *   integers; 64-bit integers as decimal strings or numbers; trace and span ids as
 *   hex, not base64) through `ExportLogsServiceRequest.fromObject`, then `verify`.
 *   `fromObject` coerces what it does not understand, so the message is converted
 *   back (`toObject`) and must give the body that arrived: an unknown field, a
 *   misspelt one or a value of the wrong type does not survive that.
 *
 * A request that does not decode or verify is answered 400 and counted, so the
 * test sees it. `down()` makes the endpoint unreachable (every connection is reset,
 * as when a Collector is gone); `up()` brings it back.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import protoRoot from 'otlp-proto-definitions/build/src/generated/root.js';

export type DecodedValue = string | number | boolean | DecodedValue[] | null;

export interface DecodedLogRecord {
  resource: Record<string, DecodedValue>;
  scope: { name: string; version: string; attributes: Record<string, DecodedValue> };
  timeUnixNano: bigint;
  severityNumber: number;
  eventName: string;
  attributes: Record<string, DecodedValue>;
  hasBody: boolean;
}

export type OtlpEncoding = 'json' | 'protobuf';

export interface OtlpReceiver {
  url: string;
  records: DecodedLogRecord[];
  /** Every accepted body as UTF-8 text (protobuf too: its strings are UTF-8, to search for them). */
  rawBodies: string[];
  /** Accepted requests by content type. */
  encodings: Record<OtlpEncoding, number>;
  /** Requests answered (2xx or 400), and connections reset while down. */
  requests: { accepted: number; rejected: number; reset: number };
  down(): void;
  up(): void;
  close(): Promise<void>;
}

type Plain = Record<string, unknown>;

/** The part of protobufjs's generated static type the receiver uses (root.d.ts types it loosely). */
interface MessageType {
  decode(bytes: Uint8Array): object;
  fromObject(object: Plain): object;
  verify(message: object): string | null;
  toObject(message: object, options: Plain): Plain;
}

const { ExportLogsServiceRequest } = (
  protoRoot as unknown as {
    opentelemetry: {
      proto: { collector: { logs: { v1: { ExportLogsServiceRequest: MessageType } } } };
    };
  }
).opentelemetry.proto.collector.logs.v1;

/** The OTLP/JSON shape of a message: 64-bit integers as decimal strings, enums as numbers. */
const JSON_MAPPING = { longs: String, enums: Number, bytes: String, defaults: false };

function isPlain(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** OTLP/JSON writes trace and span ids as hex; protobufjs reads bytes from base64. */
function idsToBase64(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => idsToBase64(item));
  if (isPlain(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, idsToBase64(v, k)]));
  }
  if ((key === 'traceId' || key === 'spanId') && typeof value === 'string') {
    if (!/^(?:[0-9a-fA-F]{2})*$/.test(value)) throw new Error(`${key} is not hex`);
    return Buffer.from(value, 'hex').toString('base64');
  }
  return value;
}

/** The 64-bit integer fields of ExportLogsServiceRequest (logs.proto, common.proto). */
const INT64_FIELDS = new Set(['timeUnixNano', 'observedTimeUnixNano', 'intValue']);

/**
 * True when `canonical` (the decoded message as OTLP/JSON) says what `sent` said.
 * Allowed differences are the ones the mapping allows: a 64-bit integer as a number
 * or a string, and an empty list written or left out.
 */
function sameMessage(sent: unknown, canonical: unknown, key = ''): boolean {
  if (Array.isArray(sent)) {
    return (
      Array.isArray(canonical) &&
      sent.length === canonical.length &&
      sent.every((item, index) => sameMessage(item, canonical[index]))
    );
  }
  if (isPlain(sent)) {
    if (!isPlain(canonical)) return false;
    const keys = Object.keys(sent).filter((key) => !isEmptyList(sent[key]));
    return (
      keys.length === Object.keys(canonical).length &&
      keys.every((k) => k in canonical && sameMessage(sent[k], canonical[k], k))
    );
  }
  if (INT64_FIELDS.has(key) && typeof sent === 'number' && typeof canonical === 'string') {
    return Number.isSafeInteger(sent) && String(sent) === canonical;
  }
  return Object.is(sent, canonical);
}

function isEmptyList(value: unknown): boolean {
  return Array.isArray(value) && value.length === 0;
}

/** Decodes and verifies one body; the request as OTLP/JSON-shaped plain data. */
export function decodeExportRequest(body: Buffer, encoding: OtlpEncoding): Plain {
  let message: object;
  if (encoding === 'protobuf') {
    message = ExportLogsServiceRequest.decode(body);
  } else {
    const sent = idsToBase64(JSON.parse(body.toString('utf8')) as unknown);
    if (!isPlain(sent)) throw new Error('request is not an object');
    message = ExportLogsServiceRequest.fromObject(sent);
    if (!sameMessage(sent, ExportLogsServiceRequest.toObject(message, JSON_MAPPING))) {
      throw new Error('the body holds what ExportLogsServiceRequest does not');
    }
  }
  const problem = ExportLogsServiceRequest.verify(message);
  if (problem !== null) throw new Error(problem);
  return ExportLogsServiceRequest.toObject(message, JSON_MAPPING);
}

function list(value: unknown): Plain[] {
  return Array.isArray(value) ? value.filter(isPlain) : [];
}

/** An `AnyValue` (decoded and verified: at most one field set). */
function anyValue(value: unknown): DecodedValue {
  if (!isPlain(value)) return null;
  if (typeof value.stringValue === 'string') return value.stringValue;
  if (typeof value.boolValue === 'boolean') return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (typeof value.doubleValue === 'number') return value.doubleValue;
  if (isPlain(value.arrayValue)) return list(value.arrayValue.values).map(anyValue);
  if (Object.keys(value).length === 0) return null;
  throw new Error(`AnyValue ${Object.keys(value).join()} not expected here`);
}

function keyValues(value: unknown): Record<string, DecodedValue> {
  const out: Record<string, DecodedValue> = {};
  for (const entry of list(value)) {
    const key = String(entry.key);
    if (key in out) throw new Error(`duplicate attribute ${key}`);
    out[key] = anyValue(entry.value);
  }
  return out;
}

/** The log records of a decoded request, with their resource and scope. */
export function logRecordsOf(request: Plain): DecodedLogRecord[] {
  const records: DecodedLogRecord[] = [];
  for (const resourceLogs of list(request.resourceLogs)) {
    const resource = keyValues(
      isPlain(resourceLogs.resource) ? resourceLogs.resource.attributes : [],
    );
    for (const scopeLogs of list(resourceLogs.scopeLogs)) {
      const scope = isPlain(scopeLogs.scope) ? scopeLogs.scope : {};
      const decodedScope = {
        name: String(scope.name ?? ''),
        version: String(scope.version ?? ''),
        attributes: keyValues(scope.attributes),
      };
      for (const log of list(scopeLogs.logRecords)) {
        records.push({
          resource,
          scope: decodedScope,
          timeUnixNano: BigInt(String(log.timeUnixNano ?? '0')),
          severityNumber: Number(log.severityNumber ?? 0),
          eventName: String(log.eventName ?? ''),
          attributes: keyValues(log.attributes),
          hasBody: anyValue(log.body) !== null,
        });
      }
    }
  }
  return records;
}

/** Decodes, verifies and reads one request body (a string: JSON text). */
export function decodeLogsRequest(
  body: Uint8Array | string,
  encoding: OtlpEncoding = 'json',
): DecodedLogRecord[] {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  return logRecordsOf(decodeExportRequest(bytes, encoding));
}

const CONTENT_TYPES: Record<string, OtlpEncoding> = {
  'application/json': 'json',
  'application/x-protobuf': 'protobuf',
};

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const records: DecodedLogRecord[] = [];
  const rawBodies: string[] = [];
  const encodings: Record<OtlpEncoding, number> = { json: 0, protobuf: 0 };
  const requests = { accepted: 0, rejected: 0, reset: 0 };
  const sockets = new Set<Socket>();
  let isDown = false;
  const server: Server = createServer((request, response) => {
    if (isDown) {
      requests.reset += 1;
      request.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const encoding = CONTENT_TYPES[request.headers['content-type'] ?? ''];
      try {
        if (request.method !== 'POST' || request.url !== '/v1/logs' || encoding === undefined) {
          throw new Error('not an OTLP/HTTP logs request');
        }
        const decoded = decodeLogsRequest(body, encoding);
        rawBodies.push(body.toString('utf8'));
        records.push(...decoded);
        encodings[encoding] += 1;
        requests.accepted += 1;
        // An empty ExportLogsServiceResponse in the request's encoding (OTLP/HTTP "Response").
        response.writeHead(200, { 'Content-Type': request.headers['content-type'] });
        response.end(encoding === 'json' ? '{}' : '');
      } catch {
        requests.rejected += 1;
        response.writeHead(400).end();
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    if (isDown) {
      requests.reset += 1;
      socket.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/logs`,
    records,
    rawBodies,
    encodings,
    requests,
    down() {
      isDown = true;
      for (const socket of sockets) socket.destroy();
    },
    up() {
      isDown = false;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
