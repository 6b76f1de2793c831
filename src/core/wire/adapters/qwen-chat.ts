/**
 * Qwen Chat (chat.qwen.ai), WIRE-FORMATS-2.md §3.1. Confidence MED: two
 * public clients agree (Chat2API `qwen-ai.ts`, gpt4free `Qwen.py`); no live
 * capture, and the history endpoint is not confirmed (§5), so only the answer
 * stream is read here.
 *
 * SSE: `{"response.created":{…}}` first, then OpenAI-like chunks
 * `{"choices":[{"delta":{"role","content","phase","status","extra"}}]}`, then
 * `data: [DONE]`. It is claimed before the OpenAI chat adapter (its URL ends in
 * `/chat/completions`) because `phase` splits one `content` field into
 * reasoning and answer, and the thinking summary is not in `content` at all.
 * Guarded:
 * - `delta.content` with `phase` `answer` or null: incremental
 *   (`incremental_output: true`), channel `answer`;
 * - `delta.content` in the `think` and `thinking_summary` phases: reasoning,
 *   its own channel, ended when the answer begins;
 * - `delta.extra.summary_thought.content[i]`: the thinking summary, an array
 *   re-sent whole as it grows (cumulative), each entry a snapshot channel.
 * Every other field and event passes byte for byte.
 *
 * A block ends the answer as the stream ends one (§3.1): a chunk with
 * `phase: "answer"`, `status: "finished"` and no text, then `data: [DONE]`.
 */
import type { RawFrame } from '../raw-frame.ts';
import { ReasoningRuns } from '../reasoning-runs.ts';
import { type StringEdit, isRecord, renderSseJson, sseJson } from '../sse-json-render.ts';
import {
  type AdapterSession,
  type TextSlot,
  type WireAdapter,
  type WireEvent,
  passThrough,
} from '../wire-event.ts';
import { recognisers } from '../wire-recognisers.ts';

const ANSWER = 'answer';
const REASONING_PHASES = new Set(['think', 'thinking_summary']);
const DELTA = ['choices', 0, 'delta'] as const;

interface Located {
  slot: TextSlot;
  path: StringEdit['path'];
}

function summarySlots(delta: Record<string, unknown>): Located[] {
  const extra = delta.extra;
  const summary = isRecord(extra) ? extra.summary_thought : undefined;
  const content = isRecord(summary) ? summary.content : undefined;
  if (!Array.isArray(content)) return [];
  return content.flatMap((text, i): Located[] =>
    typeof text === 'string'
      ? [
          {
            slot: { channel: `summary:${String(i)}`, mode: 'snapshot', text },
            path: [...DELTA, 'extra', 'summary_thought', 'content', i],
          },
        ]
      : [],
  );
}

function locate(delta: Record<string, unknown>, reasoning: ReasoningRuns) {
  const located: Located[] = [];
  let ends: string[] = [];
  const thinking = typeof delta.phase === 'string' && REASONING_PHASES.has(delta.phase);
  if (typeof delta.content === 'string') {
    if (!thinking) ends = reasoning.close();
    const channel = thinking ? reasoning.channel() : ANSWER;
    located.push({
      slot: { channel, mode: 'delta', text: delta.content },
      path: [...DELTA, 'content'],
    });
  }
  located.push(...summarySlots(delta));
  return { located, ends };
}

function decodeFrame(frame: RawFrame, reasoning: ReasoningRuns): WireEvent {
  if (frame.sse === undefined || frame.sse.data === '[DONE]') return passThrough(frame);
  const json = sseJson(frame);
  if (!isRecord(json)) return passThrough(frame, 'qwen-chat: data is not a JSON object');
  if (!Array.isArray(json.choices)) {
    const known = 'response.created' in json || 'error' in json;
    return passThrough(frame, known ? undefined : 'qwen-chat: event without choices');
  }
  const delta = isRecord(json.choices[0]) ? json.choices[0].delta : undefined;
  if (!isRecord(delta)) return passThrough(frame);
  const { located, ends } = locate(delta, reasoning);
  const event: WireEvent =
    located.length === 0
      ? passThrough(frame)
      : {
          frame,
          slots: located.map((l) => l.slot),
          render: (texts) =>
            renderSseJson(
              frame,
              located.map((l, i) => ({ path: l.path, value: texts[i] as string })),
            ),
        };
  return ends.length > 0 ? { ...event, ends } : event;
}

function qwenSession(): AdapterSession {
  const reasoning = new ReasoningRuns('think');
  let done = false;
  return {
    decode: (frame) => decodeFrame(frame, reasoning),
    emitted(event) {
      if (event.frame.sse?.data === '[DONE]') done = true;
    },
    blockEnding() {
      if (done) return '';
      const finished = {
        choices: [
          { delta: { role: 'assistant', content: '', phase: 'answer', status: 'finished' } },
        ],
      };
      return `data: ${JSON.stringify(finished)}\n\ndata: [DONE]\n\n`;
    },
  };
}

export const qwenChat: WireAdapter = {
  ...recognisers.qwenChat,
  open: qwenSession,
};
