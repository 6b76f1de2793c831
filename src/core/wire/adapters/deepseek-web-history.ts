/**
 * DeepSeek chat web history load (WIRE-FORMATS.md §4.1, §8.6):
 * `GET /api/v0/chat/history_messages?chat_session_id=…` answers
 * `{"code":0,"data":{"biz_data":{"chat_session":{…},"chat_messages":[…]}}}`; the page
 * re-renders the conversation from `chat_messages`, so what the live stream
 * neutralised must be neutralised here too (issue 3, "History loads").
 *
 * Guarded, as `echo` slots of their own channels, in messages with role `ASSISTANT`:
 * the `content` and `thinking_content` strings of older builds and the `content` of
 * `RESPONSE` and `THINK` fragments of newer ones (`message:<id>:content`,
 * `message:<id>:thinking`, `message:<id>:fragment:<k>`). The user's own messages are
 * never rewritten (DESIGN.md §3.8); search results and every other byte pass through.
 */
import { recognisers } from '../wire-recognisers.ts';
import type { JsonPath } from '../json-string-span.ts';
import { type JsonEdit, editJson } from '../json-value-edit.ts';
import { isRecord } from '../sse-json-render.ts';
import { jsonBodySession, nothingToGuard } from '../json-body-session.ts';
import type { TextSlot, WireAdapter } from '../wire-event.ts';

const GUARDED_FRAGMENTS = new Set(['RESPONSE', 'THINK']);

interface Located {
  slot: TextSlot;
  path: JsonPath;
}

/** `chat_messages` where the API puts it (`data.biz_data`), or a bare copy of it. */
function messagesOf(json: unknown): { list: unknown[]; path: JsonPath } | null {
  const candidates: JsonPath[] = [
    ['data', 'biz_data', 'chat_messages'],
    ['biz_data', 'chat_messages'],
    ['data', 'chat_messages'],
    ['chat_messages'],
  ];
  for (const path of candidates) {
    let value: unknown = json;
    for (const key of path) value = isRecord(value) ? value[key as string] : undefined;
    if (Array.isArray(value)) return { list: value, path };
  }
  return null;
}

function locate(json: unknown): Located[] | null {
  const messages = messagesOf(json);
  if (messages === null) return null;
  const found: Located[] = [];
  messages.list.forEach((message: unknown, i: number) => {
    if (!isRecord(message)) return;
    const role = typeof message.role === 'string' ? message.role.toUpperCase() : '';
    if (role !== 'ASSISTANT') return;
    const id =
      typeof message.message_id === 'number' || typeof message.message_id === 'string'
        ? String(message.message_id)
        : `#${i}`;
    const base: JsonPath = [...messages.path, i];
    const add = (channel: string, text: unknown, path: JsonPath) => {
      if (typeof text === 'string') found.push({ slot: { channel, mode: 'echo', text }, path });
    };
    add(`message:${id}:content`, message.content, [...base, 'content']);
    add(`message:${id}:thinking`, message.thinking_content, [...base, 'thinking_content']);
    if (Array.isArray(message.fragments)) {
      message.fragments.forEach((fragment: unknown, k: number) => {
        if (!isRecord(fragment)) return;
        const type = typeof fragment.type === 'string' ? fragment.type.toUpperCase() : '';
        if (!GUARDED_FRAGMENTS.has(type)) return;
        add(`message:${id}:fragment:${k}`, fragment.content, [...base, 'fragments', k, 'content']);
      });
    }
  });
  return found;
}

function render(raw: string, located: readonly Located[], texts: readonly string[]): string {
  const edits: JsonEdit[] = [];
  located.forEach((l, i) => {
    const text = texts[i] as string;
    if (text !== l.slot.text) edits.push({ path: l.path, json: JSON.stringify(text) });
  });
  return editJson(raw, edits);
}

export const deepseekWebHistory: WireAdapter = {
  ...recognisers.deepseekWebHistory,
  open: () =>
    jsonBodySession({
      label: 'deepseek-web-history',
      locate: (json) => {
        const located = locate(json);
        if (located !== null) return located;
        // `{"code":40003,"msg":"Authorization Failed"}` and the like carry no messages.
        return isRecord(json) && 'code' in json && json.code !== 0
          ? nothingToGuard()
          : nothingToGuard('deepseek-web-history: no chat_messages');
      },
      render,
    }),
};
