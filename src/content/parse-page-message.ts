/**
 * The bridge's validator for what arrives from the MAIN world. The port is
 * private (page-channel-handshake.ts), but the MAIN world shares its JavaScript
 * world with the page, so nothing it sends is trusted: every field is checked
 * for type, range and size, and a fresh object holding only the known fields is
 * returned. Anything else is `undefined` and dropped (src/protocol/page-channel.ts).
 *
 * The MAIN world sends only bytes, probes and requests to guard; what the guard
 * reports is produced here, in the ISOLATED world, so no report can be forged.
 */
import type { RequestShape, WireProbe } from '../core/wire/wire-event.ts';
import type { OutgoingRequest } from '../core/wire/requests/request-text.ts';
import {
  PAGE_CHANNEL_VERSION,
  type GuardKind,
  type PageToBridge,
} from '../protocol/page-channel.ts';

/** Size bounds: generous for real use, small enough that a flood stays cheap. */
export const PAGE_MESSAGE_LIMITS = {
  /** Ids (stream, request): random tokens. */
  id: 64,
  /** Short names: recogniser ids, hook names, methods. */
  name: 256,
  /** URLs and content types. */
  url: 16_384,
  /** A probe's head: the first decoded characters of a body. */
  head: 16_384,
  /** The bytes of one network chunk, the text of one socket message. */
  chunk: 16 * 1024 * 1024,
  /** A request body (a long conversation with long pastes). */
  body: 64 * 1024 * 1024,
  /** Hooks in `hello`. */
  list: 64,
} as const;

const ID_PATTERN = /^[A-Za-z0-9_-]+$/;
const KINDS: readonly GuardKind[] = ['wire', 'plain-text', 'socket'];

type Fields = Record<string, unknown>;

/**
 * The object's own enumerable fields, on an object without a prototype: nothing
 * inherited (a forged prototype, `__proto__`) can stand in for a missing field.
 */
function recordOf(value: unknown): Fields | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return Object.assign(Object.create(null) as Fields, value);
}

function isText(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length <= max;
}

/**
 * A byte array of at most `max` bytes. What crosses the port is a structured clone
 * (no proxy, no getter survives it); its class is read by its tag, which holds in
 * whichever realm the clone was made (the page's, in Firefox, seen through Xrays).
 */
function isBytes(value: unknown, max: number): value is Uint8Array {
  return (
    Object.prototype.toString.call(value) === '[object Uint8Array]' &&
    (value as Uint8Array).byteLength <= max
  );
}

function isId(value: unknown): value is string {
  return isText(value, PAGE_MESSAGE_LIMITS.id) && ID_PATTERN.test(value);
}

const REQUEST_SHAPES: readonly unknown[] = ['ai-sdk-ui', 'ai-sdk-v4'] satisfies RequestShape[];

/**
 * A probe's marker headers (fetch-hook.ts `markerHeadersOf`): a few short
 * name → value strings; `null` when malformed. The recognisers read them, so
 * dropping them here would make the bridge refuse what the MAIN world claimed.
 */
function parseHeaders(input: unknown): Record<string, string> | null {
  const value = recordOf(input);
  if (!value) return null;
  const entries = Object.entries(value);
  if (entries.length > PAGE_MESSAGE_LIMITS.list) return null;
  // No prototype: a `__proto__` name is a header like any other.
  const headers = Object.create(null) as Record<string, string>;
  for (const [name, text] of entries) {
    if (!isText(text, PAGE_MESSAGE_LIMITS.name) || name.length > PAGE_MESSAGE_LIMITS.name) {
      return null;
    }
    headers[name] = text;
  }
  return headers;
}

function parseProbe(input: unknown): WireProbe | undefined {
  const value = recordOf(input);
  if (!value) return undefined;
  const { url, method, contentType, head, chatRequest, requestShape } = value;
  if (!isText(url, PAGE_MESSAGE_LIMITS.url) || !isText(contentType, PAGE_MESSAGE_LIMITS.url)) {
    return undefined;
  }
  if (!isText(head, PAGE_MESSAGE_LIMITS.head)) return undefined;
  if (method !== undefined && !isText(method, PAGE_MESSAGE_LIMITS.name)) return undefined;
  if (chatRequest !== undefined && typeof chatRequest !== 'boolean') return undefined;
  if (requestShape !== undefined && !REQUEST_SHAPES.includes(requestShape)) return undefined;
  const headers = value.headers === undefined ? undefined : parseHeaders(value.headers);
  if (headers === null) return undefined;
  const probe: WireProbe = { url, contentType, head };
  if (method !== undefined) probe.method = method;
  // Only ever widens what is guarded: a forged `true` asks for more guarding, not less.
  if (chatRequest === true) probe.chatRequest = true;
  // The request's client and the marker headers (issue 20 §1, sent by fetch-hook.ts
  // `probeWith`): without them the bridge's own detection refused the AI SDK text
  // stream (known by its request alone) and failed the page's answer closed.
  if (requestShape !== undefined) probe.requestShape = requestShape as RequestShape;
  if (headers !== undefined) probe.headers = headers;
  return probe;
}

function parseRequest(input: unknown): OutgoingRequest | undefined {
  const value = recordOf(input);
  if (!value) return undefined;
  const { url, method, contentType } = value;
  if (!isText(url, PAGE_MESSAGE_LIMITS.url) || !isText(method, PAGE_MESSAGE_LIMITS.name)) {
    return undefined;
  }
  if (!isText(contentType, PAGE_MESSAGE_LIMITS.url)) return undefined;
  return { url, method, contentType };
}

export function parsePageMessage(input: unknown): PageToBridge | undefined {
  const value = recordOf(input);
  if (!value || value.v !== PAGE_CHANNEL_VERSION) return undefined;
  const { streamId } = value;
  switch (value.type) {
    case 'hello': {
      const { hooks } = value;
      if (!Array.isArray(hooks) || hooks.length > PAGE_MESSAGE_LIMITS.list) return undefined;
      if (!hooks.every((h) => isText(h, PAGE_MESSAGE_LIMITS.name))) return undefined;
      return { v: 1, type: 'hello', hooks: [...(hooks as string[])] };
    }
    case 'guard-open': {
      const { kind, recogniser } = value;
      const probe = parseProbe(value.probe);
      if (!isId(streamId) || !probe || !isText(recogniser, PAGE_MESSAGE_LIMITS.name)) {
        return undefined;
      }
      if (!(KINDS as readonly unknown[]).includes(kind)) return undefined;
      return { v: 1, type: 'guard-open', streamId, kind: kind as GuardKind, recogniser, probe };
    }
    case 'guard-chunk': {
      const { bytes, last } = value;
      if (!isId(streamId) || !isBytes(bytes, PAGE_MESSAGE_LIMITS.chunk)) return undefined;
      if (typeof last !== 'boolean') return undefined;
      return { v: 1, type: 'guard-chunk', streamId, bytes, last };
    }
    case 'guard-message': {
      const { message } = value;
      if (!isId(streamId) || !isText(message, PAGE_MESSAGE_LIMITS.chunk)) return undefined;
      return { v: 1, type: 'guard-message', streamId, message };
    }
    case 'guard-close':
    case 'guard-cancel':
      return isId(streamId) ? { v: 1, type: value.type, streamId } : undefined;
    case 'hook-failed': {
      const { hook, reason } = value;
      if (!isId(hook) || !isId(reason)) return undefined;
      return { v: 1, type: 'hook-failed', hook, reason };
    }
    case 'request-guard': {
      const { requestId, body } = value;
      const request = parseRequest(value.request);
      if (!isId(requestId) || !request || !isText(body, PAGE_MESSAGE_LIMITS.body)) {
        return undefined;
      }
      return { v: 1, type: 'request-guard', requestId, request, body };
    }
    case 'request-answered': {
      const { requestId, status } = value;
      if (!isId(requestId) || !Number.isInteger(status)) return undefined;
      if ((status as number) < 100 || (status as number) > 599) return undefined;
      return { v: 1, type: 'request-answered', requestId, status: status as number };
    }
    default:
      return undefined;
  }
}
