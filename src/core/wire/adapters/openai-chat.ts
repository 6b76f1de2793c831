/**
 * OpenAI Chat Completions (WIRE-FORMATS.md §7.1): SSE chunks with
 * `choices[i].delta.content` (also `refusal` and the `reasoning_content`
 * extension of DeepSeek/Qwen-compatible servers), `[DONE]` at the end. Tool-call
 * deltas, usage chunks and every other field pass through untouched. The
 * non-streaming answer (`stream: false`) is the same adapter on a whole body.
 */
import { recognisers } from '../wire-recognisers.ts';
import { isRecord, renderSseJson, sseJson } from '../sse-json-render.ts';
import { replaceStrings } from '../json-string-span.ts';
import {
  type AdapterSession,
  type TextSlot,
  type WireAdapter,
  type WireEvent,
  passThrough,
} from '../wire-event.ts';
import type { RawFrame } from '../raw-frame.ts';
import { type LocatedText, locatedJsonEvent } from '../located-text.ts';

/** Guarded text fields of a streamed choice, and the channel each feeds. */
const DELTA_FIELDS = [
  ['content', 'choice'],
  ['refusal', 'refusal'],
  ['reasoning_content', 'reasoning'],
] as const;

type Located = LocatedText;

function choiceSlots(
  json: unknown,
  container: 'delta' | 'message',
  mode: TextSlot['mode'],
): Located[] {
  if (!isRecord(json) || !Array.isArray(json.choices)) return [];
  const found: Located[] = [];
  json.choices.forEach((choice: unknown, k: number) => {
    if (!isRecord(choice)) return;
    const body = choice[container];
    if (!isRecord(body)) return;
    const index = typeof choice.index === 'number' ? choice.index : k;
    for (const [field, channel] of DELTA_FIELDS) {
      const text = body[field];
      if (typeof text === 'string') {
        found.push({
          slot: { channel: `${channel}:${index}`, mode, text },
          path: ['choices', k, container, field],
        });
      }
    }
  });
  return found;
}

function streamSession(): AdapterSession {
  let template: { id: unknown; created: unknown; model: unknown } | undefined;
  let done = false;
  /** Channels seen so far: `[DONE]` ends them all. */
  const opened = new Set<string>();
  return {
    decode(frame: RawFrame): WireEvent {
      if (frame.sse === undefined) return passThrough(frame);
      if (frame.sse.data.trim() === '[DONE]') {
        // `[DONE]` is the end of the answer: end every channel before it, so text the
        // guard still holds (a possible match's prefix) is decided and released now,
        // not when the connection closes — a client may keep the connection open, or
        // wait for `[DONE]` before closing it (reported for EventSource pages).
        return { ...passThrough(frame), ends: [...opened] };
      }
      const json = sseJson(frame);
      if (!isRecord(json)) return passThrough(frame, 'openai-chat: data is not a JSON object');
      template ??= { id: json.id, created: json.created, model: json.model };
      if (!Array.isArray(json.choices)) {
        return passThrough(
          frame,
          json.error === undefined ? 'openai-chat: chunk without choices' : undefined,
        );
      }
      const located = choiceSlots(json, 'delta', 'delta');
      for (const l of located) opened.add(l.slot.channel);
      return {
        frame,
        slots: located.map((l) => l.slot),
        render: (texts) =>
          renderSseJson(
            frame,
            located.map((l, i) => ({ path: l.path, value: texts[i] as string })),
          ),
      };
    },
    emitted(event) {
      if (event.frame.sse?.data.trim() === '[DONE]') done = true;
    },
    blockEnding() {
      if (done) return '';
      const chunk = {
        id: template?.id ?? 'chatcmpl-blocked',
        object: 'chat.completion.chunk',
        created: template?.created ?? 0,
        model: template?.model ?? 'unknown',
        choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'content_filter' }],
      };
      return `data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`;
    },
  };
}

export const openAiChatStream: WireAdapter = {
  ...recognisers.openAiChatStream,
  open: streamSession,
};

/** `stream: false` answers: `choices[i].message.content` in one JSON body. */
export const openAiChatJson: WireAdapter = {
  ...recognisers.openAiChatJson,
  open: () => {
    let body: { raw: string; located: Located[] } | undefined;
    let emitted = false;
    return {
      decode(frame) {
        let json: unknown;
        try {
          json = JSON.parse(frame.payload ?? '');
        } catch {
          return passThrough(frame, 'openai-chat: body is not JSON');
        }
        const located = choiceSlots(json, 'message', 'echo');
        body = { raw: frame.raw, located };
        return locatedJsonEvent(frame, located);
      },
      emitted() {
        emitted = true;
      },
      // Blocked before any text could be released: the same answer with its text
      // emptied and finish_reason "content_filter", so the page still parses it.
      blockEnding() {
        if (emitted || body === undefined) return '';
        const emptied = replaceStrings(
          body.raw,
          body.located.map((l) => ({ path: l.path, value: '' })),
        );
        const json = JSON.parse(emptied) as { choices?: { finish_reason?: unknown }[] };
        for (const choice of json.choices ?? []) choice.finish_reason = 'content_filter';
        return JSON.stringify(json);
      },
    };
  },
};
