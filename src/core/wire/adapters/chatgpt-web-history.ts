/**
 * ChatGPT web history load (WIRE-FORMATS.md §1.1 "History render", §1.10.3, §8.6):
 * `GET /backend-api/conversation/{id}` answers one JSON document whose
 * `mapping[nodeId].message` holds every message of the tree. The page re-renders a
 * conversation from it, so a secret or exfiltration image neutralised in the live
 * stream must be neutralised here too (issue 3, "History loads").
 *
 * Each string in `content.parts` of a visible assistant message (the rule of the
 * stream adapter, `isVisibleAssistantMessage`) is an `echo` slot on its own channel
 * `node:<nodeId>` (`node:<nodeId>:<k>` for parts after the first). User messages are
 * never rewritten (DESIGN.md §3.8); tool, system and hidden messages pass through.
 * Citation offsets into a changed text are moved or dropped (`citation-offsets.ts`).
 * Every other byte of the body is kept.
 */
import { recognisers } from '../wire-recognisers.ts';
import { type OffsetRef, findOffsetRefs, offsetEdits } from '../citation-offsets.ts';
import type { JsonPath } from '../json-string-span.ts';
import { type JsonEdit, editJson } from '../json-value-edit.ts';
import { isRecord } from '../sse-json-render.ts';
import { jsonBodySession, nothingToGuard } from '../json-body-session.ts';
import type { TextSlot, WireAdapter } from '../wire-event.ts';
import { isVisibleAssistantMessage } from './chatgpt-web.ts';

interface Located {
  slot: TextSlot;
  path: JsonPath;
  /** Offset references into this text (part 0 only). */
  refs: OffsetRef[];
}

function locate(json: unknown): Located[] | null {
  if (!isRecord(json) || !isRecord(json.mapping)) return null;
  const found: Located[] = [];
  for (const [nodeId, node] of Object.entries(json.mapping)) {
    if (!isRecord(node) || !isRecord(node.message)) continue;
    const message = node.message;
    if (!isVisibleAssistantMessage(message)) continue;
    const content = isRecord(message.content) ? message.content : undefined;
    if (content === undefined || !Array.isArray(content.parts)) continue;
    const base: JsonPath = ['mapping', nodeId, 'message'];
    content.parts.forEach((part: unknown, k: number) => {
      if (typeof part !== 'string') return;
      found.push({
        slot: {
          channel: k === 0 ? `node:${nodeId}` : `node:${nodeId}:${k}`,
          mode: 'echo',
          text: part,
        },
        path: [...base, 'content', 'parts', k],
        refs:
          k === 0 && isRecord(message.metadata)
            ? findOffsetRefs(message.metadata, [...base, 'metadata'])
            : [],
      });
    });
  }
  return found;
}

export const chatgptWebHistory: WireAdapter = {
  ...recognisers.chatgptWebHistory,
  open: () =>
    jsonBodySession({
      label: 'chatgpt-web-history',
      locate: (json) => {
        const located = locate(json);
        if (located !== null) return located;
        // An error answer (`{"detail": …}`) carries no conversation: nothing to guard.
        return isRecord(json) && 'detail' in json
          ? nothingToGuard()
          : nothingToGuard('chatgpt-web-history: no mapping');
      },
      render: renderHistory,
    }),
};

function renderHistory(raw: string, located: readonly Located[], texts: readonly string[]): string {
  const edits: JsonEdit[] = [];
  const filters: JsonEdit[] = [];
  located.forEach((l, i) => {
    const text = texts[i] as string;
    if (text === l.slot.text) return;
    edits.push({ path: l.path, json: JSON.stringify(text) });
    for (const edit of offsetEdits(l.refs, l.slot.text, text)) {
      ('keep' in edit ? filters : edits).push(edit);
    }
  });
  return editJson(raw, [...edits, ...filters]);
}
