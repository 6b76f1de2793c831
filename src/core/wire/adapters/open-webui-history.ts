/**
 * Open WebUI conversation reload: `GET /api/v1/chats/{id}` (also a shared chat,
 * `/api/v1/chats/share/{id}`) returns `{id, title, chat: {messages: […],
 * history: {messages: {<id>: {…}}, currentId}}, …}` (WIRE-FORMATS.md §6.1, §8.6;
 * Chat.svelte's `loadChat` renders `chat.history`, or converts `chat.messages`
 * when there is no history). The assistant messages' `content` (and the
 * pre-filter `originalContent`, and the text parts of OpenResponses-style
 * `output` items of newer servers) are guarded with the same rules as the live
 * stream, so a secret or an exfiltration image neutralised there does not come
 * back, or fire, on reload — and since the page writes the history back to the
 * server (§6.1 pitfall 3), the guarded text is what gets persisted. The person's
 * own messages are left as they wrote them (DESIGN.md §3.8).
 *
 * Every text field is its own channel in `echo` mode, replaced in place; every
 * other byte of the body stays as the server sent it.
 */
import { recognisers } from '../wire-recognisers.ts';
import type { JsonPath } from '../json-string-span.ts';
import { type NothingToGuard, jsonBodySession, nothingToGuard } from '../json-body-session.ts';
import type { LocatedText } from '../located-text.ts';
import { isRecord } from '../sse-json-render.ts';
import type { WireAdapter } from '../wire-event.ts';

function messageTexts(message: unknown, key: string, path: JsonPath): LocatedText[] {
  if (!isRecord(message) || message.role !== 'assistant') return [];
  const found: LocatedText[] = [];
  const add = (channel: string, text: unknown, at: JsonPath) => {
    if (typeof text === 'string') found.push({ slot: { channel, mode: 'echo', text }, path: at });
  };
  for (const field of ['content', 'originalContent']) {
    const value = message[field];
    if (typeof value === 'string') add(`${key}:${field}`, value, [...path, field]);
    else if (Array.isArray(value)) {
      value.forEach((part: unknown, j: number) => {
        if (isRecord(part) && part.type === 'text') {
          add(`${key}:${field}:${j}`, part.text, [...path, field, j, 'text']);
        }
      });
    }
  }
  if (Array.isArray(message.output)) {
    message.output.forEach((item: unknown, i: number) => {
      if (!isRecord(item)) return;
      for (const field of ['content', 'summary']) {
        const parts = item[field];
        if (!Array.isArray(parts)) continue;
        parts.forEach((part: unknown, j: number) => {
          if (isRecord(part)) {
            add(`${key}:output:${i}:${field}:${j}`, part.text, [
              ...path,
              'output',
              i,
              field,
              j,
              'text',
            ]);
          }
        });
      }
    });
  }
  return found;
}

function chatTexts(chat: unknown): LocatedText[] {
  if (!isRecord(chat)) return [];
  const found: LocatedText[] = [];
  if (Array.isArray(chat.messages)) {
    chat.messages.forEach((m: unknown, k: number) => {
      found.push(...messageTexts(m, `messages:${k}`, ['chat', 'messages', k]));
    });
  }
  if (isRecord(chat.history) && isRecord(chat.history.messages)) {
    for (const [id, m] of Object.entries(chat.history.messages)) {
      found.push(...messageTexts(m, `history:${id}`, ['chat', 'history', 'messages', id]));
    }
  }
  return found;
}

/** The chat document: `{…, chat: {messages, history}}`. */
function locate(json: unknown): LocatedText[] | NothingToGuard {
  if (!isRecord(json)) return nothingToGuard('open-webui-history: body is not an object');
  return chatTexts(json.chat);
}

export const openWebUiHistory: WireAdapter = {
  ...recognisers.openWebUiHistory,
  open: () => jsonBodySession({ label: 'open-webui-history', locate }),
};
