/**
 * The Vercel AI SDK's UI message stream (SDK 5, 6 and 7; WIRE-FORMATS-2.md
 * §1.3–§1.5): SSE, one `data: {json}` per chunk, `data: [DONE]` last, no
 * `event:` or `id:` lines, optional `: keep-alive` comments.
 *
 * Guarded: `text-delta.delta` (channel per text part) and `reasoning-delta.delta`
 * (per reasoning part), incremental; SDK 5.0's whole `reasoning` chunk (`text`).
 * Every other chunk type passes through unchanged, byte for byte. A `*-end`
 * chunk ends its part's channel, so held text is released into the deltas
 * before it (§1.5 rule 5: flush before `text-end`); the `text-start` of every
 * part is kept (rule 2), and no chunk ever gains a field (rule 1: up to
 * 5.0.216 / 6.0.230 the chunk schemas were strict and an unknown key errors
 * the whole stream).
 *
 * A block ends the answer as the SDK ends one: the parts the page saw opened
 * are closed (`text-end`, `reasoning-end`), an open step is finished, then
 * `{"type":"finish"}` and `[DONE]`. The `finish` chunk carries no
 * `finishReason`: ai@5.0.0's strict schema has only `messageMetadata` there.
 */
import type { RawFrame } from '../raw-frame.ts';
import { isRecord, renderSseJson, sseJson } from '../sse-json-render.ts';
import {
  type AdapterSession,
  type TextSlot,
  type WireAdapter,
  type WireEvent,
  passThrough,
} from '../wire-event.ts';
import { recognisers } from '../wire-recognisers.ts';
import { StringSlotTemplate } from '../string-slot-template.ts';

/** Chunk types of SDK 5.0–7.x (`ui-message-chunks.ts`) that carry no guarded text. */
const PASS_TYPES = new Set([
  'start',
  'start-step',
  'finish-step',
  'text-start',
  'text-end',
  'reasoning-start',
  'reasoning-end',
  'reasoning-part-finish',
  'tool-input-start',
  'tool-input-delta',
  'tool-input-available',
  'tool-input-error',
  'tool-approval-request',
  'tool-approval-response',
  'tool-output-available',
  'tool-output-error',
  'tool-output-denied',
  'source-url',
  'source-document',
  'file',
  'reasoning-file',
  'message-metadata',
  'finish',
  'abort',
  'error',
  'custom',
  'steering-message',
  'reset-step',
]);

/** The part kinds whose deltas are guarded, by the prefix of their chunk types. */
type PartKind = 'text' | 'reasoning';

/** The key of a part among the parts of its kind. */
function partKey(kind: PartKind, id: string): string {
  return `${kind}:${id}`;
}

/** Per-stream state: which parts are open (as sent to the page) and their channels. */
class UiStreamState {
  /** `kind:id` → channel of the current part with that id (a reused id gets a fresh one). */
  private readonly channels = new Map<string, string>();
  private readonly opened = new Map<string, number>();
  /** Parts whose start reached the page and whose end did not, in order. */
  readonly openOnPage = new Map<string, { kind: PartKind; id: string }>();
  stepOpenOnPage = false;
  finished = false;
  done = false;

  /** The channel of a part; a `*-start` opens a new one. */
  channel(kind: PartKind, id: string, start = false): string {
    const key = partKey(kind, id);
    const known = start ? undefined : this.channels.get(key);
    if (known !== undefined) return known;
    const n = (this.opened.get(key) ?? -1) + 1;
    this.opened.set(key, n);
    const channel = n === 0 ? key : `${key}#${n}`;
    this.channels.set(key, channel);
    return channel;
  }

  /**
   * The channel of an open part by its `partKey`, as `channel(kind, id)` gives it:
   * the learned delta shape keeps the key, so a delta read by it builds no string
   * (issue 20's wire target, the adapter's cost per event).
   */
  channelByKey(key: string, kind: PartKind, id: string): string {
    return this.channels.get(key) ?? this.channel(kind, id);
  }

  /** What the page has seen: opened and closed parts and steps, the end. */
  sent(chunk: Record<string, unknown>): void {
    const type = chunk.type;
    const id = typeof chunk.id === 'string' ? chunk.id : '';
    if (type === 'text-start' || type === 'reasoning-start') {
      const kind = type === 'text-start' ? 'text' : 'reasoning';
      this.openOnPage.set(`${kind}:${id}`, { kind, id });
    }
    if (type === 'text-end') this.openOnPage.delete(`text:${id}`);
    if (type === 'reasoning-end') this.openOnPage.delete(`reasoning:${id}`);
    if (type === 'start-step') this.stepOpenOnPage = true;
    if (type === 'finish-step') {
      this.stepOpenOnPage = false;
      this.openOnPage.clear();
    }
    if (type === 'finish') this.finished = true;
  }
}

function chunkOf(frame: RawFrame): Record<string, unknown> | undefined {
  const data = sseJson(frame);
  return isRecord(data) && typeof data.type === 'string' ? data : undefined;
}

function deltaEvent(frame: RawFrame, channel: string, key: string, text: string): WireEvent {
  return {
    frame,
    slots: [{ channel, mode: 'delta', text }],
    render: (texts) => renderSseJson(frame, [{ path: [key], value: texts[0] as string }]),
  };
}

/** A delta chunk's part, stored with its learned shape (string-slot-template.ts). */
interface DeltaShape {
  kind: PartKind;
  id: string;
  /** `partKey(kind, id)`, built once with the shape. */
  key: string;
}

function decodeChunk(
  frame: RawFrame,
  state: UiStreamState,
  deltas: StringSlotTemplate<DeltaShape> | null,
): WireEvent {
  if (frame.sse === undefined || frame.sse.data === '[DONE]') return passThrough(frame);
  const chunk = chunkOf(frame);
  if (chunk === undefined) return passThrough(frame, 'ai-sdk-ui: data is not a chunk');
  const type = chunk.type as string;
  const id = typeof chunk.id === 'string' ? chunk.id : '';
  switch (type) {
    case 'text-start':
    case 'reasoning-start':
      state.channel(type === 'text-start' ? 'text' : 'reasoning', id, true);
      return passThrough(frame);
    case 'text-delta':
    case 'reasoning-delta': {
      if (typeof chunk.delta !== 'string') return passThrough(frame, `ai-sdk-ui: ${type} delta`);
      const kind = type === 'text-delta' ? 'text' : 'reasoning';
      const channel = state.channel(kind, id);
      deltas?.learn(frame.sse.data, ['delta'], { kind, id, key: partKey(kind, id) });
      return deltaEvent(frame, channel, 'delta', chunk.delta);
    }
    case 'text-end':
    case 'reasoning-end':
      return {
        ...passThrough(frame),
        ends: [state.channel(type === 'text-end' ? 'text' : 'reasoning', id)],
      };
    case 'reasoning':
      // SDK 5.0's whole reasoning part (`{type, text, providerMetadata?}`).
      if (typeof chunk.text !== 'string') return passThrough(frame, 'ai-sdk-ui: reasoning text');
      return deltaEvent(frame, state.channel('reasoning', id, true), 'text', chunk.text);
    default:
      if (PASS_TYPES.has(type) || type.startsWith('data-')) return passThrough(frame);
      return passThrough(frame, `ai-sdk-ui: chunk ${type}`);
  }
}

const sseChunk = (chunk: Record<string, unknown>) => `data: ${JSON.stringify(chunk)}\n\n`;

/** A delta chunk decoded by its learned shape: the event `deltaEvent` gives, as a class. */
class ShapedDelta implements WireEvent {
  readonly slots: TextSlot[];

  constructor(
    readonly frame: RawFrame,
    channel: string,
    text: string,
  ) {
    this.slots = [{ channel, mode: 'delta', text }];
  }

  render(texts: readonly string[]): string {
    return renderSseJson(this.frame, [{ path: ['delta'], value: texts[0] as string }]);
  }
}

/**
 * One answer. `fastPath` (default on) reads `text-delta` and `reasoning-delta`
 * chunks by their learned shape instead of parsing them, twice (decoded, then
 * emitted); off only in the test that proves both give the same.
 */
export function aiSdkUiSession(fastPath = true): AdapterSession {
  const state = new UiStreamState();
  const deltas = fastPath ? new StringSlotTemplate<DeltaShape>() : null;
  return {
    decode(frame) {
      // A delta chunk in the learned shape: its type and part are the learned chunk's, so
      // the slow path would look up the same channel (a lookup: that chunk made the part).
      const hit =
        deltas !== null && frame.sse !== undefined ? deltas.match(frame.sse.data) : undefined;
      if (hit === undefined) return decodeChunk(frame, state, deltas);
      const { kind, id, key } = hit.info;
      return new ShapedDelta(frame, state.channelByKey(key, kind, id), hit.text);
    },
    emitted(event) {
      // A delta chunk: `state.sent` ignores its type, so it is not parsed again.
      if (event instanceof ShapedDelta) return;
      if (event.frame.sse?.data === '[DONE]') state.done = true;
      const chunk = chunkOf(event.frame);
      if (chunk !== undefined) state.sent(chunk);
    },
    blockEnding() {
      if (state.done) return '';
      let out = '';
      if (!state.finished) {
        for (const { kind, id } of state.openOnPage.values()) {
          out += sseChunk({ type: `${kind}-end`, id });
        }
        if (state.stepOpenOnPage) out += sseChunk({ type: 'finish-step' });
        out += sseChunk({ type: 'finish' });
      }
      return `${out}data: [DONE]\n\n`;
    },
  };
}

export const aiSdkUiStream: WireAdapter = {
  ...recognisers.aiSdkUiStream,
  open: aiSdkUiSession,
};
