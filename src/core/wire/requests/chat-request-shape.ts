/**
 * Does a request look like a chat request? Its answer is then guarded even
 * when no response adapter claims it (DESIGN.md §3.5, issue 18 §1): the
 * generic adapter reads it by its structure, and a body it cannot decode is
 * reported and stopped rather than passed on.
 *
 * A request is chat-shaped when a request adapter claims its route
 * (request-recognisers.ts), or when its body carries what chat clients send:
 * a JSON object with `messages` (OpenAI-compatible, Anthropic, Ollama, most
 * chat UIs), `prompt`, `input` (Responses), `contents` (Gemini), `inputs`
 * (Hugging Face), a `message` / `query` / `question` text (Cohere, Dify,
 * Flowise and bespoke backends), or `text` with a conversation id (LibreChat);
 * the same one level down in a tRPC-style batch (`{"0":{"json":{…}}}`); or a
 * form body with `f.req` (Gemini web) or one of those names.
 *
 * Runs in the MAIN world on every request the fetch and XHR hooks see: a
 * bounded amount of work, no exceptions.
 */
import { recogniseRequest } from './request-recognisers.ts';
import type { OutgoingRequest } from './request-text.ts';

/** Bodies longer than this are judged from their keys as text, not parsed. */
const MAX_PARSED_BODY = 4 * 1024 * 1024;
/** How much of a long body the key search reads. */
const KEY_SEARCH_CHARS = 64 * 1024;

const CHAT_KEYS = /"(?:messages|prompt|input|contents|inputs|message|query|question)"\s*:/;
const FORM_KEYS = /(?:^|&)(?:f\.req|messages?|prompt|input|query|question)=/;

/** Keys under which clients wrap the request proper. */
const ENVELOPE_KEY = /^(?:\d+|json|data|body|payload|params|request|input)$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isText = (value: unknown): boolean => typeof value === 'string' && value.length > 0;
const isList = (value: unknown): boolean => Array.isArray(value) && value.length > 0;

/** True when a parsed request body has the shape of a chat request. */
export function isChatShapedJson(json: unknown, depth = 0): boolean {
  if (Array.isArray(json)) return depth === 0 && json.some((item) => isChatShapedJson(item, 1));
  if (!isRecord(json)) return false;
  if (isList(json.messages)) return true;
  if (isText(json.prompt) || isList(json.prompt)) return true;
  if (isText(json.input) || isList(json.input)) return true;
  if (isList(json.contents) || isText(json.inputs)) return true;
  if (isText(json.message) || isText(json.query) || isText(json.question)) return true;
  if (isRecord(json.message) && (isText(json.message.content) || isList(json.message.content))) {
    return true;
  }
  if (isText(json.text) && ('conversationId' in json || 'parentMessageId' in json)) return true;
  if (depth > 0) return false;
  // tRPC batches and other envelopes: `{"0":{"json":{…}}}`, `{"json":{…}}`, `{"data":{…}}`.
  return Object.entries(json).some(
    ([key, value]) =>
      ENVELOPE_KEY.test(key) &&
      isRecord(value) &&
      (isChatShapedJson(value, 1) || isChatShapedJson(value.json, 1)),
  );
}

/**
 * True when a request body (as text) looks like a chat request. `truncated`:
 * `body` is only the start of a longer body, searched for the keys alone.
 */
export function isChatShapedBody(body: string, truncated = false): boolean {
  const text = body.trimStart();
  if (text.startsWith('{') || text.startsWith('[')) {
    if (truncated || text.length > MAX_PARSED_BODY) {
      return CHAT_KEYS.test(text.slice(0, KEY_SEARCH_CHARS));
    }
    try {
      return isChatShapedJson(JSON.parse(text) as unknown);
    } catch {
      return false;
    }
  }
  return FORM_KEYS.test(text.slice(0, KEY_SEARCH_CHARS));
}

/** True when the request is chat-shaped by its route or by its body (`truncated`: its start). */
export function isChatRequest(
  request: OutgoingRequest,
  body: string | undefined,
  truncated = false,
): boolean {
  try {
    if (request.method.toUpperCase() === 'GET' || request.method.toUpperCase() === 'HEAD') {
      return false;
    }
    if (recogniseRequest(request) !== undefined) return true;
    return body !== undefined && isChatShapedBody(body, truncated);
  } catch {
    return false;
  }
}
