/**
 * HuggingChat's conversation document (WIRE-FORMATS-2.md §4.6, HIGH: "History:
 * `GET {base}/api/conversation/{id}` returns `messages[]` with stored
 * `content`"). The page re-renders the conversation from it, so what the live
 * stream neutralised (a secret, an exfiltration image) must not come back, or
 * fire, on reload (issue 20 §1, "history loads").
 *
 * The message fields, read in chat-ui's own source (huggingface/chat-ui,
 * `src/routes/api/conversation/[id]/+server.ts`): `{content, from, id,
 * createdAt, updatedAt, webSearch, files, updates, reasoning}`; `from` is
 * `user` | `assistant` | `system`. Stored `updates` hold no `stream` tokens
 * (the server persists every update but those), so the answer's full text is
 * `content`, and its echo the `finalAnswer` update's `text`. chat-ui's current
 * page reads the same messages from `GET {base}/api/v2/conversations/{id}` as a
 * superjson document, `{json: {messages, …}, meta}`
 * (`src/routes/api/v2/conversations/[id]/+server.ts`): the messages are found
 * under `json` there.
 *
 * Guarded, each an `echo` slot of its own channel, in messages `from`
 * `assistant`: `content`, `reasoning`, and each `finalAnswer` update's `text`.
 * The person's own messages are never rewritten (DESIGN.md §3.8); every other
 * byte passes through; a block before anything was sent answers the same
 * document with the guarded texts emptied (json-body-session.ts).
 *
 * Not a recogniser of its own: the document's routes are the conversation routes
 * the HuggingChat adapter already claims (site-routes.ts `huggingchat`), and the
 * page's script has a size budget (test/e2e/build-output.test.ts). The adapter's
 * session reads its first frame: a conversation document (one JSON line, as
 * `Response.json` writes it, with no `type`) is read here; anything else is the
 * answer stream (`withConversationDocument`).
 */
import type { JsonPath } from '../json-string-span.ts';
import { jsonBodySession, nothingToGuard } from '../json-body-session.ts';
import type { LocatedText } from '../located-text.ts';
import type { RawFrame } from '../raw-frame.ts';
import { isRecord } from '../sse-json-render.ts';
import type { AdapterSession } from '../wire-event.ts';

function messageTexts(message: unknown, at: JsonPath, key: string): LocatedText[] {
  if (!isRecord(message) || message.from !== 'assistant') return [];
  const found: LocatedText[] = [];
  const add = (channel: string, text: unknown, path: JsonPath) => {
    if (typeof text === 'string') found.push({ slot: { channel, mode: 'echo', text }, path });
  };
  add(`${key}:content`, message.content, [...at, 'content']);
  add(`${key}:reasoning`, message.reasoning, [...at, 'reasoning']);
  if (Array.isArray(message.updates)) {
    message.updates.forEach((update: unknown, k: number) => {
      if (isRecord(update) && update.type === 'finalAnswer') {
        add(`${key}:finalAnswer:${String(k)}`, update.text, [...at, 'updates', k, 'text']);
      }
    });
  }
  return found;
}

/** The conversation: `{messages}` (the documented route) or superjson's `{json: {messages}}`. */
function locate(json: unknown) {
  if (!isRecord(json)) return nothingToGuard('huggingchat-history: body is not an object');
  const superjson = isRecord(json.json);
  const doc = superjson ? (json.json as Record<string, unknown>) : json;
  const base: JsonPath = superjson ? ['json', 'messages'] : ['messages'];
  const { messages } = doc;
  if (!Array.isArray(messages)) {
    // chat-ui's errors (`{"message":"Conversation not found"}`) and the v2 route's answer
    // to a PATCH or DELETE (`{json: {success: true}}`) carry no messages.
    return typeof doc.message === 'string' || 'success' in doc
      ? nothingToGuard()
      : nothingToGuard('huggingchat-history: no messages');
  }
  return messages.flatMap((message: unknown, i) => {
    const id = isRecord(message) && typeof message.id === 'string' ? message.id : `#${String(i)}`;
    return messageTexts(message, [...base, i], `message:${id}`);
  });
}

/**
 * A first frame that is a conversation document (or chat-ui's JSON error for the
 * route, `{"message":…}`): one JSON object that, unlike every update of the answer
 * stream, has no `type`.
 */
export function isConversationDocument(frame: RawFrame): boolean {
  const text = frame.payload ?? frame.raw;
  if (!text.trimStart().startsWith('{')) return false;
  try {
    const json: unknown = JSON.parse(text);
    return isRecord(json) && !('type' in json);
  } catch {
    return false;
  }
}

/** The conversation document's session (its texts located above). */
export function conversationSession(): AdapterSession {
  return jsonBodySession({ label: 'huggingchat-history', locate });
}

/**
 * A session that reads a conversation document when the body's first frame is one,
 * and is `stream` (the answer stream's session) otherwise.
 */
export function withConversationDocument(stream: AdapterSession): AdapterSession {
  let session: AdapterSession | undefined;
  const current = () => session ?? stream;
  return {
    decode(frame) {
      // Decided on the first frame that is not blank (a blank line is passed either way).
      if (session === undefined && (frame.payload ?? frame.raw).trim() !== '') {
        session = isConversationDocument(frame) ? conversationSession() : stream;
      }
      return current().decode(frame);
    },
    emitted: (event) => current().emitted?.(event),
    blockEnding: () => current().blockEnding(),
  };
}
