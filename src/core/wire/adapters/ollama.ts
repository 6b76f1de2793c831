/**
 * Ollama (WIRE-FORMATS.md §7.5): `application/x-ndjson`, one JSON object per
 * line, incremental. `/api/chat` carries `message.content` (and
 * `message.thinking` in newer versions); `/api/generate` carries `response`
 * (and `thinking`). Channels: `content` and `thinking`. `tool_calls`,
 * `images`, timings and every other field pass untouched. The last line has
 * `"done": true`.
 *
 * A block ends the stream with a final line shaped like the stream's own:
 * same `model` and `created_at` as the last line sent, empty text,
 * `"done": true, "done_reason": "stop"` (a reader stops on `done`).
 *
 * `stream: false` answers are one such object with `done: true`
 * (`application/json`): the JSON adapter.
 */
import { recognisers } from '../wire-recognisers.ts';
import { type JsonPath, replaceStrings } from '../json-string-span.ts';
import type { RawFrame } from '../raw-frame.ts';
import { isRecord } from '../sse-json-render.ts';
import {
  type AdapterSession,
  type TextSlot,
  type WireAdapter,
  type WireEvent,
  passThrough,
} from '../wire-event.ts';

interface Located {
  slot: TextSlot;
  path: JsonPath;
}

/** Text fields per endpoint shape: [path, channel]. */
const CHAT_FIELDS: readonly [JsonPath, string][] = [
  [['message', 'thinking'], 'thinking'],
  [['message', 'content'], 'content'],
];
const GENERATE_FIELDS: readonly [JsonPath, string][] = [
  [['thinking'], 'thinking'],
  [['response'], 'content'],
];

type Shape = 'chat' | 'generate';

function shapeOf(json: Record<string, unknown>): Shape | undefined {
  if (isRecord(json.message)) return 'chat';
  if (typeof json.response === 'string') return 'generate';
  return undefined;
}

function lineSlots(json: Record<string, unknown>, shape: Shape): Located[] {
  const found: Located[] = [];
  for (const [path, channel] of shape === 'chat' ? CHAT_FIELDS : GENERATE_FIELDS) {
    const holder = path.length === 2 ? json[path[0] as string] : json;
    const text = isRecord(holder) ? holder[path[path.length - 1] as string] : undefined;
    if (typeof text === 'string') found.push({ slot: { channel, mode: 'delta', text }, path });
  }
  return found;
}

function parseLine(frame: RawFrame): unknown {
  try {
    return JSON.parse(frame.payload ?? frame.raw);
  } catch {
    return undefined;
  }
}

function decodeLine(frame: RawFrame, json: unknown): { event: WireEvent; shape?: Shape } {
  if (!isRecord(json)) {
    const blank = (frame.payload ?? frame.raw).trim() === '';
    return { event: passThrough(frame, blank ? undefined : 'ollama: line is not a JSON object') };
  }
  const shape = shapeOf(json);
  if (shape === undefined) {
    return { event: passThrough(frame, 'error' in json ? undefined : 'ollama: unknown line') };
  }
  const located = lineSlots(json, shape);
  const event: WireEvent = {
    frame,
    slots: located.map((l) => l.slot),
    render: (texts) =>
      replaceStrings(
        frame.raw,
        located.map((l, i) => ({ path: l.path, value: texts[i] as string })),
      ),
  };
  return { event, shape };
}

/** The final line a blocked answer gets, shaped like `like`. */
function doneLine(like: Record<string, unknown>, shape: Shape): string {
  const line: Record<string, unknown> = {};
  if ('model' in like) line.model = like.model;
  if ('created_at' in like) line.created_at = like.created_at;
  if (shape === 'chat') line.message = { role: 'assistant', content: '' };
  else line.response = '';
  line.done = true;
  line.done_reason = 'stop';
  return JSON.stringify(line);
}

function streamSession(): AdapterSession {
  const lines = new WeakMap<WireEvent, Record<string, unknown>>();
  let like: Record<string, unknown> = {};
  let shape: Shape = 'chat';
  let done = false;
  let newline = '\n';
  /** Whether the last line the page received ended with its newline. */
  let terminated = true;
  return {
    decode(frame) {
      const json = parseLine(frame);
      const decoded = decodeLine(frame, json);
      if (decoded.shape !== undefined && isRecord(json)) {
        shape = decoded.shape;
        lines.set(decoded.event, json);
      }
      if (frame.raw.endsWith('\r\n')) newline = '\r\n';
      return decoded.event;
    },
    emitted(event) {
      terminated = event.frame.raw.endsWith('\n');
      const json = lines.get(event);
      if (json === undefined) return;
      like = json;
      if (json.done === true) done = true;
    },
    blockEnding() {
      if (done) return '';
      return (terminated ? '' : newline) + doneLine(like, shape) + newline;
    },
  };
}

export const ollamaStream: WireAdapter = {
  ...recognisers.ollamaStream,
  open: streamSession,
};

/** `stream: false` answers: one object with `done: true`. */
export const ollamaJson: WireAdapter = {
  ...recognisers.ollamaJson,
  open: () => {
    let json: unknown;
    let shape: Shape | undefined;
    let emitted = false;
    return {
      decode(frame) {
        json = parseLine(frame);
        const decoded = decodeLine(frame, json);
        shape = decoded.shape;
        return decoded.event;
      },
      emitted() {
        emitted = true;
      },
      blockEnding() {
        if (emitted || shape === undefined || !isRecord(json)) return '';
        return doneLine(json, shape);
      },
    };
  },
};
