/**
 * LibreChat conversation reload: `GET /api/messages/{conversationId}` returns
 * the thread as a JSON array of messages, each with `text` and, for agents,
 * `content[]` parts (`{type:"text", text}`, `{type:"think", think}`, tool calls…)
 * (WIRE-FORMATS.md §6.2, §8.6). The model's messages are guarded with the same
 * rules as the live stream, so a secret or an exfiltration image neutralised
 * there does not come back, or fire, on reload. The person's own messages
 * (`isCreatedByUser`) are shown as they wrote them (DESIGN.md §3.8).
 *
 * Each text field is its own channel, in `echo` mode (a complete text), and is
 * replaced in place: every other byte of the body stays as the server sent it.
 */
import { recognisers } from '../wire-recognisers.ts';
import type { JsonPath } from '../json-string-span.ts';
import { type NothingToGuard, jsonBodySession, nothingToGuard } from '../json-body-session.ts';
import type { LocatedText } from '../located-text.ts';
import { isRecord } from '../sse-json-render.ts';
import type { WireAdapter } from '../wire-event.ts';

function messageTexts(message: unknown, k: number): LocatedText[] {
  if (!isRecord(message) || message.isCreatedByUser === true) return [];
  const found: LocatedText[] = [];
  const add = (channel: string, text: unknown, path: JsonPath) => {
    if (typeof text === 'string') found.push({ slot: { channel, mode: 'echo', text }, path });
  };
  add(`message:${k}:text`, message.text, [k, 'text']);
  if (Array.isArray(message.content)) {
    message.content.forEach((part: unknown, j: number) => {
      if (!isRecord(part)) return;
      const channel = `message:${k}:content:${j}`;
      if (part.type === 'text') {
        if (isRecord(part.text)) add(channel, part.text.value, [k, 'content', j, 'text', 'value']);
        else add(channel, part.text, [k, 'content', j, 'text']);
      }
      if (part.type === 'think') add(channel, part.think, [k, 'content', j, 'think']);
    });
  }
  return found;
}

/** The thread: a JSON array of messages. */
function locate(json: unknown): LocatedText[] | NothingToGuard {
  if (!Array.isArray(json)) return nothingToGuard('librechat-history: body is not an array');
  return json.flatMap((message: unknown, k: number) => messageTexts(message, k));
}

export const libreChatHistory: WireAdapter = {
  ...recognisers.libreChatHistory,
  open: () => jsonBodySession({ label: 'librechat-history', locate }),
};
