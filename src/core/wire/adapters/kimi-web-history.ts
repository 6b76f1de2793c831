/**
 * Kimi's history load (WIRE-FORMATS-2.md §2.1, MED for the endpoint; the
 * message shape is from one public client's history notes):
 * `POST /apiv2/kimi.gateway.chat.v1.ChatService/ListMessages` `{chat_id,
 * page_size}` answers `{messages:[{id, parentId, role, status, blocks}]}` as
 * JSON, and the page re-renders the conversation from it, so what the live
 * stream neutralised must be neutralised here too (issue 3, "History loads").
 *
 * Guarded, each an `echo` slot of its own channel, in messages with role
 * `assistant`: `blocks[j].text.content` and `blocks[j].think.content` (the
 * same block fields the stream fills, §2.3). The person's own messages are
 * never rewritten (DESIGN.md §3.8); every other byte passes through.
 */
import { jsonBodySession, nothingToGuard } from '../json-body-session.ts';
import type { LocatedText } from '../located-text.ts';
import { isRecord } from '../sse-json-render.ts';
import type { WireAdapter } from '../wire-event.ts';
import { recognisers } from '../wire-recognisers.ts';

const KINDS = ['text', 'think'] as const;

function blockTexts(blocks: unknown, at: number, id: string): LocatedText[] {
  if (!Array.isArray(blocks)) return [];
  return blocks.flatMap((block: unknown, j) =>
    KINDS.flatMap((kind): LocatedText[] => {
      const part = isRecord(block) ? block[kind] : undefined;
      const text = isRecord(part) ? part.content : undefined;
      if (typeof text !== 'string') return [];
      return [
        {
          slot: { channel: `message:${id}:block:${String(j)}:${kind}`, mode: 'echo', text },
          path: ['messages', at, 'blocks', j, kind, 'content'],
        },
      ];
    }),
  );
}

function locate(json: unknown) {
  const messages = isRecord(json) ? json.messages : undefined;
  if (!Array.isArray(messages)) {
    // A Connect error (`{"code":"unauthenticated",…}`) carries no messages.
    return isRecord(json) && 'code' in json
      ? nothingToGuard()
      : nothingToGuard('kimi-web-history: no messages');
  }
  return messages.flatMap((message: unknown, i) => {
    if (!isRecord(message) || message.role !== 'assistant') return [];
    const id = typeof message.id === 'string' ? message.id : `#${String(i)}`;
    return blockTexts(message.blocks, i, id);
  });
}

export const kimiWebHistory: WireAdapter = {
  ...recognisers.kimiWebHistory,
  open: () => jsonBodySession({ label: 'kimi-web-history', locate }),
};
