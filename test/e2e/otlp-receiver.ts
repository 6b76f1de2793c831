/**
 * A loopback OTLP/HTTP logs receiver for the e2e tests (issue 21 §3): accepts
 * `POST /v1/logs` with the OTLP/JSON encoding (opentelemetry-proto, "JSON Protobuf
 * Encoding" of `ExportLogsServiceRequest`: lowerCamelCase field names, 64-bit
 * integers as decimal strings or numbers, `AnyValue` as a one-key object), decodes
 * every log record and keeps them with the raw bodies. A request it cannot decode
 * is answered 400 and remembered, so the test sees it.
 *
 * `down()` makes the endpoint unreachable (every connection is reset, as when a
 * Collector is gone); `up()` brings it back.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

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

export interface OtlpReceiver {
  url: string;
  records: DecodedLogRecord[];
  rawBodies: string[];
  /** Requests answered (2xx or 400), and connections reset while down. */
  requests: { accepted: number; rejected: number; reset: number };
  down(): void;
  up(): void;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function list(value: unknown, what: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new Error(`${what} is not a list`);
  return value;
}

function int64(value: unknown, what: string): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  throw new Error(`${what} is not an int64`);
}

/** `AnyValue`: exactly one of its fields (an empty object is an unset value). */
function anyValue(value: unknown): DecodedValue {
  if (!isObject(value)) throw new Error('AnyValue is not an object');
  const keys = Object.keys(value);
  if (keys.length === 0) return null;
  if (keys.length !== 1) throw new Error(`AnyValue has ${keys.length} fields`);
  const v = value[keys[0]!];
  switch (keys[0]) {
    case 'stringValue':
      if (typeof v !== 'string') throw new Error('stringValue');
      return v;
    case 'boolValue':
      if (typeof v !== 'boolean') throw new Error('boolValue');
      return v;
    case 'intValue':
      return Number(int64(v, 'intValue'));
    case 'doubleValue':
      if (typeof v !== 'number') throw new Error('doubleValue');
      return v;
    case 'arrayValue':
      if (!isObject(v)) throw new Error('arrayValue');
      return list(v.values, 'arrayValue.values').map(anyValue);
    default:
      throw new Error(`AnyValue field ${keys[0]} not expected here`);
  }
}

/** `repeated KeyValue`. */
function keyValues(value: unknown): Record<string, DecodedValue> {
  const out: Record<string, DecodedValue> = {};
  for (const entry of list(value, 'attributes')) {
    if (!isObject(entry) || typeof entry.key !== 'string') throw new Error('KeyValue');
    if (entry.key in out) throw new Error(`duplicate attribute ${entry.key}`);
    out[entry.key] = anyValue(entry.value ?? {});
  }
  return out;
}

/** Decodes one `ExportLogsServiceRequest` in the OTLP/JSON encoding. */
export function decodeLogsRequest(text: string): DecodedLogRecord[] {
  const request: unknown = JSON.parse(text);
  if (!isObject(request)) throw new Error('request is not an object');
  const records: DecodedLogRecord[] = [];
  for (const resourceLogs of list(request.resourceLogs, 'resourceLogs')) {
    if (!isObject(resourceLogs)) throw new Error('ResourceLogs');
    const resource = keyValues(
      isObject(resourceLogs.resource) ? resourceLogs.resource.attributes : [],
    );
    for (const scopeLogs of list(resourceLogs.scopeLogs, 'scopeLogs')) {
      if (!isObject(scopeLogs) || !isObject(scopeLogs.scope)) throw new Error('ScopeLogs');
      const scope = {
        name: String(scopeLogs.scope.name ?? ''),
        version: String(scopeLogs.scope.version ?? ''),
        attributes: keyValues(scopeLogs.scope.attributes),
      };
      for (const log of list(scopeLogs.logRecords, 'logRecords')) {
        if (!isObject(log)) throw new Error('LogRecord');
        records.push({
          resource,
          scope,
          timeUnixNano: int64(log.timeUnixNano, 'timeUnixNano'),
          severityNumber: Number(log.severityNumber ?? 0),
          eventName: String(log.eventName ?? ''),
          attributes: keyValues(log.attributes),
          hasBody: log.body !== undefined && anyValue(log.body) !== null,
        });
      }
    }
  }
  return records;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const records: DecodedLogRecord[] = [];
  const rawBodies: string[] = [];
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
      const text = Buffer.concat(chunks).toString('utf8');
      const typeOk = request.headers['content-type'] === 'application/json';
      try {
        if (request.method !== 'POST' || request.url !== '/v1/logs' || !typeOk) {
          throw new Error('not an OTLP/HTTP JSON logs request');
        }
        const decoded = decodeLogsRequest(text);
        rawBodies.push(text);
        records.push(...decoded);
        requests.accepted += 1;
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end('{}');
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
