/**
 * Mistral Le Chat (chat.mistral.ai), WIRE-FORMATS-2.md §4.4. Confidence LOW:
 * undated third-party clients that disagree on details; which dialect the
 * current web app uses, its end and error events and its history endpoint are
 * not confirmed (§5). Guarding follows what the document shows and nothing more.
 *
 * The answer to `POST /api/chat` is a line protocol, `N:<json>` per line (the
 * shape of the AI SDK data stream, §1.6), in two dialects:
 * - older: `0:"text"`, an incremental text piece (channel `text`); other codes
 *   (`1:{…}` metadata, status) pass byte for byte;
 * - newer (`shouldUseMessagePatch`): `N:{"json":{"patches":[…]}}`, JSON-Patch
 *   operations on the message: `append` of a string to
 *   `/contentChunks/<i>/text` is the next piece of chunk i's text; `replace`
 *   (or `add`) of `/contentChunks/<i>/text`, of `/contentChunks/<i>` with a
 *   text chunk, or of the whole `/contentChunks` array sets those chunks'
 *   whole text (a snapshot). One channel per content chunk. Every other patch
 *   passes byte for byte.
 * Lines go out whole (NDJSON framing), like the clients read them.
 *
 * A block: no end event is known (§4.4, "not confirmed"), so none is invented;
 * the stream closes after the text released before the block point.
 */
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
import { recognisers } from '../wire-recognisers.ts';

const LINE = /^(\d+):([^]*)$/;
const CHUNK_TEXT = /^\/contentChunks\/(\d+)\/text$/;
const CHUNK = /^\/contentChunks\/(\d+)$/;

interface Located {
  slot: TextSlot;
  /** Path inside the JSON after `N:`. */
  path: JsonPath;
}

const chunkChannel = (index: number | string): string => `chunk:${String(index)}`;

/** A content chunk's text, when the value is a text chunk (`{type:"text", text}`). */
function chunkText(value: unknown): string | undefined {
  return isRecord(value) && value.type === 'text' && typeof value.text === 'string'
    ? value.text
    : undefined;
}

function patchSlots(patch: unknown, at: JsonPath): Located[] {
  if (!isRecord(patch) || typeof patch.path !== 'string') return [];
  const { op, path, value } = patch;
  const textOf = CHUNK_TEXT.exec(path);
  if (textOf !== null && typeof value === 'string') {
    if (op !== 'append' && op !== 'replace' && op !== 'add') return [];
    const mode = op === 'append' ? 'delta' : 'snapshot';
    return [
      {
        slot: { channel: chunkChannel(textOf[1] as string), mode, text: value },
        path: [...at, 'value'],
      },
    ];
  }
  if (op !== 'replace' && op !== 'add') return [];
  const chunkOf = CHUNK.exec(path);
  const single = chunkText(value);
  if (chunkOf !== null && single !== undefined) {
    const channel = chunkChannel(chunkOf[1] as string);
    return [{ slot: { channel, mode: 'snapshot', text: single }, path: [...at, 'value', 'text'] }];
  }
  if (path !== '/contentChunks' || !Array.isArray(value)) return [];
  return value.flatMap((chunk, i): Located[] => {
    const text = chunkText(chunk);
    if (text === undefined) return [];
    return [
      {
        slot: { channel: chunkChannel(i), mode: 'snapshot', text },
        path: [...at, 'value', i, 'text'],
      },
    ];
  });
}

function locate(code: string, value: unknown): Located[] {
  if (typeof value === 'string')
    return code === '0'
      ? [{ slot: { channel: 'text', mode: 'delta', text: value }, path: [] }]
      : [];
  if (!isRecord(value)) return [];
  const json = value.json;
  if (!isRecord(json) || !Array.isArray(json.patches)) return [];
  return json.patches.flatMap((patch, k) => patchSlots(patch, ['json', 'patches', k]));
}

function decodeLine(frame: RawFrame): WireEvent {
  const line = frame.payload ?? frame.raw;
  if (line.trim() === '') return passThrough(frame);
  const m = LINE.exec(line);
  if (m === null) return passThrough(frame, 'le-chat: line is not N:JSON');
  const code = m[1] as string;
  const body = m[2] as string;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return passThrough(frame, `le-chat: ${code} is not JSON`);
  }
  const located = locate(code, value);
  if (located.length === 0) return passThrough(frame);
  const ending = frame.raw.slice(line.length);
  return {
    frame,
    slots: located.map((l) => l.slot),
    render: (texts) => {
      const json =
        located.length === 1 && located[0]?.path.length === 0
          ? JSON.stringify(texts[0] as string)
          : replaceStrings(
              body,
              located.map((l, i) => ({ path: l.path, value: texts[i] as string })),
            );
      return `${code}:${json}${ending}`;
    },
  };
}

function leChatSession(): AdapterSession {
  return { decode: decodeLine, blockEnding: () => '' };
}

export const leChat: WireAdapter = {
  ...recognisers.leChat,
  open: leChatSession,
};
