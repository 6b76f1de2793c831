/**
 * Claude.ai web (WIRE-FORMATS.md §2).
 *
 * Stream (`POST …/chat_conversations/{id}/completion` and `retry_completion`,
 * §2.1), named SSE events in one of two dialects:
 * - "messages" (§2.3): the Anthropic Messages events, guarded by the same
 *   session as the API (anthropic-messages.ts: one channel per text block,
 *   thinking/tool deltas untouched), plus Claude.ai's own events
 *   (`message_limit`, `conversation_ready`, …) passed through as they are
 *   (§2.5). A block ends like a refusal: open blocks stop, `message_delta`
 *   with `stop_reason: "refusal"`, `message_stop`.
 * - legacy "completion" (§2.4): `{"type":"completion","completion":"…",
 *   "stop_reason":null,…}` increments on channel `completion`. A block ends with
 *   one more `completion` event shaped like the last one, empty text and
 *   `stop_reason: "refusal"` (any non-null stop reason ends the answer).
 *
 * History (`GET …/chat_conversations/{id}?tree=True…`, §2.6 pitfall 2): the
 * assistant messages' `content[].text` (type `text`) and legacy `text` are echo
 * slots, one channel per message and content index, so a reload shows what the
 * live stream showed. The user's own messages are never rewritten (DESIGN.md
 * §3.8). Citations with `start_index`/`end_index` reaching past a change are
 * collapsed to an empty range (json-structural-edit.ts).
 */
import { recognisers } from '../wire-recognisers.ts';
import { type JsonPath, replaceStrings } from '../json-string-span.ts';
import type { RawFrame } from '../raw-frame.ts';
import { isRecord, renderSseJson, sseJson } from '../sse-json-render.ts';
import {
  type AdapterSession,
  type TextSlot,
  type WireAdapter,
  type WireEvent,
  passThrough,
} from '../wire-event.ts';
import { anthropicSession } from './anthropic-messages.ts';
import {
  collapseOffsets,
  getJsonPath,
  setJsonPath,
  unchangedPrefix,
} from './json-structural-edit.ts';

/** The Messages API events the anthropic session understands. */
const MESSAGES_EVENTS = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'ping',
  'error',
]);

/** Claude.ai's own events without guarded text (§2.3). */
const CLAUDE_EVENTS = new Set([
  'message_limit',
  'conversation_ready',
  'tool_approval',
  'compaction_status',
  'cache_performance',
  'mcp_auth_required',
]);

function lineEndOf(raw: string): string {
  if (raw.endsWith('\r\n')) return '\r\n';
  return raw.endsWith('\r') ? '\r' : '\n';
}

function streamSession(): AdapterSession {
  const messages = anthropicSession();
  const legacy = new WeakMap<WireEvent, Record<string, unknown>>();
  let dialect: 'messages' | 'completion' | undefined;
  let like: Record<string, unknown> = { type: 'completion' };
  let stopped = false;
  let named = false;
  let newline = '\n';

  function completionEvent(frame: RawFrame, json: Record<string, unknown>): WireEvent {
    dialect ??= 'completion';
    const text = json.completion;
    const event: WireEvent =
      typeof text === 'string'
        ? {
            frame,
            slots: [{ channel: 'completion', mode: 'delta', text }],
            render: (texts) =>
              renderSseJson(frame, [{ path: ['completion'], value: texts[0] as string }]),
          }
        : passThrough(frame);
    legacy.set(event, json);
    return event;
  }

  return {
    decode(frame) {
      if (frame.sse === undefined) return passThrough(frame);
      newline = lineEndOf(frame.raw);
      const json = sseJson(frame);
      if (isRecord(json) && typeof json.type === 'string') {
        if (json.type === 'completion') return completionEvent(frame, json);
        if (CLAUDE_EVENTS.has(json.type)) return passThrough(frame);
        if (!MESSAGES_EVENTS.has(json.type)) {
          return passThrough(frame, `claude-web: event ${json.type}`);
        }
        if (json.type !== 'ping' && json.type !== 'error') dialect ??= 'messages';
      }
      return messages.decode(frame);
    },
    emitted(event) {
      messages.emitted?.(event);
      const json = legacy.get(event);
      if (json === undefined) return;
      like = json;
      named ||= event.frame.sse?.event !== undefined;
      if (json.stop_reason !== null && json.stop_reason !== undefined) stopped = true;
    },
    blockEnding() {
      if (dialect !== 'completion') return messages.blockEnding();
      if (stopped) return '';
      const data = JSON.stringify({ ...like, completion: '', stop_reason: 'refusal' });
      return `${named ? `event: completion${newline}` : ''}data: ${data}${newline}${newline}`;
    },
  };
}

export const claudeWebStream: WireAdapter = {
  ...recognisers.claudeWebStream,
  open: streamSession,
};

interface Located {
  slot: TextSlot;
  path: JsonPath;
  /** The object holding the text and its `citations`. */
  holder: JsonPath;
}

/** Echo slots for the assistant messages of a conversation. */
function historySlots(json: unknown): Located[] {
  if (!isRecord(json) || !Array.isArray(json.chat_messages)) return [];
  const found: Located[] = [];
  json.chat_messages.forEach((message: unknown, i: number) => {
    if (!isRecord(message) || message.sender !== 'assistant') return;
    const key = `message:${typeof message.uuid === 'string' ? message.uuid : `#${i}`}`;
    const base: JsonPath = ['chat_messages', i];
    if (typeof message.text === 'string' && message.text !== '') {
      found.push({
        slot: { channel: `${key}:text`, mode: 'echo', text: message.text },
        path: [...base, 'text'],
        holder: base,
      });
    }
    if (!Array.isArray(message.content)) return;
    message.content.forEach((block: unknown, j: number) => {
      if (!isRecord(block) || block.type !== 'text' || typeof block.text !== 'string') return;
      found.push({
        slot: { channel: `${key}:content:${j}`, mode: 'echo', text: block.text },
        path: [...base, 'content', j, 'text'],
        holder: [...base, 'content', j],
      });
    });
  });
  return found;
}

/** The body with `texts` in place; re-stringified only when citations had to move. */
function renderHistory(
  raw: string,
  json: unknown,
  located: readonly Located[],
  texts: readonly string[],
): string {
  const copy = structuredClone(json);
  let structural = false;
  located.forEach((l, i) => {
    const text = texts[i] as string;
    setJsonPath(copy, l.path, text);
    if (text === l.slot.text) return;
    const holder = getJsonPath(copy, l.holder);
    if (!isRecord(holder) || !Array.isArray(holder.citations)) return;
    const prefix = unchangedPrefix(l.slot.text, text);
    for (const citation of holder.citations)
      if (collapseOffsets(citation, prefix)) structural = true;
  });
  if (structural) return JSON.stringify(copy, null, /^\{\r?\n([ \t]+)"/.exec(raw)?.[1]);
  return replaceStrings(
    raw,
    located.map((l, i) => ({ path: l.path, value: texts[i] as string })),
  );
}

/** The conversation JSON a page loads to render (or reload) a thread. */
export const claudeWebHistory: WireAdapter = {
  ...recognisers.claudeWebHistory,
  open: () => {
    let pending: { raw: string; json: unknown; located: Located[] } | undefined;
    let emitted = false;
    return {
      decode(frame) {
        let json: unknown;
        try {
          json = JSON.parse(frame.payload ?? '');
        } catch {
          return passThrough(frame, 'claude-web: conversation body is not JSON');
        }
        if (!isRecord(json)) return passThrough(frame, 'claude-web: conversation is not an object');
        const located = historySlots(json);
        pending = { raw: frame.raw, json, located };
        return {
          frame,
          slots: located.map((l) => l.slot),
          render: (texts) => renderHistory(frame.raw, json, located, texts),
        };
      },
      emitted() {
        emitted = true;
      },
      blockEnding() {
        // Nothing could be released (a block at the very start of a message):
        // fail closed with every assistant text emptied, the thread still loads.
        if (emitted || pending === undefined) return '';
        const { raw, json, located } = pending;
        return renderHistory(
          raw,
          json,
          located,
          located.map(() => ''),
        );
      },
    };
  },
};
