/**
 * Doubao (www.doubao.com), WIRE-FORMATS-2.md §3.3. Confidence MED for the
 * current `/chat/completion` stream (several public clients agree on the event
 * names and fields; no live capture); the legacy `samantha` format (LOW) is
 * not claimed (wire-recognisers.ts matches the current route only).
 *
 * SSE with named events (`id:`, `event:`, `data:`; CRLF seen too). The answer
 * text is present up to three times (§3.3, §0.2), and every copy is guarded,
 * each copy its own channel so each reads as the page reads it:
 * - `CHUNK_DELTA` `{"text"}`: the main answer delta (channel `answer`);
 * - `STREAM_CHUNK` `patch_op[i]`, `patch_object` 1: text blocks,
 *   `patch_value.content_block[j].content.text_block.text` (channel `blocks`),
 *   also the first token `STREAM_MSG_NOTIFY` may carry in
 *   `content.content_block[j]…` (same channel);
 * - `STREAM_CHUNK` `patch_object` 111: `patch_value.tts_content`, the text
 *   again for text-to-speech (channel `tts`);
 * - `SSE_REPLY_END` `msg_finish_attr.brief`: a truncated summary of the
 *   answer, guarded whole on its own channel.
 * All are incremental (§3.3). Heartbeats, acks, the echo of the user's own
 * message (`FULL_MSG_NOTIFY`), metadata patches (`patch_object` 50) and every
 * other event pass byte for byte.
 *
 * A block ends the reply the way the stream ends one: `SSE_REPLY_END` with
 * `end_type` 3 ("whole reply done").
 */
import type { JsonPath } from '../json-string-span.ts';
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

const TEXT_PATCH = 1;
const TTS_PATCH = 111;

/** Events whose data holds no text of the answer (§3.3 table). */
const WITHOUT_TEXT = new Set(['SSE_HEARTBEAT', 'SSE_ACK', 'FULL_MSG_NOTIFY']);

/** `content_block[j].content.text_block.text` of each text block under `at`. */
function textBlocks(blocks: unknown, at: JsonPath): LocatedText[] {
  if (!Array.isArray(blocks)) return [];
  return blocks.flatMap((block: unknown, j): LocatedText[] => {
    const content = isRecord(block) ? block.content : undefined;
    const textBlock = isRecord(content) ? content.text_block : undefined;
    const text = isRecord(textBlock) ? textBlock.text : undefined;
    if (typeof text !== 'string') return [];
    return [
      {
        slot: { channel: 'blocks', mode: 'delta', text },
        path: [...at, j, 'content', 'text_block', 'text'],
      },
    ];
  });
}

function patchTexts(json: Record<string, unknown>): LocatedText[] {
  const ops = json.patch_op;
  if (!Array.isArray(ops)) return [];
  return ops.flatMap((op: unknown, i): LocatedText[] => {
    if (!isRecord(op) || !isRecord(op.patch_value)) return [];
    const value = op.patch_value;
    const at: JsonPath = ['patch_op', i, 'patch_value'];
    if (op.patch_object === TEXT_PATCH)
      return textBlocks(value.content_block, [...at, 'content_block']);
    if (op.patch_object === TTS_PATCH && typeof value.tts_content === 'string') {
      return [
        {
          slot: { channel: 'tts', mode: 'delta', text: value.tts_content },
          path: [...at, 'tts_content'],
        },
      ];
    }
    return [];
  });
}

function locate(event: string | undefined, json: Record<string, unknown>): LocatedText[] {
  switch (event) {
    case 'CHUNK_DELTA':
      return typeof json.text === 'string'
        ? [{ slot: { channel: 'answer', mode: 'delta', text: json.text }, path: ['text'] }]
        : [];
    case 'STREAM_CHUNK':
      return patchTexts(json);
    case 'STREAM_MSG_NOTIFY': {
      const content = json.content;
      return isRecord(content)
        ? textBlocks(content.content_block, ['content', 'content_block'])
        : [];
    }
    case 'SSE_REPLY_END': {
      const attr = json.msg_finish_attr;
      const brief = isRecord(attr) ? attr.brief : undefined;
      return typeof brief === 'string'
        ? [
            {
              slot: { channel: 'brief', mode: 'echo', text: brief },
              path: ['msg_finish_attr', 'brief'],
            },
          ]
        : [];
    }
    default:
      return [];
  }
}

function decodeFrame(frame: RawFrame): WireEvent {
  const sse = frame.sse;
  if (sse === undefined || (sse.event !== undefined && WITHOUT_TEXT.has(sse.event))) {
    return passThrough(frame);
  }
  const json = sseJson(frame);
  if (!isRecord(json)) return passThrough(frame, 'doubao: data is not a JSON object');
  return sseLocatedEvent(frame, locate(sse.event, json));
}

function doubaoSession(): AdapterSession {
  let replyDone = false;
  return {
    decode: decodeFrame,
    emitted(event) {
      const sse = event.frame.sse;
      if (sse?.event === 'SSE_REPLY_END' && /"end_type":\s*3\b/.test(sse.data)) replyDone = true;
    },
    blockEnding: () => (replyDone ? '' : 'event: SSE_REPLY_END\ndata: {"end_type":3}\n\n'),
  };
}

export const doubaoWeb: WireAdapter = {
  ...recognisers.doubaoWeb,
  open: doubaoSession,
};
