/**
 * Is a request body one of the Vercel AI SDK's (WIRE-FORMATS-2.md §1.2)? By
 * its shape alone, because the SDK has no fixed host or path (§1.1): SDK 5+
 * `useChat` messages carry `parts` and no `content`; SDK 3/4 messages carry
 * `content` (and `parts` since 4.2) beside the chat `id`. Small and pure: the
 * page script can ask it to fill `WireProbe.requestShape`.
 */
import { isRecord } from '../sse-json-render.ts';
import type { RequestShape } from '../wire-event.ts';

/** Bodies longer than this are not parsed to find their shape (the hooks bound their work). */
const MAX_SHAPED_BODY = 4 * 1024 * 1024;

const ROLES = new Set(['user', 'assistant', 'system']);

function isUiMessage(m: unknown): boolean {
  return isRecord(m) && ROLES.has(m.role as string) && Array.isArray(m.parts) && !('content' in m);
}

function isV4Message(m: unknown): boolean {
  return isRecord(m) && typeof m.role === 'string' && typeof m.content === 'string';
}

/** The AI SDK client a parsed request body comes from, or undefined. */
export function aiSdkRequestShape(json: unknown): RequestShape | undefined {
  if (!isRecord(json) || !Array.isArray(json.messages) || json.messages.length === 0) {
    return undefined;
  }
  const messages: unknown[] = json.messages;
  if (messages.every(isUiMessage)) return 'ai-sdk-ui';
  // v4: the chat id beside the list; `parts` beside `content` (4.2+), or no `model`
  // (an OpenAI-style body names its model; useChat's does not unless the app adds one).
  if (typeof json.id !== 'string' || !messages.every(isV4Message)) return undefined;
  const withParts = messages.some((m) => isRecord(m) && Array.isArray(m.parts));
  return withParts || !('model' in json) ? 'ai-sdk-v4' : undefined;
}

/** The shape of a request body as text; undefined for anything that is not such JSON. */
export function aiSdkRequestShapeOfBody(body: string): RequestShape | undefined {
  const text = body.trimStart();
  if (!text.startsWith('{') || text.length > MAX_SHAPED_BODY) return undefined;
  try {
    return aiSdkRequestShape(JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}
