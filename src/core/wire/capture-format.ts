/**
 * What a captured response body is, judged from its first characters alone
 * (when no `Content-Type` header came with it, e.g. `csg replay body.sse`):
 * the content type a server would have sent, and the WireProbe that adapter
 * detection takes. The adapters decide the provider; this only names the framing.
 *
 * - `)]}'` first: Gemini web's length-prefixed frames behind the anti-hijacking
 *   prefix (served as JSON);
 * - an SSE field line (`data:`, `event:`, `id:`, `retry:`) or comment (`:`) first:
 *   `text/event-stream`;
 * - a first line that is a whole JSON value, followed by another JSON line:
 *   NDJSON (`application/x-ndjson`, Ollama);
 * - otherwise JSON when it opens like JSON, else `text/plain`.
 */
import type { RequestShape, WireProbe } from './wire-event.ts';

/** How much of the body a probe carries (WireProbe.head). */
export const PROBE_HEAD_CHARS = 1024;

/** A first NDJSON line longer than this is not parsed: such a body is sniffed as JSON. */
const MAX_FIRST_LINE = 1 << 20;

const SSE_FIRST_LINE = /^(?:(?:data|event|id|retry)[ \t]*:|:)/;

export type SniffedContentType =
  'text/event-stream' | 'application/x-ndjson' | 'application/json' | 'text/plain';

function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function isJsonLine(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

function looksLikeNdjson(body: string): boolean {
  const firstEnd = body.indexOf('\n');
  if (firstEnd === -1 || firstEnd > MAX_FIRST_LINE) return false;
  const first = body.slice(0, firstEnd).trim();
  if (!first.startsWith('{') || !isJsonLine(first)) return false;
  const rest = body.slice(firstEnd + 1).trimStart();
  return rest.startsWith('{');
}

/** The content type a body's opening characters show (see the module comment). */
export function sniffContentType(text: string): SniffedContentType {
  const body = withoutBom(text).trimStart();
  if (body.startsWith(")]}'")) return 'application/json';
  if (SSE_FIRST_LINE.test(body)) return 'text/event-stream';
  if (body.startsWith('{') && looksLikeNdjson(body)) return 'application/x-ndjson';
  if (body.startsWith('{') || body.startsWith('[')) return 'application/json';
  return 'text/plain';
}

export interface CaptureFacts {
  /** The decoded body (all of it, or at least its first PROBE_HEAD_CHARS characters). */
  text: string;
  url?: string;
  method?: string;
  /** The recorded content type; sniffed from `text` when absent or empty. */
  contentType?: string;
  /** The recorded response headers (lower-case names), for marker headers. */
  headers?: Readonly<Record<string, string>>;
  /** The shape of the recorded request body (requests/ai-sdk-request-shape.ts). */
  requestShape?: RequestShape;
}

/** The probe for adapter detection: what is known about the capture, head = its first ~1 KB. */
export function captureProbe(facts: CaptureFacts): WireProbe {
  const body = withoutBom(facts.text);
  const recorded = facts.contentType?.trim() ?? '';
  const probe: WireProbe = {
    url: facts.url ?? '',
    contentType: recorded === '' ? sniffContentType(body) : recorded.toLowerCase(),
    head: body.slice(0, PROBE_HEAD_CHARS),
  };
  if (facts.method !== undefined) probe.method = facts.method;
  if (facts.headers !== undefined) probe.headers = facts.headers;
  if (facts.requestShape !== undefined) probe.requestShape = facts.requestShape;
  return probe;
}
