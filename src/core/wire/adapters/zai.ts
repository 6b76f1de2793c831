/**
 * Z.ai (chat.z.ai, GLM international), WIRE-FORMATS-2.md §3.5. Confidence MED:
 * Chat2API `zai.ts`, a 2026-06 capture note and Go clients agree; no live
 * capture here, and the history route is inferred from Open WebUI (§3.5), so
 * only the answer stream is read.
 *
 * The answer to `POST /api/v2/chat/completions?…&signature_timestamp=…` is
 * SSE, `data: {"type":"chat:completion","data":{"phase", "delta_content"}}`:
 * - `delta_content` in the `answer` phase: the next piece of the answer
 *   (incremental per phase), channel `answer`;
 * - `delta_content` in the `thinking` phase: reasoning, its own channel per
 *   run, ended when the answer begins (reasoning-runs.ts);
 * - every other phase (`tool_call`, `other` with `usage`, `done`), `data.error`
 *   and every other field pass byte for byte.
 *
 * A block ends the answer the way the stream ends one (§3.5):
 * `{"phase":"done","done":true}`.
 *
 * The request side is integrity-bound (requests/zai-request.ts): the server
 * checks an HMAC over the user's text, so DLP asks instead of rewriting.
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

const DONE = { type: 'chat:completion', data: { phase: 'done', done: true } };

/** The `data` object of a `chat:completion` event, or why the frame is not one. */
function completionData(frame: RawFrame): Record<string, unknown> | string {
  const json = sseJson(frame);
  if (!isRecord(json)) return 'zai: data is not a JSON object';
  if (json.type !== 'chat:completion' || !isRecord(json.data)) return 'zai: not a chat:completion';
  return json.data;
}

/** `endings` collects the frames that end the stream (read once, here, not again when sent). */
function decodeFrame(frame: RawFrame, reasoning: ReasoningRuns, endings: WeakSet<RawFrame>) {
  if (frame.sse === undefined) return passThrough(frame);
  const data = completionData(frame);
  if (typeof data === 'string') return passThrough(frame, data);
  if (data.done === true || data.phase === 'done') endings.add(frame);
  if (typeof data.delta_content !== 'string') return passThrough(frame);
  const thinking = data.phase === 'thinking';
  if (!thinking && data.phase !== 'answer') return passThrough(frame);
  const ends = thinking ? [] : reasoning.close();
  const located: LocatedText = {
    slot: {
      channel: thinking ? reasoning.channel() : 'answer',
      mode: 'delta',
      text: data.delta_content,
    },
    path: ['data', 'delta_content'],
  };
  const event = sseLocatedEvent(frame, [located]);
  return ends.length > 0 ? { ...event, ends } : event;
}

function zaiSession(): AdapterSession {
  const reasoning = new ReasoningRuns('thinking');
  const endings = new WeakSet<RawFrame>();
  let done = false;
  return {
    decode: (frame): WireEvent => decodeFrame(frame, reasoning, endings),
    emitted(event) {
      if (endings.has(event.frame)) done = true;
    },
    blockEnding: () => (done ? '' : `data: ${JSON.stringify(DONE)}\n\n`),
  };
}

export const zai: WireAdapter = {
  ...recognisers.zai,
  open: zaiSession,
};
