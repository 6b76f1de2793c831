/**
 * The Vercel AI SDK 3.x/4 data stream (WIRE-FORMATS-2.md §1.6): `text/plain`,
 * one `CODE:JSON` part per line. Guarded: `0:` (visible text) and `g:`
 * (reasoning), both JSON strings and incremental, one channel each for the
 * whole answer (the client appends `0:` values across steps, so a secret split
 * across a step still meets itself); reasoning ends where the text begins. Every other part passes through byte for
 * byte; an unknown code is reported (the client would throw on it).
 *
 * Lines go out whole only (NDJSON framing): the client parses a network chunk
 * only when it ends with `\n`, so a partial line would stall the page. Both
 * channels end before `d:` (finish_message, the last part), so held text is
 * released into the text lines before it.
 *
 * A block ends the answer as `streamText` ends a filtered one: `e:` (when the
 * page saw a step start and not its end) and `d:` with `finishReason`
 * `"content-filter"`; `usage` is optional in both and left out.
 */
import type { RawFrame } from '../raw-frame.ts';
import {
  type AdapterSession,
  type WireAdapter,
  type WireEvent,
  passThrough,
} from '../wire-event.ts';
import { recognisers } from '../wire-recognisers.ts';

/** Part codes of @ai-sdk/ui-utils 1.2.11 `data-stream-parts.ts`. */
const KNOWN_CODES = new Set([...'0123456789abcdefghijk']);

const PART = /^([0-9a-z]):([^]*)$/;

/**
 * The reasoning of a step comes before its text (§1.6 example): the first `0:`
 * after `g:` ends the reasoning channel, so the text is not held behind a
 * reasoning tail that could still grow; a later `g:` opens a fresh channel.
 */
class ReasoningRun {
  private generation = 0;
  private open = false;

  channel(): string {
    this.open = true;
    return this.generation === 0 ? 'reasoning' : `reasoning#${this.generation}`;
  }

  /** Called on a text part: the channel to end, if reasoning was running. */
  close(): string[] {
    if (!this.open) return [];
    const ended = this.channel();
    this.open = false;
    this.generation++;
    return [ended];
  }
}

function decodePart(frame: RawFrame, reasoning: ReasoningRun): WireEvent {
  const line = frame.payload ?? frame.raw;
  if (line.trim() === '') return passThrough(frame);
  const m = PART.exec(line);
  if (m === null) return passThrough(frame, 'ai-sdk-data: line is not CODE:JSON');
  const code = m[1] as string;
  if (!KNOWN_CODES.has(code)) return passThrough(frame, `ai-sdk-data: code ${code}`);
  if (code === 'd') return { ...passThrough(frame), ends: ['text', ...reasoning.close()] };
  if (code !== '0' && code !== 'g') return passThrough(frame);
  let value: unknown;
  try {
    value = JSON.parse(m[2] as string);
  } catch {
    return passThrough(frame, `ai-sdk-data: ${code} is not JSON`);
  }
  if (typeof value !== 'string') return passThrough(frame, `ai-sdk-data: ${code} is not a string`);
  const ending = frame.raw.slice(line.length);
  const ends = code === '0' ? reasoning.close() : [];
  return {
    frame,
    slots: [{ channel: code === '0' ? 'text' : reasoning.channel(), mode: 'delta', text: value }],
    ...(ends.length > 0 ? { ends } : {}),
    render: (texts) => `${code}:${JSON.stringify(texts[0] as string)}${ending}`,
  };
}

export function aiSdkDataSession(): AdapterSession {
  const reasoning = new ReasoningRun();
  let stepOpen = false;
  let finished = false;
  return {
    decode: (frame) => decodePart(frame, reasoning),
    emitted(event) {
      const code = (event.frame.payload ?? '').slice(0, 2);
      if (code === 'f:') stepOpen = true;
      if (code === 'e:') stepOpen = false;
      if (code === 'd:') finished = true;
    },
    blockEnding() {
      if (finished) return '';
      const reason = JSON.stringify('content-filter');
      const step = stepOpen ? `e:{"finishReason":${reason},"isContinued":false}\n` : '';
      return `${step}d:{"finishReason":${reason}}\n`;
    },
  };
}

export const aiSdkDataStream: WireAdapter = {
  ...recognisers.aiSdkDataStream,
  open: aiSdkDataSession,
};
