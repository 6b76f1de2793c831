/**
 * Z.ai's send (WIRE-FORMATS-2.md §3.5): an Open WebUI-style body, the person's
 * text in `messages[]` (the last user message; earlier ones are history) and
 * again in `signature_prompt`, which the `x-signature` HMAC covers. The
 * recogniser marks it integrity-bound: the outgoing guard asks instead of
 * rewriting (outgoing-request-guard.ts), so `rewrite` here only ever serves a
 * caller that knows the signature is not checked (`csg`, tests).
 *
 * The first message of a new chat also goes out before that send, in
 * `POST /api/v1/chats/new` (§3.5; Open WebUI's chat document,
 * WIRE-FORMATS.md §6): `chat.messages[]` and `chat.history.messages{id}`,
 * each `{id, role, content}`. It is integrity-bound too, so it is asked about
 * and never rewritten.
 */
import { replaceStrings } from '../json-string-span.ts';
import { isRecord } from '../sse-json-render.ts';
import { openAiChatRequest } from './message-list-requests.ts';
import { requestRecognisers } from './request-recognisers.ts';
import type { RequestAdapter, RequestRole, RequestText } from './request-text.ts';

function signaturePrompt(body: string): RequestText[] {
  const json: unknown = JSON.parse(body);
  if (!isRecord(json)) throw new SyntaxError('request body is not a JSON object');
  const text = json.signature_prompt;
  return typeof text === 'string'
    ? [{ path: ['signature_prompt'], text, part: 'new', role: 'user', message: 0 }]
    : [];
}

export const zaiRequest: RequestAdapter = {
  ...requestRecognisers.zaiRequest,
  locate: (body) => [...openAiChatRequest.locate(body), ...signaturePrompt(body)],
  rewrite: replaceStrings,
};

const ROLES: readonly RequestRole[] = ['user', 'assistant', 'system', 'tool'];

/** A chat message's role and text, when it has both. */
function messageText(value: unknown): { role: RequestRole; text: string } | undefined {
  if (!isRecord(value) || typeof value.content !== 'string') return undefined;
  const role = ROLES.find((r) => r === value.role);
  return role === undefined ? undefined : { role, text: value.content };
}

/** Where a message of the new chat stands: the user's are the text being sent. */
const partOf = (role: RequestRole) => (role === 'user' ? 'new' : 'history');

/** The texts of a `chats/new` body: each message of `chat.messages`, and its copy in the history. */
function newChatTexts(body: string): RequestText[] {
  const json: unknown = JSON.parse(body);
  if (!isRecord(json) || !isRecord(json.chat)) throw new SyntaxError('no chat object');
  const { chat } = json;
  const texts: RequestText[] = [];
  const indexById = new Map<unknown, number>();
  const list = Array.isArray(chat.messages) ? (chat.messages as unknown[]) : [];
  list.forEach((value, message) => {
    const found = messageText(value);
    if (found === undefined) return;
    if (isRecord(value)) indexById.set(value.id, message);
    const { role, text } = found;
    texts.push({
      path: ['chat', 'messages', message, 'content'],
      text,
      role,
      part: partOf(role),
      message,
    });
  });
  const history =
    isRecord(chat.history) && isRecord(chat.history.messages) ? chat.history.messages : {};
  for (const [id, value] of Object.entries(history)) {
    const found = messageText(value);
    if (found === undefined) continue;
    const { role, text } = found;
    const message = indexById.get(id) ?? 0;
    texts.push({
      path: ['chat', 'history', 'messages', id, 'content'],
      text,
      role,
      part: partOf(role),
      message,
    });
  }
  return texts;
}

export const zaiChatsNewRequest: RequestAdapter = {
  ...requestRecognisers.zaiChatsNewRequest,
  locate: newChatTexts,
  rewrite: replaceStrings,
};
