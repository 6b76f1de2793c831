/**
 * Google Gemini API (WIRE-FORMATS.md §7.4): `streamGenerateContent?alt=sse`
 * sends unnamed SSE events, each a `GenerateContentResponse` whose
 * `candidates[i].content.parts[j].text` is the next piece (incremental); no
 * `[DONE]`, a candidate ends with `finishReason`. Channels: `candidate:<index>`
 * for answer text, `thought:<index>` for thought parts (`"thought": true`).
 * `functionCall`, `inlineData`, code parts and `thoughtSignature` pass
 * untouched (only text literals are replaced).
 *
 * A block ends the way Gemini ends a filtered answer: one more chunk whose
 * still-open candidates carry `finishReason: "SAFETY"` (and an empty text part,
 * so readers that index `parts[0].text` keep working).
 *
 * Without `alt=sse` the body is one JSON array of the same chunks
 * (`:streamGenerateContent`) or one chunk (`:generateContent`): the JSON
 * adapter guards it as a whole body.
 */
import { recognisers } from '../wire-recognisers.ts';
import { type JsonPath, replaceStrings } from '../json-string-span.ts';
import type { RawFrame } from '../raw-frame.ts';
import { isRecord, renderSseJson, sseJson } from '../sse-json-render.ts';
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

interface ChunkInfo {
  /** Candidate indices in this chunk, and those it finishes. */
  candidates: number[];
  finished: number[];
}

function candidateIndex(candidate: Record<string, unknown>, position: number): number {
  return typeof candidate.index === 'number' ? candidate.index : position;
}

/** Text parts of one `GenerateContentResponse`, and which candidates it mentions/finishes. */
function chunkSlots(chunk: unknown, base: JsonPath): { located: Located[]; info: ChunkInfo } {
  const located: Located[] = [];
  const info: ChunkInfo = { candidates: [], finished: [] };
  if (!isRecord(chunk) || !Array.isArray(chunk.candidates)) return { located, info };
  chunk.candidates.forEach((candidate: unknown, k: number) => {
    if (!isRecord(candidate)) return;
    const index = candidateIndex(candidate, k);
    info.candidates.push(index);
    if (typeof candidate.finishReason === 'string') info.finished.push(index);
    const content = candidate.content;
    if (!isRecord(content) || !Array.isArray(content.parts)) return;
    content.parts.forEach((part: unknown, j: number) => {
      if (!isRecord(part) || typeof part.text !== 'string') return;
      const channel = part.thought === true ? `thought:${index}` : `candidate:${index}`;
      located.push({
        slot: { channel, mode: 'delta', text: part.text },
        path: [...base, 'candidates', k, 'content', 'parts', j, 'text'],
      });
    });
  });
  return { located, info };
}

function edits(located: readonly Located[], texts: readonly string[]) {
  return located.map((l, i) => ({ path: l.path, value: texts[i] as string }));
}

/** Fields of the last chunk a synthetic chunk copies, so it reads like the stream's own. */
function identity(chunk: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ['modelVersion', 'responseId']) if (key in chunk) out[key] = chunk[key];
  return out;
}

function safetyChunk(indices: Iterable<number>, like: Record<string, unknown>): unknown {
  const candidates = [...indices]
    .sort((a, b) => a - b)
    .map((index) => ({
      content: { parts: [{ text: '' }], role: 'model' },
      finishReason: 'SAFETY',
      index,
    }));
  return { candidates, ...identity(like) };
}

function lineEndOf(raw: string): string {
  if (raw.endsWith('\r\n')) return '\r\n';
  return raw.endsWith('\r') ? '\r' : '\n';
}

function streamSession(): AdapterSession {
  const infos = new WeakMap<WireEvent, ChunkInfo>();
  /** Candidates the stream mentioned (emitted or not), minus those the page saw finish. */
  const open = new Set<number>();
  const finished = new Set<number>();
  let like: Record<string, unknown> = {};
  let newline: string | undefined;
  return {
    decode(frame: RawFrame): WireEvent {
      if (frame.sse === undefined) return passThrough(frame);
      newline ??= lineEndOf(frame.raw);
      const json = sseJson(frame);
      if (!isRecord(json)) return passThrough(frame, 'gemini-api: data is not a JSON object');
      if (!Array.isArray(json.candidates)) {
        // promptFeedback-only, usage-only or error chunks carry no answer text.
        const known = 'promptFeedback' in json || 'usageMetadata' in json || 'error' in json;
        return passThrough(frame, known ? undefined : 'gemini-api: chunk without candidates');
      }
      like = json;
      const { located, info } = chunkSlots(json, []);
      for (const index of info.candidates) open.add(index);
      const event: WireEvent = {
        frame,
        slots: located.map((l) => l.slot),
        render: (texts) => renderSseJson(frame, edits(located, texts)),
      };
      infos.set(event, info);
      return event;
    },
    emitted(event) {
      for (const index of infos.get(event)?.finished ?? []) finished.add(index);
    },
    blockEnding() {
      const pending = [...open].filter((index) => !finished.has(index));
      if (open.size > 0 && pending.length === 0) return '';
      const nl = newline ?? '\r\n';
      const chunk = safetyChunk(pending.length > 0 ? pending : [0], like);
      return `data: ${JSON.stringify(chunk)}${nl}${nl}`;
    },
  };
}

export const geminiApiStream: WireAdapter = {
  ...recognisers.geminiApiStream,
  open: streamSession,
};

/** The non-SSE bodies: a JSON array of chunks, or one chunk (`:generateContent`). */
export const geminiApiJson: WireAdapter = {
  ...recognisers.geminiApiJson,
  open: () => {
    let emitted = false;
    let like: Record<string, unknown> = {};
    let array = false;
    let open = new Set<number>();
    return {
      decode(frame) {
        let json: unknown;
        try {
          json = JSON.parse(frame.payload ?? '');
        } catch {
          return passThrough(frame, 'gemini-api: body is not JSON');
        }
        array = Array.isArray(json);
        const chunks: unknown[] = Array.isArray(json) ? json : [json];
        const located: Located[] = [];
        open = new Set<number>();
        chunks.forEach((chunk, k) => {
          const found = chunkSlots(chunk, array ? [k] : []);
          located.push(...found.located);
          for (const index of found.info.candidates) open.add(index);
          if (isRecord(chunk)) like = chunk;
        });
        return {
          frame,
          slots: located.map((l) => l.slot),
          render: (texts) => replaceStrings(frame.raw, edits(located, texts)),
        };
      },
      emitted() {
        emitted = true;
      },
      blockEnding() {
        if (emitted) return '';
        const chunk = safetyChunk(open.size > 0 ? open : [0], like);
        return JSON.stringify(array ? [chunk] : chunk);
      },
    };
  },
};
