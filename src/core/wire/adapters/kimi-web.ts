/**
 * Kimi (www.kimi.com), WIRE-FORMATS-2.md §2. Confidence MED: 2026 protocol
 * notes with a working client and Chat2API `kimi.ts` agree; no live capture,
 * and the exact terminal frame was not read (§5).
 *
 * The answer to `POST /apiv2/kimi.gateway.chat.v1.ChatService/Chat` is a
 * stream of Connect envelopes (`[flags][uint32 BE length][JSON]`, §2.3), read
 * as bytes (framing/connect-framer.ts): each data envelope is one event with
 * `op` (`set` | `append`), `mask` (a dotted path) and the payload under the
 * mask's root. Guarded:
 * - `block.text.content` of a `block.text…` event: the answer, incremental
 *   (`set` carries a block's first piece, `append` the next ones);
 * - `block.think.content` of a `block.think…` event: reasoning, its own
 *   channel, ended when the answer's text begins.
 * Every other event (chat id and title, message status, multi-stage markers,
 * tool calls, search sources, heartbeats, errors) and the end-of-stream
 * envelope pass byte for byte. A rewritten event is re-enveloped with the
 * byte length of its new payload.
 *
 * A compressed envelope cannot be read here: fail closed (undecodable).
 * A block ends the answer the way a Connect stream ends: the end-of-stream
 * envelope with an empty trailer `{}` (§2.3), unless it already went out.
 */
import {
  CONNECT_END_STREAM,
  connectFlags,
  isCompressedEnvelope,
  renderConnectEnvelope,
} from '../framing/connect-framer.ts';
import { type JsonPath, replaceStrings } from '../json-string-span.ts';
import type { RawFrame } from '../raw-frame.ts';
import { ReasoningRuns } from '../reasoning-runs.ts';
import { isRecord } from '../sse-json-render.ts';
import {
  type AdapterSession,
  type TextSlot,
  type WireAdapter,
  type WireEvent,
  passThrough,
} from '../wire-event.ts';
import { recognisers } from '../wire-recognisers.ts';

const ANSWER = 'answer';

interface Located {
  slot: TextSlot;
  path: JsonPath;
}

/** The text a `block.<kind>…` event carries in `block.<kind>.content`, if any. */
function blockContent(json: Record<string, unknown>, kind: 'text' | 'think'): string | undefined {
  if (typeof json.mask !== 'string' || !json.mask.startsWith(`block.${kind}`)) return undefined;
  const block = json.block;
  const part = isRecord(block) ? block[kind] : undefined;
  const content = isRecord(part) ? part.content : undefined;
  return typeof content === 'string' ? content : undefined;
}

function locate(json: Record<string, unknown>, thinking: ReasoningRuns) {
  const text = blockContent(json, 'text');
  if (text !== undefined) {
    const located: Located = {
      slot: { channel: ANSWER, mode: 'delta', text },
      path: ['block', 'text', 'content'],
    };
    return { located: [located], ends: thinking.close() };
  }
  const think = blockContent(json, 'think');
  if (think !== undefined) {
    const located: Located = {
      slot: { channel: thinking.channel(), mode: 'delta', text: think },
      path: ['block', 'think', 'content'],
    };
    return { located: [located], ends: [] };
  }
  return { located: [], ends: [] };
}

function decodeFrame(frame: RawFrame, thinking: ReasoningRuns): WireEvent {
  if (isCompressedEnvelope(frame)) {
    return { ...passThrough(frame), undecodable: 'kimi: compressed Connect envelope' };
  }
  const payload = frame.payload;
  if (payload === undefined) return passThrough(frame, 'kimi: not a whole Connect envelope');
  const flags = connectFlags(frame);
  if (flags === CONNECT_END_STREAM) return passThrough(frame);
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    return passThrough(frame, 'kimi: envelope payload is not JSON');
  }
  if (!isRecord(json)) return passThrough(frame, 'kimi: envelope payload is not an object');
  const { located, ends } = locate(json, thinking);
  const event: WireEvent =
    located.length === 0
      ? passThrough(frame)
      : {
          frame,
          slots: located.map((l) => l.slot),
          render: (texts) =>
            renderConnectEnvelope(
              flags,
              replaceStrings(
                payload,
                located.map((l, i) => ({ path: l.path, value: texts[i] as string })),
              ),
            ),
        };
  return ends.length > 0 ? { ...event, ends } : event;
}

function kimiSession(): AdapterSession {
  const thinking = new ReasoningRuns('think');
  let ended = false;
  return {
    decode: (frame) => decodeFrame(frame, thinking),
    emitted(event) {
      if (event.frame.payload !== undefined && connectFlags(event.frame) === CONNECT_END_STREAM) {
        ended = true;
      }
    },
    blockEnding: () => (ended ? '' : renderConnectEnvelope(CONNECT_END_STREAM, '{}')),
  };
}

export const kimiWeb: WireAdapter = {
  ...recognisers.kimiWeb,
  open: kimiSession,
};
