/**
 * Qianwen / Tongyi (www.qianwen.com), WIRE-FORMATS-2.md §3.2. Confidence LOW:
 * one current source (Chat2API `qwen.ts`) and older code; field names after
 * 2026-04 are not confirmed (§5). The legacy `qianwen.biz.aliyun.com` stream
 * has other fields and is not claimed.
 *
 * The answer to `POST chat2.qianwen.com/api/v2/chat` is SSE:
 * `data: {communication, data:{messages:[{mime_type, content, status,
 * meta_data:{multi_load:[{type, content:{think_content}}]}}]}}`, then
 * `event: complete`. Text is CUMULATIVE (Chat2API takes
 * `content.substring(previousLength)`), so each is a snapshot channel:
 * - `data.messages[i].content` of a `text/plain` or `multi_load/iframe`
 *   message (channel `message:i`);
 * - `data.messages[i].meta_data.multi_load[k].content.think_content`, the
 *   reasoning, also cumulative (channel `think:i:k`).
 * Other messages, fields and events pass byte for byte.
 *
 * A block ends the answer as the stream does: `event: complete` (§3.2; its
 * data is not documented, so an empty object).
 */
import type { LocatedText } from '../located-text.ts';
import type { RawFrame } from '../raw-frame.ts';
import { isRecord, sseJson } from '../sse-json-render.ts';
import { sseLocatedEvent } from '../sse-located-event.ts';
import {
  type AdapterSession,
  type WireAdapter,
  type WireEvent,
  passThrough,
} from '../wire-event.ts';
import { recognisers } from '../wire-recognisers.ts';

const ANSWER_TYPES = new Set(['text/plain', 'multi_load/iframe']);

function thinkTexts(message: Record<string, unknown>, i: number): LocatedText[] {
  const meta = message.meta_data;
  const loads = isRecord(meta) ? meta.multi_load : undefined;
  if (!Array.isArray(loads)) return [];
  return loads.flatMap((load: unknown, k): LocatedText[] => {
    const content = isRecord(load) ? load.content : undefined;
    const text = isRecord(content) ? content.think_content : undefined;
    if (typeof text !== 'string') return [];
    return [
      {
        slot: { channel: `think:${String(i)}:${String(k)}`, mode: 'snapshot', text },
        path: ['data', 'messages', i, 'meta_data', 'multi_load', k, 'content', 'think_content'],
      },
    ];
  });
}

function locate(messages: unknown[]): LocatedText[] {
  return messages.flatMap((message: unknown, i): LocatedText[] => {
    if (!isRecord(message)) return [];
    const located = thinkTexts(message, i);
    const answer = typeof message.mime_type === 'string' && ANSWER_TYPES.has(message.mime_type);
    if (answer && typeof message.content === 'string') {
      located.unshift({
        slot: { channel: `message:${String(i)}`, mode: 'snapshot', text: message.content },
        path: ['data', 'messages', i, 'content'],
      });
    }
    return located;
  });
}

function decodeFrame(frame: RawFrame): WireEvent {
  if (frame.sse === undefined || frame.sse.event === 'complete') return passThrough(frame);
  const json = sseJson(frame);
  if (!isRecord(json)) return passThrough(frame, 'qianwen: data is not a JSON object');
  const data = json.data;
  const messages = isRecord(data) ? data.messages : undefined;
  if (!Array.isArray(messages)) {
    return passThrough(frame, 'error_code' in json ? undefined : 'qianwen: event without messages');
  }
  return sseLocatedEvent(frame, locate(messages));
}

function qianwenSession(): AdapterSession {
  let complete = false;
  return {
    decode: decodeFrame,
    emitted(event) {
      if (event.frame.sse?.event === 'complete') complete = true;
    },
    blockEnding: () => (complete ? '' : 'event: complete\ndata: {}\n\n'),
  };
}

export const qianwenWeb: WireAdapter = {
  ...recognisers.qianwenWeb,
  open: qianwenSession,
};
