/**
 * Tencent Yuanbao (yuanbao.tencent.com), WIRE-FORMATS-2.md §3.4. Confidence
 * MED: yuanbao2api (Go) and a TS client agree; no live capture, and the exact
 * non-JSON `data:` lines and the error event are not known (§5).
 *
 * The answer to `POST /api/chat/{conversationId}` is SSE `data:` lines, each a
 * JSON chunk with a `type`. Guarded:
 * - `type: "text"`: `msg`, the answer delta (both clients append it);
 * - `type: "think"`: `content`, a reasoning delta, its own channel, ended when
 *   the answer's text begins.
 * Every other chunk type (`searchGuid` sources, `meta`, `step`, `components`,
 * `mindmap`, `outline`, `dividerLine`, `relevantEntities`, `replace`) passes
 * byte for byte, and so do the non-JSON `data:` lines the stream also carries
 * (the TS client skips data starting with `[` or a lowercase letter; §3.4 says
 * to pass them untouched), reported only when they look like neither.
 *
 * A block ends the answer as the stream ends: `data: [DONE]`.
 */
import type { LocatedText } from '../located-text.ts';
import type { RawFrame } from '../raw-frame.ts';
import { ReasoningRuns } from '../reasoning-runs.ts';
import { isRecord, sseJson } from '../sse-json-render.ts';
import { sseLocatedEvent } from '../sse-located-event.ts';
import {
  type AdapterSession,
  type WireAdapter,
  type WireEvent,
  passThrough,
} from '../wire-event.ts';
import { recognisers } from '../wire-recognisers.ts';

/** Data lines that are not JSON but are known to occur (§3.4): status words, bracketed markers. */
const KNOWN_NOT_JSON = /^(?:\[|[a-z])/;

function locate(json: Record<string, unknown>, thinking: ReasoningRuns) {
  if (json.type === 'text' && typeof json.msg === 'string') {
    const located: LocatedText = {
      slot: { channel: 'answer', mode: 'delta', text: json.msg },
      path: ['msg'],
    };
    return { located: [located], ends: thinking.close() };
  }
  if (json.type === 'think' && typeof json.content === 'string') {
    const located: LocatedText = {
      slot: { channel: thinking.channel(), mode: 'delta', text: json.content },
      path: ['content'],
    };
    return { located: [located], ends: [] };
  }
  return { located: [], ends: [] };
}

function decodeFrame(frame: RawFrame, thinking: ReasoningRuns): WireEvent {
  const data = frame.sse?.data;
  if (data === undefined) return passThrough(frame);
  const json = sseJson(frame);
  if (!isRecord(json)) {
    return passThrough(frame, KNOWN_NOT_JSON.test(data) ? undefined : 'yuanbao: data is not JSON');
  }
  const { located, ends } = locate(json, thinking);
  const event = sseLocatedEvent(frame, located);
  return ends.length > 0 ? { ...event, ends } : event;
}

function yuanbaoSession(): AdapterSession {
  const thinking = new ReasoningRuns('think');
  let done = false;
  return {
    decode: (frame) => decodeFrame(frame, thinking),
    emitted(event) {
      if (event.frame.sse?.data === '[DONE]') done = true;
    },
    blockEnding: () => (done ? '' : 'data: [DONE]\n\n'),
  };
}

export const yuanbaoWeb: WireAdapter = {
  ...recognisers.yuanbaoWeb,
  open: yuanbaoSession,
};
