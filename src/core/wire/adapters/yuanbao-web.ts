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
 *
 * The `text` and `think` chunks, nearly all of a stream, are read by their
 * learned shape (string-slot-template.ts) instead of `JSON.parse` (issue 20's
 * wire ≤ 2× target); test/unit/wire/string-slot-template.test.ts checks both
 * paths give the same for any events and split.
 */
import type { LocatedText } from '../located-text.ts';
import type { RawFrame } from '../raw-frame.ts';
import { ReasoningRuns } from '../reasoning-runs.ts';
import { isRecord, renderSseJson, sseJson } from '../sse-json-render.ts';
import { sseLocatedEvent } from '../sse-located-event.ts';
import { StringSlotTemplate } from '../string-slot-template.ts';
import {
  type AdapterSession,
  type TextSlot,
  type WireAdapter,
  type WireEvent,
  passThrough,
} from '../wire-event.ts';
import { recognisers } from '../wire-recognisers.ts';

/** Data lines that are not JSON but are known to occur (§3.4): status words, bracketed markers. */
const KNOWN_NOT_JSON = /^(?:\[|[a-z])/;

/** The two guarded chunk types, and the field each carries its delta in. */
type DeltaKind = 'text' | 'think';
const FIELD = { text: 'msg', think: 'content' } as const;

/** Reasoning runs and the answer between them: which channel a delta feeds, which run it ends. */
class Channels {
  private readonly runs = new ReasoningRuns('think');
  /** A reasoning run is open (its channel was handed out and not ended yet). */
  private thinking = false;

  /** The channel of a delta of `kind`, and the reasoning run it ends (an answer delta after one). */
  of(kind: DeltaKind): { channel: string; ends: string[] | undefined } {
    if (kind === 'think') {
      this.thinking = true;
      return { channel: this.runs.channel(), ends: undefined };
    }
    if (!this.thinking) return ANSWER;
    this.thinking = false;
    return { channel: 'answer', ends: this.runs.close() };
  }
}

const ANSWER = { channel: 'answer', ends: undefined } as const;

/** The kind of a guarded chunk, or undefined for every other. */
function deltaKind(json: Record<string, unknown>): DeltaKind | undefined {
  if (json.type === 'text' && typeof json.msg === 'string') return 'text';
  if (json.type === 'think' && typeof json.content === 'string') return 'think';
  return undefined;
}

/** A `text` or `think` chunk read by its learned shape: the event the slow path gives, as a class. */
class ShapedDelta implements WireEvent {
  readonly slots: TextSlot[];
  readonly ends?: string[];

  constructor(
    readonly frame: RawFrame,
    private readonly kind: DeltaKind,
    channel: string,
    text: string,
    ends: string[] | undefined,
  ) {
    this.slots = [{ channel, mode: 'delta', text }];
    if (ends !== undefined) this.ends = ends;
  }

  render(texts: readonly string[]): string {
    return renderSseJson(this.frame, [{ path: [FIELD[this.kind]], value: texts[0] as string }]);
  }
}

function decodeFrame(
  frame: RawFrame,
  data: string,
  channels: Channels,
  shapes: Record<DeltaKind, StringSlotTemplate<DeltaKind>> | null,
): WireEvent {
  const json = sseJson(frame);
  if (!isRecord(json)) {
    return passThrough(frame, KNOWN_NOT_JSON.test(data) ? undefined : 'yuanbao: data is not JSON');
  }
  const kind = deltaKind(json);
  if (kind === undefined) return passThrough(frame);
  const field = FIELD[kind];
  const { channel, ends } = channels.of(kind);
  const located: LocatedText = {
    slot: { channel, mode: 'delta', text: json[field] as string },
    path: [field],
  };
  shapes?.[kind].learn(data, [field], kind);
  const event = sseLocatedEvent(frame, [located]);
  return ends !== undefined ? { ...event, ends } : event;
}

/**
 * One answer. `fastPath` (default on) reads `text` and `think` chunks by their
 * learned shapes instead of parsing them; off only in the test that proves both
 * give the same.
 */
export function yuanbaoSession(fastPath = true): AdapterSession {
  const channels = new Channels();
  const shapes = fastPath
    ? { text: new StringSlotTemplate<DeltaKind>(), think: new StringSlotTemplate<DeltaKind>() }
    : null;
  let done = false;
  return {
    decode(frame) {
      const data = frame.sse?.data;
      if (data === undefined) return passThrough(frame);
      // The learned chunk with another string in its delta: the same type, so the slow
      // path would find the same kind (it only checks the value is a string).
      const hit = shapes?.text.match(data) ?? shapes?.think.match(data);
      if (hit === undefined) return decodeFrame(frame, data, channels, shapes);
      const { channel, ends } = channels.of(hit.info);
      return new ShapedDelta(frame, hit.info, channel, hit.text, ends);
    },
    emitted(event) {
      if (event.frame.sse?.data === '[DONE]') done = true;
    },
    blockEnding: () => (done ? '' : 'data: [DONE]\n\n'),
  };
}

export const yuanbaoWeb: WireAdapter = {
  ...recognisers.yuanbaoWeb,
  open: () => yuanbaoSession(),
};
