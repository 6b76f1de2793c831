/**
 * Open WebUI's Socket.IO chat events (WIRE-FORMATS.md §6.1): tokens do not come
 * back on the `POST /api/chat/completions` response but as socket messages
 * `42["events",{chat_id, message_id, data:{type, data}}]` (older servers name
 * the event `chat-events`). One socket message is one frame here (framing
 * `whole-body`: the page layer hands over each WebSocket message's text); the
 * Engine.IO/Socket.IO packet prefix (`42`, an optional `/namespace,` and ack id)
 * is kept byte for byte, as is every byte of the JSON outside the text fields.
 *
 * Text, per assistant message (`message_id`), channel `msg:<message_id>`:
 * - `chat:completion` `{choices:[{delta:{content}}]}` (incremental, also
 *   `message.content` of a non-streamed answer, which the page appends);
 * - `chat:completion` `{content: "<whole serialised content>"}` (cumulative:
 *   `snapshot`; with `done: true` the channel ends: `echo`);
 * - `chat:message:delta` / `message` `{content}` (appended: `delta`);
 * - `chat:message` / `replace` `{content}` (replaces: `snapshot`).
 * Newer servers also send OpenResponses-style `output` items (cumulative) in
 * `chat:completion` and Responses stream events in `response:completion`; their
 * text parts are channels `msg:<id>:output:<item>:<content|summary>:<part>`.
 * Status, sources, titles, tags, files, notifications and the other event types
 * pass through; an unknown type is passed through and reported.
 *
 * A per-message adapter cannot hold a cumulative snapshot whose end could still
 * become a secret: `OpenWebUiSocketGuard` keeps the guard state across the
 * socket's messages (a message waits, in order, until its text is decided) and
 * hands back the messages to deliver after each one.
 */
import { recognisers } from '../wire-recognisers.ts';
import type { CompiledPack } from '../../rules/compile-pack.ts';
import { type JsonPath, replaceStrings } from '../json-string-span.ts';
import type { RawFrame } from '../raw-frame.ts';
import { isRecord } from '../sse-json-render.ts';
import {
  type AnswerSocketSession,
  type SocketFormat,
  SocketAnswerGuard,
} from '../socket-answer-guard.ts';
import type { RewriterOptions } from '../stream-rewriter.ts';
import {
  type SlotMode,
  type TextSlot,
  type WireAdapter,
  type WireEvent,
  passThrough,
} from '../wire-event.ts';

/** Socket.IO event names that carry chat events. */
const CHAT_EVENT_NAMES = new Set(['events', 'chat-events']);

/** Event types without answer text (Chat.svelte's `chatEventHandler`). */
const PASS_TYPES = new Set([
  'status',
  'source',
  'citation',
  'chat:title',
  'chat:tags',
  'chat:list',
  'chat:active',
  'chat:reload',
  'chat:tasks:cancel',
  'chat:message:files',
  'files',
  'chat:message:embeds',
  'embeds',
  'chat:message:error',
  'chat:message:follow_ups',
  'chat:message:tasks',
  'notification',
  'confirmation',
  'execute',
  'input',
  'action',
  'model-switch:pending',
]);

/** A socket message split into its packet prefix and its event. */
export interface SocketMessage {
  /** `42`, `42/ns,`, `42/ns,17` or '' for a bare JSON message. */
  prefix: string;
  /** The JSON after the prefix. */
  json: string;
  /** Where the event payload sits in `json`: [1] in a packet array, [] for a bare object. */
  base: JsonPath;
  eventName: string;
  payload: Record<string, unknown>;
}

const PACKET = /^42(\/[^,[]*,)?(\d*)/;

/** Reads one socket message; null for anything that is not a chat event. */
export function readSocketMessage(text: string): SocketMessage | null {
  const packet = PACKET.exec(text);
  const prefix = packet?.[0] ?? '';
  const json = text.slice(prefix.length);
  let value: unknown;
  try {
    value = JSON.parse(json) as unknown;
  } catch {
    return null;
  }
  if (Array.isArray(value)) {
    const [eventName, payload] = value as unknown[];
    if (typeof eventName !== 'string' || !isRecord(payload)) return null;
    return { prefix, json, base: [1], eventName, payload };
  }
  if (packet === null && isRecord(value) && isRecord(value.data)) {
    return { prefix: '', json, base: [], eventName: 'events', payload: value };
  }
  return null;
}

interface Located {
  slot: TextSlot;
  path: JsonPath;
}

class Finder {
  readonly found: Located[] = [];
  constructor(private readonly base: JsonPath) {}

  add(channel: string, mode: SlotMode, text: unknown, path: JsonPath): void {
    if (typeof text === 'string') {
      this.found.push({ slot: { channel, mode, text }, path: [...this.base, ...path] });
    }
  }

  /** Text parts of OpenResponses-style output items (`content[]`, `summary[]`). */
  outputItems(items: unknown, msg: string, mode: SlotMode, path: JsonPath): void {
    if (!Array.isArray(items)) return;
    items.forEach((item: unknown, i: number) =>
      this.outputItem(item, `${msg}:output:${i}`, mode, [...path, i]),
    );
  }

  outputItem(item: unknown, key: string, mode: SlotMode, path: JsonPath): void {
    if (!isRecord(item)) return;
    for (const field of ['content', 'summary'] as const) {
      const parts = item[field];
      if (!Array.isArray(parts)) continue;
      parts.forEach((part: unknown, j: number) => {
        if (isRecord(part))
          this.add(`${key}:${field}:${j}`, mode, part.text, [...path, field, j, 'text']);
      });
    }
  }
}

/** Slots of a `response:completion` event (a Responses API stream event, §7.2). */
function responseEvent(find: Finder, d: Record<string, unknown>, msg: string): void {
  const type = typeof d.type === 'string' ? d.type : '';
  const item = typeof d.output_index === 'number' ? d.output_index : 0;
  const base = ['data', 'data'];
  const key = (field: string, index: unknown) =>
    `${msg}:output:${item}:${field}:${typeof index === 'number' ? index : 0}`;
  if (type === 'response.output_text.delta' || type === 'response.reasoning_text.delta') {
    find.add(key('content', d.content_index), 'delta', d.delta, [...base, 'delta']);
  } else if (type === 'response.output_text.done' || type === 'response.reasoning_text.done') {
    find.add(key('content', d.content_index), 'echo', d.text, [...base, 'text']);
  } else if (type === 'response.reasoning_summary_text.delta') {
    find.add(key('summary', d.summary_index), 'delta', d.delta, [...base, 'delta']);
  } else if (type === 'response.reasoning_summary_text.done') {
    find.add(key('summary', d.summary_index), 'echo', d.text, [...base, 'text']);
  } else if (type === 'response.content_part.done' && isRecord(d.part)) {
    find.add(key('content', d.content_index), 'echo', d.part.text, [...base, 'part', 'text']);
  } else if (type === 'response.output_item.done') {
    find.outputItem(d.item, `${msg}:output:${item}`, 'echo', [...base, 'item']);
  } else if ((type === 'response.completed' || type === 'response.done') && isRecord(d.response)) {
    find.outputItems(d.response.output, msg, 'echo', [...base, 'response', 'output']);
  }
}

/**
 * `lastTextMessage`: the message id of the last chat event that carried text;
 * `endingFor(id)`: a `chat:completion` `done` event for `id` with the text the page shows.
 */
export type OpenWebUiSocketSession = AnswerSocketSession;

export function openWebUiSocketSession(): OpenWebUiSocketSession {
  const rendered = new WeakMap<WireEvent, readonly string[]>();
  const shown = new Map<string, string>();
  const channelsOf = new Map<string, Set<string>>();
  const done = new Set<string>();
  let style: { prefix: string; eventName: string; bare: boolean } = {
    prefix: '42',
    eventName: 'events',
    bare: false,
  };
  const chatOf = new Map<string, unknown>();
  let lastTextMessage: string | undefined;

  return {
    get lastTextMessage() {
      return lastTextMessage;
    },
    decode(frame: RawFrame): WireEvent {
      const message = readSocketMessage(frame.payload ?? frame.raw);
      if (message === null || !CHAT_EVENT_NAMES.has(message.eventName)) return passThrough(frame);
      const { payload, base } = message;
      // The ending is written like the stream's own messages (namespace, event name).
      const namespace = PACKET.exec(message.prefix)?.[1] ?? '';
      style = {
        prefix: message.prefix === '' ? '' : `42${namespace}`,
        eventName: message.eventName,
        bare: base.length === 0,
      };
      const messageId = typeof payload.message_id === 'string' ? payload.message_id : '?';
      chatOf.set(messageId, payload.chat_id);
      const msg = `msg:${messageId}`;
      const data = isRecord(payload.data) ? payload.data : {};
      const type = typeof data.type === 'string' ? data.type : '';
      const d = data.data;
      const find = new Finder(base);
      const ends: string[] = [];
      if (type === 'chat:completion' && isRecord(d)) {
        const finished = d.done === true;
        if (Array.isArray(d.choices)) {
          d.choices.forEach((choice: unknown, i: number) => {
            if (!isRecord(choice)) return;
            for (const part of ['delta', 'message'] as const) {
              const body = choice[part];
              if (isRecord(body)) {
                find.add(msg, 'delta', body.content, [
                  'data',
                  'data',
                  'choices',
                  i,
                  part,
                  'content',
                ]);
              }
            }
          });
        }
        const mode: SlotMode = finished ? 'echo' : 'snapshot';
        // The page ignores an empty `content` (`if (content)`): so does the guard.
        if (d.content !== '') find.add(msg, mode, d.content, ['data', 'data', 'content']);
        find.outputItems(d.output, msg, mode, ['data', 'data', 'output']);
        if (finished) {
          // A `done` without the text ends every channel of the message where it stood.
          const named = new Set(find.found.map((l) => l.slot.channel));
          for (const channel of channelsOf.get(messageId) ?? []) {
            if (!named.has(channel)) ends.push(channel);
          }
        }
      } else if ((type === 'chat:message:delta' || type === 'message') && isRecord(d)) {
        find.add(msg, 'delta', d.content, ['data', 'data', 'content']);
      } else if ((type === 'chat:message' || type === 'replace') && isRecord(d)) {
        find.add(msg, 'snapshot', d.content, ['data', 'data', 'content']);
      } else if (type === 'response:completion' && isRecord(d)) {
        responseEvent(find, d, msg);
      } else if (!PASS_TYPES.has(type) && !type.startsWith('terminal:')) {
        return passThrough(frame, `open-webui: event type ${type || '(none)'}`);
      }
      const found = find.found;
      let known = channelsOf.get(messageId);
      if (known === undefined) channelsOf.set(messageId, (known = new Set()));
      for (const l of found) known.add(l.slot.channel);
      if (found.length > 0) lastTextMessage = messageId;
      const event: WireEvent = {
        frame,
        slots: found.map((l) => l.slot),
        render(texts) {
          rendered.set(event, texts);
          const json = replaceStrings(
            message.json,
            found.map((l, i) => ({ path: l.path, value: texts[i] as string })),
          );
          return message.prefix + json;
        },
      };
      if (ends.length > 0) event.ends = ends;
      return event;
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
      const message = readSocketMessage(sent.frame.payload ?? sent.frame.raw);
      const data = message?.payload.data;
      if (
        isRecord(data) &&
        data.type === 'chat:completion' &&
        isRecord(data.data) &&
        data.data.done === true
      ) {
        done.add(String(message?.payload.message_id));
      }
    },
    endingFor(messageId) {
      if (done.has(messageId)) return '';
      done.add(messageId);
      const payload = {
        chat_id: chatOf.get(messageId) ?? null,
        message_id: messageId,
        data: {
          type: 'chat:completion',
          data: { done: true, content: shown.get(`msg:${messageId}`) ?? '' },
        },
      };
      return style.bare
        ? JSON.stringify(payload)
        : `${style.prefix}${JSON.stringify([style.eventName, payload])}`;
    },
    blockEnding() {
      return lastTextMessage === undefined ? '' : this.endingFor(lastTextMessage);
    },
  };
}

/** One socket message = one frame (the adapter is fed message by message). */
export const openWebUiSocket: WireAdapter = {
  ...recognisers.openWebUiSocket,
  open: openWebUiSocketSession,
};

/** The message id a socket message is about, when it is a chat event. */
function messageIdOf(text: string): string | undefined {
  const message = readSocketMessage(text);
  if (message === null || !CHAT_EVENT_NAMES.has(message.eventName)) return undefined;
  return typeof message.payload.message_id === 'string' ? message.payload.message_id : undefined;
}

/** Open WebUI's socket as a format of the shared socket guard (socket-answer-guard.ts). */
export const openWebUiSocketFormat: SocketFormat = {
  adapter: openWebUiSocket,
  session: openWebUiSocketSession,
  answerOf: messageIdOf,
  answerOfChannel: (channel) => /^msg:(.*?)(?::output:\d+:\w+:\d+)?(?:#\d+)?$/.exec(channel)?.[1],
};

/**
 * Guards one Open WebUI socket, message by message, with guard state kept
 * across messages (socket-answer-guard.ts): a block ends that answer with a
 * `done` event carrying the text the page already shows; later events for the
 * same message are dropped; the socket's other chats go on being guarded.
 */
export class OpenWebUiSocketGuard extends SocketAnswerGuard {
  constructor(pack: CompiledPack, options: RewriterOptions = {}) {
    super(openWebUiSocketFormat, pack, options);
  }
}
