/**
 * Gemini web (`…/assistant.lamda.BardFrontendService/StreamGenerate`, read by the
 * page from a chunked XHR; WIRE-FORMATS.md §3).
 *
 * Framing (§3.3): `)]}'`, then length-prefixed frames (lengths in UTF-16 code
 * units), see `length-prefixed-framer.ts`. Each frame is a JSON array of
 * entries; answer frames are `["wrb.fr", null, "<inner JSON as a string>", …]`,
 * trailers are `di`, `af.httprm` and `e`.
 *
 * Text (§3.4): inside the inner payload `P`, every candidate `P[4][i]` carries
 * the WHOLE answer so far at `[1][0]` (a cumulative snapshot), the card text
 * that replaces a `card_content` placeholder at `[22][0]`, and the thinking text
 * at `[37][0][0]`; each is its own channel keyed by the candidate id
 * (`rc_…`), in `snapshot` mode, so every re-sent snapshot carries the guarded
 * text and a redaction never comes back on the next frame (§3.6 pitfall 3).
 * Snapshots that are not an extension of the previous one (Gemini's escaping
 * drift) make the rewriter guard that channel afresh.
 *
 * Re-serialisation edits only the string literals in the inner JSON, re-encodes
 * it into the outer string, and moves the frame's length prefix by the change
 * in UTF-16 units; unchanged frames go out byte for byte.
 *
 * End (§3.5): there is no sentinel; a finished answer has status
 * `cand[8][0] == 2` and the body ends after the `e` trailer. A blocked answer
 * ends the same way: the last answer frame the page saw is sent again with
 * status 2 (its text is what the page already shows), then an `e` trailer.
 */
import { recognisers } from '../wire-recognisers.ts';
import {
  ANTI_HIJACK_PREFIX,
  LengthPrefixedFramer,
  lengthPrefixedFrame,
  renderLengthPrefixed,
  splitLengthPrefixed,
} from '../framing/length-prefixed-framer.ts';
import { type JsonPath, replaceStrings } from '../json-string-span.ts';
import type { RawFrame } from '../raw-frame.ts';
import {
  type AdapterSession,
  type TextSlot,
  type WireAdapter,
  type WireEvent,
  passThrough,
} from '../wire-event.ts';

/** Entry kinds of a `)]}'` body this adapter knows (§3.3). */
const KNOWN_ENTRIES = new Set(['wrb.fr', 'di', 'af.httprm', 'e']);

/** Candidate fields that hold visible text, relative to the candidate (§3.4). */
const CANDIDATE_TEXTS: readonly { kind: string; path: readonly number[] }[] = [
  { kind: 'answer', path: [1, 0] },
  { kind: 'card', path: [22, 0] },
  { kind: 'thinking', path: [37, 0, 0] },
];

/** Status value of a finished candidate at `cand[8][0]` (§3.4, §3.5). */
const STATUS_COMPLETE = 2;

interface InnerEdit {
  slot: TextSlot;
  /** Path inside the inner JSON. */
  path: JsonPath;
}

interface WrbEntry {
  /** Index of the entry in the frame's outer array. */
  index: number;
  inner: string;
  edits: InnerEdit[];
}

function at(value: unknown, path: readonly number[]): unknown {
  let current = value;
  for (const key of path) {
    if (!Array.isArray(current)) return undefined;
    current = current[key];
  }
  return current;
}

/** The guarded text slots of one inner payload `P`. */
function innerEdits(payload: unknown): InnerEdit[] {
  const candidates = at(payload, [4]);
  if (!Array.isArray(candidates)) return [];
  const edits: InnerEdit[] = [];
  candidates.forEach((candidate: unknown, i: number) => {
    if (!Array.isArray(candidate)) return;
    const id = typeof candidate[0] === 'string' ? candidate[0] : `#${i}`;
    for (const { kind, path } of CANDIDATE_TEXTS) {
      const text = at(candidate, path);
      if (typeof text === 'string') {
        edits.push({
          slot: { channel: `${kind}:${id}`, mode: 'snapshot', text },
          path: [4, i, ...path],
        });
      }
    }
  });
  return edits;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Reads a frame's entries; null when the payload is not the documented array of arrays. */
function readEntries(payload: string): { wrb: WrbEntry[]; unknown: string[] } | null {
  const outer = parse(payload);
  if (!Array.isArray(outer)) return null;
  const wrb: WrbEntry[] = [];
  const unknown: string[] = [];
  outer.forEach((entry: unknown, index: number) => {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string') {
      unknown.push(typeof entry);
      return;
    }
    if (!KNOWN_ENTRIES.has(entry[0])) unknown.push(entry[0]);
    if (entry[0] !== 'wrb.fr' || typeof entry[2] !== 'string') return;
    const inner = entry[2];
    const edits = innerEdits(parse(inner));
    wrb.push({ index, inner, edits });
  });
  return { wrb, unknown };
}

function renderPayload(
  payload: string,
  wrb: readonly WrbEntry[],
  texts: readonly string[],
): string {
  let k = 0;
  const outerEdits: { path: JsonPath; value: string }[] = [];
  for (const entry of wrb) {
    if (entry.edits.length === 0) continue;
    const edits = entry.edits.map((e) => ({ path: e.path, value: texts[k++] as string }));
    outerEdits.push({ path: [entry.index, 2], value: replaceStrings(entry.inner, edits) });
  }
  return outerEdits.length === 0 ? payload : replaceStrings(payload, outerEdits);
}

/** An answer frame built from `payload` with every candidate marked finished. */
function finishedFrame(payload: string): string | null {
  const outer = parse(payload);
  if (!Array.isArray(outer)) return null;
  let changed = false;
  const entries = outer.map((entry: unknown) => {
    if (!Array.isArray(entry) || entry[0] !== 'wrb.fr' || typeof entry[2] !== 'string') {
      return entry;
    }
    const inner = parse(entry[2]);
    const candidates = at(inner, [4]);
    if (!Array.isArray(inner) || !Array.isArray(candidates)) return entry;
    for (const candidate of candidates) {
      if (Array.isArray(candidate)) candidate[8] = [STATUS_COMPLETE];
    }
    changed = true;
    const copy = [...entry];
    copy[2] = JSON.stringify(inner);
    return copy;
  });
  return changed ? lengthPrefixedFrame(JSON.stringify(entries)) : null;
}

/** The payload with every guarded text emptied (a block before the page saw any text). */
function emptiedPayload(payload: string, wrb: readonly WrbEntry[]): string {
  const count = wrb.reduce((n, e) => n + e.edits.length, 0);
  return renderPayload(payload, wrb, new Array<string>(count).fill(''));
}

/** The `e` trailer; its last number is the body's total size (the Go capture's 216, §3.3). */
function endTrailer(sizeBefore: number): string {
  // The size counts the trailer itself: settle the number of digits first.
  let size = sizeBefore;
  for (let i = 0; i < 3; i++) {
    size = sizeBefore + utf8Length(lengthPrefixedFrame(`[["e",4,null,null,${size}]]`));
  }
  return lengthPrefixedFrame(`[["e",4,null,null,${size}]]`);
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

export function geminiWebSession(): AdapterSession {
  /** The page-visible text of frames already sent, by event (set by `render`). */
  const rendered = new WeakMap<WireEvent, string>();
  let lastShown: string | undefined;
  let lastDecoded: { payload: string; wrb: WrbEntry[] } | undefined;
  let sentSize = 0;
  let ended = false;

  return {
    decode(frame: RawFrame): WireEvent {
      if (frame.payload === undefined) {
        const stray = frame.raw.trim();
        return stray === '' || stray === ANTI_HIJACK_PREFIX
          ? passThrough(frame)
          : passThrough(frame, 'gemini-web: incomplete or malformed frame');
      }
      const payload = frame.payload;
      const read = readEntries(payload);
      if (read === null) return passThrough(frame, 'gemini-web: frame is not a JSON array');
      const unrecognised =
        read.unknown.length > 0 ? `gemini-web: entry ${read.unknown.join(',')}` : undefined;
      const edits = read.wrb.flatMap((e) => e.edits);
      if (edits.length === 0) return passThrough(frame, unrecognised);
      lastDecoded = { payload, wrb: read.wrb };
      const event: WireEvent = {
        frame,
        slots: edits.map((e) => e.slot),
        render(texts) {
          const out = renderLengthPrefixed(frame.raw, renderPayload(payload, read.wrb, texts));
          rendered.set(event, out);
          return out;
        },
      };
      if (unrecognised !== undefined) event.unrecognised = unrecognised;
      return event;
    },
    emitted(event) {
      const out = rendered.get(event) ?? event.frame.raw;
      sentSize += utf8Length(out);
      if (event.slots.length > 0) lastShown = out;
      else if (/\[\s*"e"\s*,/.test(event.frame.payload ?? '')) ended = true;
    },
    blockEnding() {
      if (ended) return '';
      let frame: string | null = null;
      if (lastShown !== undefined) {
        frame = finishedFrame(splitLengthPrefixed(lastShown).payload);
      } else if (lastDecoded !== undefined) {
        frame = finishedFrame(emptiedPayload(lastDecoded.payload, lastDecoded.wrb));
      }
      const body = frame ?? '';
      return body + endTrailer(sentSize + utf8Length(body));
    },
  };
}

export const geminiWeb: WireAdapter = {
  ...recognisers.geminiWeb,
  open: geminiWebSession,
  createFramer: () => new LengthPrefixedFramer(),
};
