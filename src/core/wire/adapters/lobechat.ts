/**
 * LobeChat's own SSE protocol on `POST /webapi/chat/{provider}` (WIRE-FORMATS.md
 * §6.3; produced by `createSSEProtocolTransformer`): every event is
 * `id: …`, `event: <type>`, `data: <JSON>`. Text arrives incrementally:
 * `event: text` whose data is the delta as a JSON string, `event: reasoning`
 * likewise for the thinking channel. Newer servers also send multimodal
 * `content_part` / `reasoning_part` events (`{content, partType, inReasoning}`);
 * their text parts join the same two channels. `tool_calls`, `usage`, `speed`,
 * `grounding`, images, signatures and `error` pass through untouched; the stream
 * ends with `event: stop` (data: the finish reason as a JSON string), no `[DONE]`.
 *
 * A blocked answer ends the way a filtered one does: `event: stop` with
 * `"content_filter"` (LobeChat forwards the provider's finish reason).
 */
import { recognisers } from '../wire-recognisers.ts';
import type { RawFrame } from '../raw-frame.ts';
import { isRecord, renderSseJson, sseJson } from '../sse-json-render.ts';
import {
  type AdapterSession,
  type TextSlot,
  type WireAdapter,
  type WireEvent,
  passThrough,
} from '../wire-event.ts';

/** Events that carry no guarded text (§6.3 and `StreamProtocolChunk['type']`). */
const PASS_EVENTS = new Set([
  'tool_calls',
  'usage',
  'speed',
  'grounding',
  'base64_image',
  'reasoning_signature',
  'flagged_reasoning_signature',
  'reasoning_response_item',
  'error',
  'data',
  'stop',
]);

const LINES = /([^\r\n]*)(\r\n|\r|\n|$)/g;

/**
 * Re-serialises a frame whose data is one JSON string literal (`data: "…"`),
 * keeping the optional space after `data:`, the whitespace around the literal
 * and every other line byte for byte.
 */
export function renderSseStringData(frame: RawFrame, value: string): string {
  let out = '';
  let dataLines = 0;
  for (const m of frame.raw.matchAll(LINES)) {
    if (m[0] === '') break;
    const text = m[1] ?? '';
    const end = m[2] ?? '';
    if (!text.startsWith('data:')) {
      out += text + end;
      continue;
    }
    dataLines++;
    const data = /^(data: ?)(\s*)("(?:[^"\\]|\\.)*")(\s*)$/.exec(text);
    if (data === null) throw new Error('lobechat: data is not one JSON string');
    out += `${data[1]}${data[2]}${JSON.stringify(value)}${data[4]}${end}`;
  }
  if (dataLines !== 1) throw new Error(`lobechat: ${dataLines} data lines`);
  return out;
}

function stringEvent(frame: RawFrame, channel: string, text: string): WireEvent {
  return {
    frame,
    slots: [{ channel, mode: 'delta', text }],
    render: (texts) => renderSseStringData(frame, texts[0] as string),
  };
}

export function lobeChatSession(): AdapterSession {
  let lastId: string | undefined;
  let stopped = false;
  return {
    decode(frame: RawFrame): WireEvent {
      const sse = frame.sse;
      if (sse === undefined) return passThrough(frame);
      if (sse.id !== undefined) lastId = sse.id;
      const type = sse.event ?? 'message';
      const data = sseJson(frame);
      if (type === 'text' || type === 'reasoning') {
        if (typeof data === 'string') return stringEvent(frame, type, data);
        // `text` chunks with null/object data exist only as provider errors: reported.
        return passThrough(frame, `lobechat: ${type} data is not a string`);
      }
      if (type === 'content_part' || type === 'reasoning_part') {
        if (!isRecord(data)) return passThrough(frame, `lobechat: ${type} data is not an object`);
        if (data.partType !== 'text' || typeof data.content !== 'string') return passThrough(frame);
        const channel =
          type === 'reasoning_part' || data.inReasoning === true ? 'reasoning' : 'text';
        const slot: TextSlot = { channel, mode: 'delta', text: data.content };
        return {
          frame,
          slots: [slot],
          render: (texts) =>
            renderSseJson(frame, [{ path: ['content'], value: texts[0] as string }]),
        };
      }
      return passThrough(frame, PASS_EVENTS.has(type) ? undefined : `lobechat: event ${type}`);
    },
    emitted(event) {
      if (event.frame.sse?.event === 'stop') stopped = true;
    },
    blockEnding() {
      if (stopped) return '';
      const id = lastId === undefined ? '' : `id: ${lastId}\n`;
      return `${id}event: stop\ndata: ${JSON.stringify('content_filter')}\n\n`;
    },
  };
}

export const lobeChat: WireAdapter = {
  ...recognisers.lobeChat,
  open: lobeChatSession,
};
