/**
 * Zhipu ChatGLM (chatglm.cn), WIRE-FORMATS-2.md §3.5. Confidence MED: Chat2API
 * `glm.ts` and glm-free-api agree; no live capture, and the history route is
 * a list only (§3.5), so only the answer stream is read.
 *
 * The answer to `POST /chatglm/backend-api/assistant/stream` is SSE, each event
 * `{conversation_id, status, parts:[{logic_id, status, content:[…]}]}`.
 * **Each event re-sends whole parts** (both clients replace the part cached
 * under its `logic_id` and diff the text): cumulative per part. So each text
 * item of a part is a snapshot channel, `part:<logic_id>:<index>`: `text` of
 * a `text` item, `think` of a `think` item (reasoning), `code` of a `code`
 * item. An item is complete (an echo: the channel ends there) once a later
 * item follows it in its part, or its part's `status` is `finish`, so a
 * reasoning tail never holds the answer behind it. Should a complete item
 * change after all, its new text is guarded whole on a fresh channel, never
 * dropped. Images, tool results, execution output, `meta_data` and every
 * other field pass byte for byte.
 *
 * A block ends the answer the way the site ends a refused one (§3.5,
 * "moderation"): `status: "intervene"` with an (empty) `last_error.intervene_text`
 * and no parts, which both clients read as the end.
 */
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

/** The field holding the text of each guarded item type. */
const TEXT_FIELD: Readonly<Record<string, string>> = { text: 'text', think: 'think', code: 'code' };

/** The statuses that end the stream (§3.5). */
const FINAL_STATUS = new Set(['finish', 'intervene']);

/**
 * Channel names per item. A complete item's channel is finished; if the item's
 * text changes afterwards (not what the clients expect, §3.5), the change is
 * guarded on a new generation of the name rather than fed to a finished channel.
 */
class ItemChannels {
  private readonly complete = new Map<string, { generation: number; text: string }>();

  name(base: string, text: string, complete: boolean): string {
    const known = this.complete.get(base);
    const generation =
      known === undefined ? 0 : known.text === text ? known.generation : known.generation + 1;
    if (complete || known !== undefined) this.complete.set(base, { generation, text });
    return generation === 0 ? base : `${base}#${String(generation)}`;
  }
}

function itemSlots(
  part: Record<string, unknown>,
  k: number,
  channels: ItemChannels,
): LocatedText[] {
  const content = part.content;
  if (!Array.isArray(content)) return [];
  const logic = typeof part.logic_id === 'string' ? part.logic_id : String(k);
  const partDone = part.status === 'finish';
  return content.flatMap((item: unknown, i): LocatedText[] => {
    if (!isRecord(item) || typeof item.type !== 'string') return [];
    const field = TEXT_FIELD[item.type];
    const text = field === undefined ? undefined : item[field];
    if (field === undefined || typeof text !== 'string') return [];
    const complete = partDone || i < content.length - 1;
    const channel = channels.name(`part:${logic}:${String(i)}`, text, complete);
    return [
      {
        slot: { channel, mode: complete ? 'echo' : 'snapshot', text },
        path: ['parts', k, 'content', i, field],
      },
    ];
  });
}

function decodeFrame(frame: RawFrame, json: unknown, channels: ItemChannels): WireEvent {
  if (frame.sse === undefined) return passThrough(frame);
  if (!isRecord(json)) return passThrough(frame, 'chatglm: data is not a JSON object');
  if (!Array.isArray(json.parts)) {
    return passThrough(frame, 'status' in json ? undefined : 'chatglm: event without parts');
  }
  const parts: unknown[] = json.parts;
  return sseLocatedEvent(
    frame,
    parts.flatMap((part, k) => (isRecord(part) ? itemSlots(part, k, channels) : [])),
  );
}

function chatglmSession(): AdapterSession {
  const channels = new ItemChannels();
  /** Frames whose status ends the stream, found when decoded (each frame is parsed once). */
  const finals = new WeakSet<RawFrame>();
  let conversation: unknown = '';
  let ended = false;
  return {
    decode(frame) {
      const json = sseJson(frame);
      if (isRecord(json)) {
        if (typeof json.conversation_id === 'string') conversation = json.conversation_id;
        if (FINAL_STATUS.has(String(json.status))) finals.add(frame);
      }
      return decodeFrame(frame, json, channels);
    },
    emitted(event) {
      if (finals.has(event.frame)) ended = true;
    },
    blockEnding() {
      if (ended) return '';
      const refused = {
        conversation_id: conversation,
        status: 'intervene',
        parts: [],
        last_error: { intervene_text: '' },
      };
      return `data: ${JSON.stringify(refused)}\n\n`;
    },
  };
}

export const chatglm: WireAdapter = {
  ...recognisers.chatglm,
  open: chatglmSession,
};
