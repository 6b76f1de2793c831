/**
 * Anthropic Messages streaming (WIRE-FORMATS.md §7.3): named SSE events; text
 * arrives as `content_block_delta` / `text_delta` per block index, each block
 * its own channel, ended by `content_block_stop`. Thinking, signature,
 * input_json and citation deltas pass through byte for byte. A blocked answer
 * ends like a refusal: the open text block stops, then `message_delta` with
 * `stop_reason: "refusal"` and `message_stop`.
 */
import { recognisers } from '../wire-recognisers.ts';
import type { RawFrame } from '../raw-frame.ts';
import { isRecord, renderSseJson, sseJson } from '../sse-json-render.ts';
import {
  type AdapterSession,
  type WireAdapter,
  type WireEvent,
  passThrough,
} from '../wire-event.ts';

const KNOWN_EVENTS = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'ping',
  'error',
]);

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function anthropicSession(): AdapterSession {
  const openBlocks = new Set<number>();
  let stopped = false;
  return {
    decode(frame: RawFrame): WireEvent {
      const json = sseJson(frame);
      if (!isRecord(json) || typeof json.type !== 'string') {
        return frame.sse === undefined
          ? passThrough(frame)
          : passThrough(frame, 'anthropic: data is not an event object');
      }
      const index = typeof json.index === 'number' ? json.index : -1;
      const channel = `block:${index}`;
      if (json.type === 'content_block_start' && isRecord(json.content_block)) {
        const block = json.content_block;
        if (block.type === 'text' && typeof block.text === 'string' && block.text.length > 0) {
          return {
            frame,
            slots: [{ channel, mode: 'delta', text: block.text }],
            render: (texts) =>
              renderSseJson(frame, [
                { path: ['content_block', 'text'], value: texts[0] as string },
              ]),
          };
        }
        return passThrough(frame);
      }
      if (json.type === 'content_block_delta' && isRecord(json.delta)) {
        const delta = json.delta;
        if (delta.type === 'text_delta' && typeof delta.text === 'string') {
          return {
            frame,
            slots: [{ channel, mode: 'delta', text: delta.text }],
            render: (texts) =>
              renderSseJson(frame, [{ path: ['delta', 'text'], value: texts[0] as string }]),
          };
        }
        return passThrough(frame);
      }
      if (json.type === 'content_block_stop') return { ...passThrough(frame), ends: [channel] };
      return passThrough(
        frame,
        KNOWN_EVENTS.has(json.type) ? undefined : `anthropic: event ${json.type}`,
      );
    },
    emitted(event) {
      const json = sseJson(event.frame);
      if (!isRecord(json) || typeof json.index !== 'number') {
        if (isRecord(json) && json.type === 'message_stop') stopped = true;
        return;
      }
      if (json.type === 'content_block_start') openBlocks.add(json.index);
      if (json.type === 'content_block_stop') openBlocks.delete(json.index);
    },
    blockEnding() {
      if (stopped) return '';
      let out = '';
      for (const index of openBlocks)
        out += sse('content_block_stop', { type: 'content_block_stop', index });
      out += sse('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'refusal', stop_sequence: null },
        usage: { output_tokens: 0 },
      });
      return out + sse('message_stop', { type: 'message_stop' });
    },
  };
}

export const anthropicMessages: WireAdapter = {
  ...recognisers.anthropicMessages,
  open: anthropicSession,
};
