/**
 * OpenAI Responses API (WIRE-FORMATS.md §7.2): named SSE events, each with a
 * `type` and a contiguous `sequence_number`, no `[DONE]`.
 *
 * Channels: one per content part (`content:<item_id>:<content_index>`: output
 * text, refusal or reasoning text) and per reasoning summary part
 * (`summary:<item_id>:<summary_index>`). `*.delta` events (and a non-empty
 * `*.added` part) are deltas; the full-text copies in `*.done`,
 * `response.content_part.done`, `response.output_item.done` and the final
 * `response.completed|incomplete|failed` are echoes, so they carry exactly the
 * guarded text the deltas carried (§8.4).
 *
 * Offsets: when a part's text changes, its `annotations` whose
 * `start_index`/`end_index` reach past the unchanged prefix are collapsed to
 * the empty range at the first change (kept in their list, never pointing at
 * other text), and `response.output_text.annotation.added` events get the same
 * treatment, decided on the guarded text released before them. `logprobs` next
 * to a changed text are emptied (they would spell the original tokens). Such
 * frames are re-stringified; all others keep their bytes.
 *
 * A block ends like an answer the API cut short: the open parts and items get
 * their `*.done` events with the text released so far, then
 * `response.incomplete` with `incomplete_details.reason: "content_filter"`,
 * numbered on from the last frame the page received.
 */
import { recognisers } from '../wire-recognisers.ts';
import { type JsonPath, replaceStrings } from '../json-string-span.ts';
import type { RawFrame } from '../raw-frame.ts';
import { isRecord, renderSseJson, sseJson } from '../sse-json-render.ts';
import type { AdapterSession, SlotMode, TextSlot, WireAdapter, WireEvent } from '../wire-event.ts';
import {
  collapseOffsets,
  dropLogprobs,
  getJsonPath,
  setJsonPath,
  unchangedPrefix,
} from './json-structural-edit.ts';

type Json = Record<string, unknown>;
type PartKind = 'content' | 'summary';

/** One guarded text of a frame. */
interface Located {
  slot: TextSlot;
  /** Where the text string sits; null for an annotation event (its slot only observes). */
  path: JsonPath | null;
  /** The object holding the text and its `annotations` / `logprobs` (or the annotation). */
  holder: JsonPath;
}

const ANNOTATION_ADDED = 'response.output_text.annotation.added';

/** Events with one text field at the top level: [kind, index field, text field, mode]. */
const FLAT_TEXT_EVENTS: Record<string, readonly [PartKind, string, string, SlotMode]> = {
  'response.output_text.delta': ['content', 'content_index', 'delta', 'delta'],
  'response.refusal.delta': ['content', 'content_index', 'delta', 'delta'],
  'response.reasoning_text.delta': ['content', 'content_index', 'delta', 'delta'],
  'response.reasoning_summary_text.delta': ['summary', 'summary_index', 'delta', 'delta'],
  'response.output_text.done': ['content', 'content_index', 'text', 'echo'],
  'response.refusal.done': ['content', 'content_index', 'refusal', 'echo'],
  'response.reasoning_text.done': ['content', 'content_index', 'text', 'echo'],
  'response.reasoning_summary_text.done': ['summary', 'summary_index', 'text', 'echo'],
};

/** Events carrying one whole part: [kind, index field, mode]. */
const PART_EVENTS: Record<string, readonly [PartKind, string, SlotMode]> = {
  'response.content_part.added': ['content', 'content_index', 'delta'],
  'response.content_part.done': ['content', 'content_index', 'echo'],
  'response.reasoning_summary_part.added': ['summary', 'summary_index', 'delta'],
  'response.reasoning_summary_part.done': ['summary', 'summary_index', 'echo'],
};

const ITEM_EVENTS: Record<string, SlotMode> = {
  'response.output_item.added': 'delta',
  'response.output_item.done': 'echo',
};

/** Events carrying the whole response; the final ones repeat every text. */
const RESPONSE_EVENTS: Record<string, SlotMode | null> = {
  'response.created': null,
  'response.in_progress': null,
  'response.queued': null,
  'response.completed': 'echo',
  'response.incomplete': 'echo',
  'response.failed': 'echo',
};

/** Event families without guarded text (tool calls, hosted tools, audio). */
const TEXTLESS_PREFIXES = [
  'response.function_call_arguments.',
  'response.custom_tool_call_input.',
  'response.file_search_call.',
  'response.web_search_call.',
  'response.code_interpreter_call',
  'response.image_generation_call.',
  'response.mcp_',
  'response.audio.',
  'response.output_text.annotation.',
];

function channelOf(kind: PartKind, item: string, index: number): string {
  return `${kind}:${item}:${index}`;
}

/** `refusal` for a refusal part, `text` for text-bearing parts, else undefined. */
function partTextField(part: unknown): 'text' | 'refusal' | undefined {
  if (!isRecord(part)) return undefined;
  if (part.type === 'refusal') return typeof part.refusal === 'string' ? 'refusal' : undefined;
  return typeof part.text === 'string' ? 'text' : undefined;
}

function partSlot(
  part: unknown,
  channel: string,
  base: JsonPath,
  mode: SlotMode,
): Located | undefined {
  const field = partTextField(part);
  if (field === undefined) return undefined;
  const text = (part as Json)[field] as string;
  if (mode === 'delta' && text === '') return undefined;
  return { slot: { channel, mode, text }, path: [...base, field], holder: base };
}

/** Texts of a `message` or `reasoning` output item. */
function itemSlots(item: unknown, base: JsonPath, fallbackKey: string, mode: SlotMode): Located[] {
  if (!isRecord(item) || (item.type !== 'message' && item.type !== 'reasoning')) return [];
  const key = typeof item.id === 'string' ? item.id : fallbackKey;
  const found: Located[] = [];
  for (const kind of ['content', 'summary'] as const) {
    const parts = item[kind];
    if (!Array.isArray(parts)) continue;
    parts.forEach((part: unknown, j: number) => {
      const l = partSlot(part, channelOf(kind, key, j), [...base, kind, j], mode);
      if (l !== undefined) found.push(l);
    });
  }
  return found;
}

/** Texts of a whole response object (`output[]`, and `output_text` when a proxy adds it). */
function responseSlots(response: unknown, base: JsonPath, mode: SlotMode): Located[] {
  if (!isRecord(response)) return [];
  const found: Located[] = [];
  if (Array.isArray(response.output)) {
    response.output.forEach((item: unknown, k: number) => {
      found.push(...itemSlots(item, [...base, 'output', k], `#${k}`, mode));
    });
  }
  if (typeof response.output_text === 'string') {
    found.push({
      slot: { channel: 'output_text', mode, text: response.output_text },
      path: [...base, 'output_text'],
      holder: base,
    });
  }
  return found;
}

function itemKeyOf(json: Json): string {
  return typeof json.item_id === 'string' ? json.item_id : `#${String(json.output_index)}`;
}

/** The guarded texts of an event, or null when its type is not known. */
function locate(json: Json & { type: string }): Located[] | null {
  const flat = FLAT_TEXT_EVENTS[json.type];
  if (flat !== undefined) {
    const [kind, indexField, textField, mode] = flat;
    const index = json[indexField];
    const text = json[textField];
    if (typeof index !== 'number' || typeof text !== 'string') return null;
    const channel = channelOf(kind, itemKeyOf(json), index);
    return [{ slot: { channel, mode, text }, path: [textField], holder: [] }];
  }
  const part = PART_EVENTS[json.type];
  if (part !== undefined) {
    const [kind, indexField, mode] = part;
    const index = json[indexField];
    if (typeof index !== 'number') return null;
    const l = partSlot(json.part, channelOf(kind, itemKeyOf(json), index), ['part'], mode);
    return l === undefined ? [] : [l];
  }
  const itemMode = ITEM_EVENTS[json.type];
  if (itemMode !== undefined) {
    return itemSlots(json.item, ['item'], `#${String(json.output_index)}`, itemMode);
  }
  const responseMode = RESPONSE_EVENTS[json.type];
  if (responseMode !== undefined) {
    return responseMode === null ? [] : responseSlots(json.response, ['response'], responseMode);
  }
  if (json.type === 'error' || TEXTLESS_PREFIXES.some((p) => json.type.startsWith(p))) return [];
  return null;
}

/** `channel#annotation_index` → where an annotation.added event collapsed that annotation. */
type Collapsed = Map<string, number>;

interface Rewritten {
  json: Json;
  /** True when something other than a string literal changed (re-stringify). */
  structural: boolean;
}

/** Applies guarded texts and the offset/logprob fixes that go with them to a copy of `json`. */
function rewrite(
  json: Json,
  located: readonly Located[],
  texts: readonly string[],
  collapsed: Collapsed,
): Rewritten {
  const copy = structuredClone(json);
  let structural = false;
  located.forEach((l, i) => {
    const text = texts[i] as string;
    if (l.path !== null) setJsonPath(copy, l.path, text);
    if (text === l.slot.text) return;
    const holder = getJsonPath(copy, l.holder);
    const prefix = unchangedPrefix(l.slot.text, text);
    if (l.path === null) {
      // An annotation.added event: `text` is the guarded text released before it.
      if (collapseOffsets(holder, prefix)) {
        collapsed.set(`${l.slot.channel}#${String(copy.annotation_index)}`, prefix);
        structural = true;
      }
      return;
    }
    if (dropLogprobs(holder)) structural = true;
    if (isRecord(holder) && Array.isArray(holder.annotations)) {
      holder.annotations.forEach((a: unknown, k: number) => {
        const at = collapsed.get(`${l.slot.channel}#${k}`) ?? prefix;
        if (collapseOffsets(a, at)) structural = true;
      });
    }
  });
  return { json: copy, structural };
}

function stringEdits(located: readonly Located[], texts: readonly string[]) {
  const edits: { path: JsonPath; value: string }[] = [];
  located.forEach((l, i) => {
    if (l.path !== null) edits.push({ path: l.path, value: texts[i] as string });
  });
  return edits;
}

/** The frame with its data replaced by `data` (one `data:` line), other lines kept. */
function replaceSseData(frame: RawFrame, data: string): string {
  let out = '';
  let written = false;
  for (const m of frame.raw.matchAll(/([^\r\n]*)(\r\n|\r|\n|$)/g)) {
    if (m[0] === '') break;
    const text = m[1] ?? '';
    const end = m[2] ?? '';
    if (!text.startsWith('data:')) out += text + end;
    else if (!written) {
      written = true;
      out += (text.startsWith('data: ') ? 'data: ' : 'data:') + data + end;
    }
  }
  return out;
}

function lineEndOf(raw: string): string {
  if (raw.endsWith('\r\n')) return '\r\n';
  return raw.endsWith('\r') ? '\r' : '\n';
}

interface Meta {
  json: Json;
  /** The event as the page received it (set when its text was rewritten). */
  rendered?: Json;
}

interface PartState {
  kind: PartKind;
  index: number;
  part: Json;
  text: string;
  textDone: boolean;
  partDone: boolean;
  /** Annotations the page received in `annotation.added` events. */
  annotations: unknown[];
}

interface ItemState {
  item: Json;
  done: boolean;
  parts: Map<string, PartState>;
}

function streamSession(): AdapterSession {
  const metas = new WeakMap<WireEvent, Meta>();
  /** Original text per channel, mirroring what the rewriter fed (for annotation events). */
  const seen = new Map<string, { text: string; finished: boolean }>();
  const collapsed: Collapsed = new Map();
  // What the page has received, for the block ending.
  const items = new Map<number, ItemState>();
  let template: Json | undefined;
  let lastSequence: number | undefined;
  let finished = false;
  let named = false;
  let newline: string | undefined;

  function track(located: readonly Located[]): void {
    for (const { slot } of located) {
      const state = seen.get(slot.channel) ?? { text: '', finished: false };
      seen.set(slot.channel, state);
      if (state.finished) continue;
      if (slot.mode === 'delta') state.text += slot.text;
      if (slot.mode === 'echo') {
        if (slot.text.startsWith(state.text)) state.text = slot.text;
        state.finished = true;
      }
    }
  }

  function annotationSlot(json: Json): Located[] {
    if (typeof json.content_index !== 'number') return [];
    const channel = channelOf('content', itemKeyOf(json), json.content_index);
    const text = seen.get(channel)?.text ?? '';
    return [{ slot: { channel, mode: 'snapshot', text }, path: null, holder: ['annotation'] }];
  }

  function partOf(json: Json, kind: PartKind): PartState | undefined {
    const index = json[kind === 'content' ? 'content_index' : 'summary_index'];
    if (typeof json.output_index !== 'number' || typeof index !== 'number') return undefined;
    return items.get(json.output_index)?.parts.get(`${kind}:${index}`);
  }

  function observe(json: Json): void {
    const type = json.type as string;
    if (typeof json.sequence_number === 'number') lastSequence = json.sequence_number;
    const outputIndex = typeof json.output_index === 'number' ? json.output_index : -1;
    const responseMode = RESPONSE_EVENTS[type];
    if (responseMode === null) {
      if (isRecord(json.response)) template = json.response;
    } else if (responseMode !== undefined) finished = true;
    else if (ITEM_EVENTS[type] !== undefined && isRecord(json.item)) {
      const state = items.get(outputIndex) ?? { item: json.item, done: false, parts: new Map() };
      state.item = json.item;
      state.done ||= type === 'response.output_item.done';
      items.set(outputIndex, state);
    } else if (PART_EVENTS[type] !== undefined && isRecord(json.part)) {
      const [kind, indexField] = PART_EVENTS[type];
      const index = json[indexField];
      const item = items.get(outputIndex);
      if (item === undefined || typeof index !== 'number') return;
      const field = partTextField(json.part) ?? 'text';
      const text = typeof json.part[field] === 'string' ? (json.part[field] as string) : '';
      const known = item.parts.get(`${kind}:${index}`);
      const done = type.endsWith('.done');
      item.parts.set(`${kind}:${index}`, {
        kind,
        index,
        part: json.part,
        text: done || known === undefined ? text : known.text,
        textDone: done || (known?.textDone ?? false),
        partDone: done,
        annotations: known?.annotations ?? [],
      });
    } else if (type === ANNOTATION_ADDED) {
      const part = partOf(json, 'content');
      if (part !== undefined && typeof json.annotation_index === 'number') {
        part.annotations[json.annotation_index] = json.annotation;
      }
    } else if (FLAT_TEXT_EVENTS[type] !== undefined) {
      const [kind, , field, mode] = FLAT_TEXT_EVENTS[type];
      const part = partOf(json, kind);
      const text = json[field];
      if (part === undefined || typeof text !== 'string') return;
      if (mode === 'delta') part.text += text;
      else {
        part.text = text;
        part.textDone = true;
      }
    }
  }

  function sse(body: Json): string {
    const nl = newline ?? '\n';
    const head = named ? `event: ${String(body.type)}${nl}` : '';
    return `${head}data: ${JSON.stringify(body)}${nl}${nl}`;
  }

  return {
    decode(frame: RawFrame): WireEvent {
      newline ??= lineEndOf(frame.raw);
      if (frame.sse === undefined) return { frame, slots: [], render: () => frame.raw };
      const json = sseJson(frame);
      if (!isRecord(json) || typeof json.type !== 'string') {
        return {
          frame,
          slots: [],
          render: () => frame.raw,
          unrecognised: 'openai-responses: data is not an event object',
        };
      }
      const typed = json as Json & { type: string };
      const located = typed.type === ANNOTATION_ADDED ? annotationSlot(typed) : locate(typed);
      const meta: Meta = { json: typed };
      const event: WireEvent = {
        frame,
        slots: (located ?? []).map((l) => l.slot),
        render(texts) {
          const done = rewrite(typed, located ?? [], texts, collapsed);
          meta.rendered = done.json;
          return done.structural
            ? replaceSseData(frame, JSON.stringify(done.json))
            : renderSseJson(frame, stringEdits(located ?? [], texts));
        },
      };
      if (located === null) event.unrecognised = `openai-responses: event ${typed.type}`;
      track(located ?? []);
      metas.set(event, meta);
      return event;
    },

    emitted(event) {
      const meta = metas.get(event);
      if (meta === undefined) return;
      if (event.frame.sse?.event !== undefined) named = true;
      observe(meta.rendered ?? meta.json);
    },

    blockEnding() {
      if (finished) return '';
      finished = true;
      let sequence = lastSequence === undefined ? 0 : lastSequence + 1;
      let out = '';
      const ordered = [...items.entries()].sort((a, b) => a[0] - b[0]);
      for (const [outputIndex, state] of ordered) {
        if (state.done) continue;
        const itemId = state.item.id;
        const parts = [...state.parts.values()].sort((a, b) =>
          a.kind === b.kind ? a.index - b.index : a.kind === 'content' ? -1 : 1,
        );
        for (const p of parts) {
          if (p.partDone) continue;
          const indexField = p.kind === 'content' ? 'content_index' : 'summary_index';
          const ids = { item_id: itemId, output_index: outputIndex, [indexField]: p.index };
          const field = partTextField(p.part) ?? 'text';
          if (!p.textDone) {
            const type =
              p.kind === 'summary'
                ? 'response.reasoning_summary_text.done'
                : field === 'refusal'
                  ? 'response.refusal.done'
                  : p.part.type === 'reasoning_text'
                    ? 'response.reasoning_text.done'
                    : 'response.output_text.done';
            const extra = type === 'response.output_text.done' ? { logprobs: [] } : {};
            out += sse({ type, sequence_number: sequence++, ...ids, [field]: p.text, ...extra });
          }
          p.part = { ...p.part, [field]: p.text };
          if (Array.isArray(p.part.annotations) && p.annotations.length > 0) {
            p.part.annotations = Array.from(p.annotations, (a) => a ?? null);
          }
          const type =
            p.kind === 'content'
              ? 'response.content_part.done'
              : 'response.reasoning_summary_part.done';
          out += sse({ type, sequence_number: sequence++, ...ids, part: p.part });
        }
        const item: Json = { ...state.item };
        if (item.type === 'message' || 'status' in item) item.status = 'incomplete';
        for (const kind of ['content', 'summary'] as const) {
          const own = parts.filter((p) => p.kind === kind);
          if (own.length > 0) item[kind] = own.map((p) => p.part);
        }
        state.item = item;
        state.done = true;
        out += sse({
          type: 'response.output_item.done',
          sequence_number: sequence++,
          output_index: outputIndex,
          item,
        });
      }
      const response: Json = {
        ...(template ?? { id: 'resp_blocked', object: 'response' }),
        status: 'incomplete',
        incomplete_details: { reason: 'content_filter' },
        output: ordered.map(([, state]) => state.item),
      };
      return out + sse({ type: 'response.incomplete', sequence_number: sequence, response });
    },
  };
}

export const openAiResponsesStream: WireAdapter = {
  ...recognisers.openAiResponsesStream,
  open: streamSession,
};

/** Indentation of a pretty-printed body (the API indents non-streaming answers). */
function indentOf(raw: string): string | undefined {
  return /^\{\r?\n([ \t]+)"/.exec(raw)?.[1];
}

/** `stream: false` answers: the response object as one JSON body. */
export const openAiResponsesJson: WireAdapter = {
  ...recognisers.openAiResponsesJson,
  open: () => {
    let pending: { json: Json; located: Located[]; raw: string } | undefined;
    let emitted = false;
    const stringify = (json: Json, raw: string) => JSON.stringify(json, null, indentOf(raw));
    return {
      decode(frame) {
        let json: unknown;
        try {
          json = JSON.parse(frame.payload ?? '');
        } catch {
          return { frame, slots: [], render: () => frame.raw, unrecognised: 'body is not JSON' };
        }
        if (!isRecord(json) || json.object !== 'response') {
          return {
            frame,
            slots: [],
            render: () => frame.raw,
            unrecognised: 'openai-responses: body is not a response object',
          };
        }
        const located = responseSlots(json, [], 'echo');
        pending = { json, located, raw: frame.raw };
        return {
          frame,
          slots: located.map((l) => l.slot),
          render(texts) {
            const done = rewrite(json, located, texts, new Map());
            return done.structural
              ? stringify(done.json, frame.raw)
              : replaceStrings(frame.raw, stringEdits(located, texts));
          },
        };
      },
      emitted() {
        emitted = true;
      },
      blockEnding() {
        if (emitted || pending === undefined) return '';
        const { json, located, raw } = pending;
        const empty = rewrite(
          json,
          located,
          located.map(() => ''),
          new Map(),
        ).json;
        empty.status = 'incomplete';
        empty.incomplete_details = { reason: 'content_filter' };
        return stringify(empty, raw);
      },
    };
  },
};
