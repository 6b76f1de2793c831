/**
 * big-AGI v2's answer stream (WIRE-FORMATS-2.md §4.7, HIGH: captured from a
 * v2.1.0 production build; particle types read in enricoros/big-AGI
 * `src/modules/aix/server/api/aix.wiretypes.ts`, `AixWire_Particles`).
 *
 * big-AGI's own server calls the provider and re-streams the answer to the
 * page as the result of the tRPC procedure `aix.chatGenerateContent`:
 * `application/json`, one JSON document per line (tRPC `httpBatchStreamLink`
 * framing, superjson-wrapped as `{"json": …}`). The first lines describe the
 * batch's result and hand over an async-iterable chunk id; each later line
 * `{"json":[chunkId, 1, [[particle]]]}` yields one AIX particle, and
 * `{"json":[chunkId, 0, [[]]]}` returns (ends) the iterable. Guarded:
 * - `{t}`: the answer's text, incremental, channel `answer`;
 * - `{p:"tr_", _t}`: reasoning text, incremental, its own channel, ended when
 *   the answer resumes;
 * - `{cg:"issue", issueText}`: an issue the page shows the person in the
 *   message (§4.7), each a whole text of its own;
 * - `{p:"vp", text}`: a placeholder status text the page shows until content
 *   arrives, each a whole text of its own.
 * Every other line (the batch head, `set-model`, `set-metrics`, `end`,
 * heartbeats, tool calls, citations, images) passes byte for byte.
 *
 * The same procedure answers with `"streaming":false` (the chat title call,
 * §4.7) in the same framing, so it is read the same way.
 *
 * A block ends the answer the way big-AGI ends a provider's refusal: an `end`
 * particle with `tokenStopReason: "filter-refusal"` (`GCTokenStopReason`), then
 * the iterable's return line, each on the stream's own chunk id.
 */
import type { JsonPath } from '../json-string-span.ts';
import { type LocatedText, locatedJsonEvent } from '../located-text.ts';
import type { RawFrame } from '../raw-frame.ts';
import { ReasoningRuns } from '../reasoning-runs.ts';
import { isRecord } from '../sse-json-render.ts';
import {
  type AdapterSession,
  type WireAdapter,
  type WireEvent,
  passThrough,
} from '../wire-event.ts';
import { recognisers } from '../wire-recognisers.ts';

const ANSWER = 'answer';
/** tRPC's async-iterable chunk statuses (jsonl stream): a yielded value, the return. */
const YIELD = 1;
const RETURN = 0;
/** Where a yielded particle sits in a line: `json[2][0][0]`. */
const PARTICLE: JsonPath = ['json', 2, 0, 0];

/** A yield line's chunk id and particle; undefined for any other line. */
function yieldedParticle(
  line: unknown,
): { chunk: number; particle: Record<string, unknown> } | undefined {
  if (!isRecord(line) || !Array.isArray(line.json)) return undefined;
  const [chunk, status, data] = line.json as unknown[];
  if (typeof chunk !== 'number' || status !== YIELD || !Array.isArray(data)) return undefined;
  const values: unknown = data[0];
  const particle: unknown = Array.isArray(values) ? values[0] : undefined;
  return isRecord(particle) ? { chunk, particle } : undefined;
}

/** Counts the whole texts of one kind (issues, placeholders): each its own channel. */
class Numbered {
  private next = 0;
  constructor(private readonly name: string) {}
  channel(): string {
    return `${this.name}:${String(this.next++)}`;
  }
}

interface Channels {
  reasoning: ReasoningRuns;
  issues: Numbered;
  placeholders: Numbered;
}

function locate(particle: Record<string, unknown>, channels: Channels) {
  const located: LocatedText[] = [];
  let ends: string[] = [];
  const at = (key: string): JsonPath => [...PARTICLE, key];
  if (typeof particle.t === 'string') {
    ends = channels.reasoning.close();
    located.push({ slot: { channel: ANSWER, mode: 'delta', text: particle.t }, path: at('t') });
  } else if (particle.p === 'tr_' && typeof particle._t === 'string') {
    const channel = channels.reasoning.channel();
    located.push({ slot: { channel, mode: 'delta', text: particle._t }, path: at('_t') });
  } else if (particle.cg === 'issue' && typeof particle.issueText === 'string') {
    const channel = channels.issues.channel();
    located.push({
      slot: { channel, mode: 'echo', text: particle.issueText },
      path: at('issueText'),
    });
  } else if (particle.p === 'vp' && typeof particle.text === 'string') {
    const channel = channels.placeholders.channel();
    located.push({ slot: { channel, mode: 'echo', text: particle.text }, path: at('text') });
  } else if (particle.cg === 'end') {
    // The answer is over: nothing it holds can grow, so nothing waits behind it.
    ends = [...channels.reasoning.close(), ANSWER];
  }
  return { located, ends };
}

/** What the session learns from the lines: the chunk and end key, and how far the page got. */
interface Progress {
  /** The async iterable's chunk id (the last yield line read). */
  chunk: number | undefined;
  /** v2.1.0 names the end reason `terminationReason`; the current tree names it `reason`. */
  reasonKey: string;
  ended: boolean;
  returned: boolean;
  terminated: boolean;
}

function decodeLine(frame: RawFrame, channels: Channels, progress: Progress): WireEvent {
  const text = frame.payload ?? frame.raw;
  if (text.trim() === '') return passThrough(frame);
  let line: unknown;
  try {
    line = JSON.parse(text);
  } catch {
    return passThrough(frame, 'big-agi: line is not JSON');
  }
  const yielded = yieldedParticle(line);
  if (yielded === undefined) return passThrough(frame);
  // Read from every line, sent or not: a block's ending is written in the stream's own terms.
  progress.chunk = yielded.chunk;
  if (yielded.particle.cg === 'end' && 'reason' in yielded.particle) progress.reasonKey = 'reason';
  const { located, ends } = locate(yielded.particle, channels);
  const event = located.length > 0 ? locatedJsonEvent(frame, located) : passThrough(frame);
  return ends.length > 0 ? { ...event, ends } : event;
}

function noteEmitted(progress: Progress, frame: RawFrame): void {
  progress.terminated = frame.raw.endsWith('\n');
  let line: unknown;
  try {
    line = JSON.parse(frame.payload ?? frame.raw);
  } catch {
    return;
  }
  const yielded = yieldedParticle(line);
  if (yielded !== undefined) {
    if (yielded.particle.cg === 'end') progress.ended = true;
  } else if (isRecord(line) && Array.isArray(line.json) && line.json[1] === RETURN) {
    if (line.json[0] === progress.chunk) progress.returned = true;
  }
}

function bigAgiSession(): AdapterSession {
  const channels: Channels = {
    reasoning: new ReasoningRuns('reasoning'),
    issues: new Numbered('issue'),
    placeholders: new Numbered('placeholder'),
  };
  const progress: Progress = {
    chunk: undefined,
    reasonKey: 'terminationReason',
    ended: false,
    returned: false,
    terminated: true,
  };
  return {
    decode: (frame) => decodeLine(frame, channels, progress),
    emitted: (event) => noteEmitted(progress, event.frame),
    blockEnding() {
      const chunk = progress.chunk;
      if (chunk === undefined || progress.returned) return '';
      const lines: string[] = [];
      if (!progress.ended) {
        const end = {
          cg: 'end',
          [progress.reasonKey]: 'done-dialect',
          tokenStopReason: 'filter-refusal',
        };
        lines.push(JSON.stringify({ json: [chunk, YIELD, [[end]]] }));
      }
      lines.push(JSON.stringify({ json: [chunk, RETURN, [[]]] }));
      return `${progress.terminated ? '' : '\n'}${lines.join('\n')}\n`;
    },
  };
}

export const bigAgi: WireAdapter = {
  ...recognisers.bigAgi,
  open: bigAgiSession,
};
