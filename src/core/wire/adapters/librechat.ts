/**
 * LibreChat's SSE (WIRE-FORMATS.md §6.2): the POST response (v0.8.0) or the
 * `GET /api/agents/chat/stream/{streamId}` subscription (v0.8.6+), read with the
 * XHR-based `sse.js`. Every event is `event: message` with JSON data, dispatched
 * by the client (`useSSE.ts`) in this order:
 *
 * - `{final: true, conversation, requestMessage, responseMessage}`: the full
 *   answer again (`responseMessage.text` and `responseMessage.content[]`), which
 *   the UI adopts: `echo` slots, consistent with the deltas (§8.4);
 * - `{created: true, message}`: the user's own message echoed back, untouched;
 * - `{event: "on_message_delta" | "on_reasoning_delta", data: {id, delta: {content: [parts]}}}`:
 *   incremental text (`{type:"text", text}`) and thinking (`{type:"think", think}`)
 *   parts; each content index (the run step's `index`, learnt from `on_run_step`)
 *   is its own channel, `content:<index>:<text|think>`, the same index as the
 *   final `content[]`; other step events pass through;
 * - `{sync: true, resumeState}` on a resumed subscription: `aggregatedContent[]`
 *   is a snapshot of every content part so far;
 * - `{type, index, [type]: part}` (assistants endpoint): the whole part so far;
 * - `{message: true, text}` (legacy endpoints): the whole answer so far.
 *
 * `event: error` and `event: attachment` pass through. A blocked answer ends
 * like a finished one: a `final` event whose `responseMessage` carries the text
 * the page already shows (the same shape the server sends when generation is
 * aborted), so `sse.js` closes normally and the UI leaves its streaming state.
 */
import { recognisers } from '../wire-recognisers.ts';
import type { JsonPath } from '../json-string-span.ts';
import type { RawFrame } from '../raw-frame.ts';
import { isRecord, renderSseJson, sseJson } from '../sse-json-render.ts';
import {
  type AdapterSession,
  type SlotMode,
  type TextSlot,
  type WireAdapter,
  type WireEvent,
  passThrough,
} from '../wire-event.ts';

/** Step events of the agents protocol (`StepEvents`) that carry no answer text. */
const PASS_STEP_EVENTS = new Set([
  'on_run_step',
  'on_run_step_delta',
  'on_run_step_completed',
  'on_run_step_closed',
  'on_agent_update',
  'on_context_usage',
  'on_summarize_start',
  'on_summarize_delta',
  'on_summarize_complete',
  'on_subagent_update',
  'on_sandbox_starting',
]);

/** SSE event names sse.js listeners other than `message` handle (§6.2). */
const PASS_SSE_EVENTS = new Set(['error', 'attachment', 'cancel']);

interface Located {
  slot: TextSlot;
  path: JsonPath;
}

/** Text fields of one content part: `{type:"text", text}` (or `text: {value}`) and `{type:"think", think}`. */
function partTexts(
  part: unknown,
  channelOf: (type: 'text' | 'think') => string,
  mode: SlotMode,
  base: JsonPath,
): Located[] {
  if (!isRecord(part)) return [];
  if (part.type === 'text') {
    if (typeof part.text === 'string') {
      return [
        { slot: { channel: channelOf('text'), mode, text: part.text }, path: [...base, 'text'] },
      ];
    }
    if (isRecord(part.text) && typeof part.text.value === 'string') {
      return [
        {
          slot: { channel: channelOf('text'), mode, text: part.text.value },
          path: [...base, 'text', 'value'],
        },
      ];
    }
  }
  if (part.type === 'think' && typeof part.think === 'string') {
    return [
      { slot: { channel: channelOf('think'), mode, text: part.think }, path: [...base, 'think'] },
    ];
  }
  return [];
}

function contentTexts(content: unknown, mode: SlotMode, base: JsonPath): Located[] {
  if (!Array.isArray(content)) return [];
  return content.flatMap((part: unknown, i: number) =>
    partTexts(part, (type) => `content:${i}:${type}`, mode, [...base, i]),
  );
}

function located(
  frame: RawFrame,
  found: Located[],
  onRender: (texts: readonly string[]) => void,
): WireEvent {
  return {
    frame,
    slots: found.map((l) => l.slot),
    render(texts) {
      onRender(texts);
      return renderSseJson(
        frame,
        found.map((l, i) => ({ path: l.path, value: texts[i] as string })),
      );
    },
  };
}

/** `content:3:text` → [3, 'text']; other channels → null. */
function contentChannel(channel: string): [number, string] | null {
  const m = /^content:(\d+):(text|think)$/.exec(channel);
  return m === null ? null : [Number(m[1]), m[2] as string];
}

export function libreChatSession(): AdapterSession {
  /** Run step id → content index (from `on_run_step` and a resume's `runSteps`). */
  const stepIndex = new Map<string, number>();
  /** What the page shows per channel, from the frames actually sent. */
  const shown = new Map<string, string>();
  const rendered = new WeakMap<WireEvent, readonly string[]>();
  let requestMessage: Record<string, unknown> | undefined;
  let conversationId: unknown;
  let finalSent = false;

  const learnStep = (step: unknown) => {
    if (isRecord(step) && typeof step.id === 'string' && typeof step.index === 'number') {
      stepIndex.set(step.id, step.index);
    }
  };

  const event = (frame: RawFrame, found: Located[], unrecognised?: string): WireEvent => {
    if (found.length === 0) return passThrough(frame, unrecognised);
    const e = located(frame, found, (texts) => rendered.set(e, texts));
    return e;
  };

  return {
    decode(frame: RawFrame): WireEvent {
      const sse = frame.sse;
      if (sse === undefined) return passThrough(frame);
      const name = sse.event ?? 'message';
      if (name !== 'message') {
        return passThrough(
          frame,
          PASS_SSE_EVENTS.has(name) ? undefined : `librechat: event ${name}`,
        );
      }
      const json = sseJson(frame);
      if (!isRecord(json)) return passThrough(frame, 'librechat: data is not a JSON object');

      if (json.final != null) {
        const response = json.responseMessage;
        if (!isRecord(response)) return passThrough(frame);
        const found = contentTexts(response.content, 'echo', ['responseMessage', 'content']);
        if (typeof response.text === 'string') {
          found.push({
            slot: { channel: 'text', mode: 'echo', text: response.text },
            path: ['responseMessage', 'text'],
          });
        }
        return event(frame, found);
      }
      if (json.created != null) {
        if (isRecord(json.message)) {
          requestMessage = json.message;
          conversationId ??= json.message.conversationId;
        }
        return passThrough(frame);
      }
      if (typeof json.event === 'string') {
        const data = json.data;
        if (json.event === 'on_run_step') learnStep(data);
        if (json.event === 'on_message_delta' || json.event === 'on_reasoning_delta') {
          if (!isRecord(data) || !isRecord(data.delta)) return passThrough(frame);
          const index = typeof data.id === 'string' ? stepIndex.get(data.id) : undefined;
          const key = index === undefined ? `step:${String(data.id)}` : `content:${index}`;
          const parts = data.delta.content;
          const found = Array.isArray(parts)
            ? parts.flatMap((part: unknown, j: number) =>
                partTexts(part, (type) => `${key}:${type}`, 'delta', [
                  'data',
                  'delta',
                  'content',
                  j,
                ]),
              )
            : [];
          return event(frame, found);
        }
        return passThrough(
          frame,
          PASS_STEP_EVENTS.has(json.event) ? undefined : `librechat: step event ${json.event}`,
        );
      }
      if (json.sync != null) {
        const state = json.resumeState;
        if (!isRecord(state)) return passThrough(frame);
        if (Array.isArray(state.runSteps)) state.runSteps.forEach(learnStep);
        if (isRecord(state.userMessage)) requestMessage ??= state.userMessage;
        conversationId ??= state.conversationId;
        return event(
          frame,
          contentTexts(state.aggregatedContent, 'snapshot', ['resumeState', 'aggregatedContent']),
        );
      }
      if (typeof json.type === 'string') {
        const index = typeof json.index === 'number' ? json.index : 0;
        const part = { type: json.type, text: json.text, think: json.think };
        return event(
          frame,
          partTexts(part, (type) => `content:${index}:${type}`, 'snapshot', []),
        );
      }
      if (json.message != null) {
        const found: Located[] = [];
        for (const field of ['text', 'response']) {
          const text = json[field];
          if (typeof text === 'string') {
            found.push({ slot: { channel: 'text', mode: 'snapshot', text }, path: [field] });
          }
        }
        return event(frame, found);
      }
      return passThrough(frame, 'librechat: unknown message shape');
    },
    emitted(sent) {
      const texts = rendered.get(sent) ?? sent.slots.map((s) => s.text);
      sent.slots.forEach((slot, i) => {
        const text = texts[i] ?? '';
        shown.set(
          slot.channel,
          slot.mode === 'delta' ? (shown.get(slot.channel) ?? '') + text : text,
        );
      });
      const json = sseJson(sent.frame);
      if (isRecord(json) && json.final != null) finalSent = true;
    },
    blockEnding() {
      if (finalSent) return '';
      const content: { index: number; part: Record<string, string> }[] = [];
      for (const [channel, text] of shown) {
        const at = contentChannel(channel);
        if (at === null) continue;
        const [index, type] = at;
        content.push({ index, part: type === 'think' ? { type, think: text } : { type, text } });
      }
      content.sort((a, b) => a.index - b.index);
      const request = requestMessage ?? {};
      const requestId = typeof request.messageId === 'string' ? request.messageId : 'blocked';
      const final = {
        final: true,
        conversation: { conversationId: conversationId ?? request.conversationId ?? null },
        requestMessage: request,
        responseMessage: {
          messageId: `${requestId}_`,
          parentMessageId: requestId,
          conversationId: conversationId ?? request.conversationId ?? null,
          isCreatedByUser: false,
          text: shown.get('text') ?? '',
          content: content.map((c) => c.part),
          unfinished: false,
          error: false,
        },
      };
      return `event: message\ndata: ${JSON.stringify(final)}\n\n`;
    },
  };
}

export const libreChat: WireAdapter = {
  ...recognisers.libreChat,
  open: libreChatSession,
};
