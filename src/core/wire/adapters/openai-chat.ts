/**
 * OpenAI Chat Completions (WIRE-FORMATS.md §7.1): SSE chunks with
 * `choices[i].delta.content` (a string, or an array of text parts), also
 * `refusal`, the `reasoning_content` and `reasoning` extensions of compatible
 * servers, and legacy `choices[i].text`; `[DONE]` at the end. Tool-call
 * deltas, usage chunks and every other field pass through untouched. The
 * non-streaming answer (`stream: false`) is the same adapter on a whole body.
 */
import { recognisers } from '../wire-recognisers.ts';
import { isRecord, renderSseJson, sseJson } from '../sse-json-render.ts';
import { type JsonPath, replaceStrings } from '../json-string-span.ts';
import { StringSlotTemplate } from '../string-slot-template.ts';
import {
  type AdapterSession,
  type TextSlot,
  type WireAdapter,
  type WireEvent,
  passThrough,
} from '../wire-event.ts';
import type { RawFrame } from '../raw-frame.ts';
import { type LocatedText, locatedJsonEvent } from '../located-text.ts';

/**
 * Guarded string fields of a streamed delta (or an answer's message), and the
 * channel each feeds. `reasoning_content` (DeepSeek, Qwen) and `reasoning`
 * (OpenRouter, vLLM) are kept apart: a server may send both with the same
 * text, and a page reads one of them.
 */
const DELTA_FIELDS = [
  ['content', 'choice'],
  ['refusal', 'refusal'],
  ['reasoning_content', 'reasoning'],
  ['reasoning', 'reasoning-text'],
] as const;

type Located = LocatedText;

/**
 * Text parts of `content` given as an array (Mistral and other compatible
 * servers): `{"type":"text","text":…}` parts feed the choice's text,
 * `{"type":"thinking","thinking":[{"text":…}]}` parts (or a string) its reasoning.
 */
function partSlots(
  parts: unknown[],
  base: (string | number)[],
  index: number,
  mode: 'delta',
): Located[] {
  const found: Located[] = [];
  parts.forEach((part: unknown, j: number) => {
    if (typeof part === 'string') {
      found.push({ slot: { channel: `choice:${index}`, mode, text: part }, path: [...base, j] });
      return;
    }
    if (!isRecord(part)) return;
    if (typeof part.text === 'string') {
      found.push({
        slot: { channel: `choice:${index}`, mode, text: part.text },
        path: [...base, j, 'text'],
      });
    }
    const thinking = part.thinking;
    if (typeof thinking === 'string') {
      found.push({
        slot: { channel: `reasoning-text:${index}`, mode, text: thinking },
        path: [...base, j, 'thinking'],
      });
    } else if (Array.isArray(thinking)) {
      thinking.forEach((inner: unknown, k: number) => {
        if (isRecord(inner) && typeof inner.text === 'string') {
          found.push({
            slot: { channel: `reasoning-text:${index}`, mode, text: inner.text },
            path: [...base, j, 'thinking', k, 'text'],
          });
        }
      });
    }
  });
  return found;
}

function choiceSlots(
  json: unknown,
  container: 'delta' | 'message',
  mode: TextSlot['mode'],
): Located[] {
  if (!isRecord(json) || !Array.isArray(json.choices)) return [];
  const found: Located[] = [];
  json.choices.forEach((choice: unknown, k: number) => {
    if (!isRecord(choice)) return;
    const index = typeof choice.index === 'number' ? choice.index : k;
    // Legacy completions (`/v1/completions`, and servers that answer chat in that shape).
    if (typeof choice.text === 'string') {
      found.push({
        slot: { channel: `choice:${index}`, mode, text: choice.text },
        path: ['choices', k, 'text'],
      });
    }
    const body = choice[container];
    if (!isRecord(body)) return;
    for (const [field, channel] of DELTA_FIELDS) {
      const text = body[field];
      if (typeof text === 'string') {
        found.push({
          slot: { channel: `${channel}:${index}`, mode, text },
          path: ['choices', k, container, field],
        });
      } else if (field === 'content' && Array.isArray(text)) {
        // Parts are pieces of one text: joined as deltas (an echo would end it at the first).
        found.push(...partSlots(text, ['choices', k, container, field], index, 'delta'));
      }
    }
  });
  return found;
}

/** A delta event: its frame and the path of its one guarded string. */
type DeltaEvent = WireEvent & { path: JsonPath };

/**
 * Renders a delta event (`this`) with its string replaced. One function for
 * every event, not a closure per event: the common delta chunk is decoded
 * without allocating more than the event itself (issue 19 §3, the adapter's
 * cost per event on top of the guard's). An own property, so a copy of the
 * event (`{ ...event, ends }`) renders the same.
 */
function renderDelta(this: DeltaEvent, texts: readonly string[]): string {
  return renderSseJson(this.frame, [{ path: this.path, value: texts[0] as string }]);
}

/** One guarded string at `path` of the frame's JSON data, re-rendered in place. */
function deltaEvent(frame: RawFrame, slot: TextSlot, path: JsonPath): WireEvent {
  const event: DeltaEvent = { frame, slots: [slot], path, render: renderDelta };
  return event;
}

/**
 * A streamed answer. `fastPath` (default on) reads the common delta chunk by
 * its learned shape (string-slot-template.ts) instead of parsing it; off only
 * in the test that proves both give the same.
 */
export function openAiChatStreamSession(fastPath = true): AdapterSession {
  let template: { id: unknown; created: unknown; model: unknown } | undefined;
  let done = false;
  /** Channels seen so far: `[DONE]` ends them all. */
  const opened = new Set<string>();
  // The shape of the last one-string chunk, with that string's channel and path. A hit
  // leaves `template` and `opened` as the slow path would: both were set by the chunk
  // the shape was learned from, and a hit has that chunk's channel.
  const deltas = fastPath ? new StringSlotTemplate<{ channel: string; path: JsonPath }>() : null;
  return {
    decode(frame: RawFrame): WireEvent {
      if (frame.sse === undefined) return passThrough(frame);
      const hit = deltas?.match(frame.sse.data);
      if (hit !== undefined) {
        const { channel, path } = hit.info;
        return deltaEvent(frame, { channel, mode: 'delta', text: hit.text }, path);
      }
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
      const only = located.length === 1 ? located[0] : undefined;
      if (only !== undefined && only.slot.mode === 'delta') {
        deltas?.learn(frame.sse.data, only.path, { channel: only.slot.channel, path: only.path });
      }
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
      // `[DONE]` carries no text (it is passed through): a frame with slots is not it.
      if (event.slots.length === 0 && event.frame.sse?.data.trim() === '[DONE]') done = true;
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
  open: () => openAiChatStreamSession(),
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
