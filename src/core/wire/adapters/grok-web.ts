/**
 * xAI Grok web (grok.com), WIRE-FORMATS-2.md §4.3. Confidence MED: read from
 * public reverse-engineered clients (gpt4free `Grok.py`, Grok3API), no live
 * capture; `finalMetadata`'s shape and whether the page reads the stream with
 * `fetch` are not confirmed (§5).
 *
 * NDJSON, one `{"result":{…}}` object per line. Guarded:
 * - `result.response.token` (also `result.token`, which the same client reads
 *   as a fallback): incremental; `isThinking: true` is reasoning, its own
 *   channel, which ends when the answer's tokens begin (so the answer is not
 *   held behind a reasoning tail);
 * - `result.response.modelResponse.message`: the answer's FULL text repeated at
 *   its end (§0.2, "full-text echoes"), guarded whole, so it carries the same
 *   redactions as the tokens and never what they lost; it ends the answer;
 * - `result.title.newTitle`: the generated chat title, shown in the sidebar.
 * Every other line (conversation id, tool usage, deep-search status, image
 * progress, `finalMetadata`) passes byte for byte, one JSON per line.
 *
 * A block ends the answer the way the stream marks its own end (§4.3:
 * `isSoftStop: true`): a last response line with an empty token.
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
/**
 * The full-text echo is guarded as its own whole text, which ends the answer:
 * the same rules give it the same redactions as the tokens, and an echo that
 * differs from them (trimmed, say) still passes byte for byte when nothing
 * matches instead of being replaced by the streamed text.
 */
const FINAL = 'final';

/** Where a line keeps its text fields: under `result.response`, or (continuations) `result`. */
function tokenHolder(result: Record<string, unknown>): {
  at: JsonPath;
  json: Record<string, unknown>;
} {
  const response = result.response;
  if (isRecord(response)) return { at: ['result', 'response'], json: response };
  return { at: ['result'], json: result };
}

function locate(
  result: Record<string, unknown>,
  thinking: ReasoningRuns,
): {
  located: LocatedText[];
  ends: string[];
} {
  const located: LocatedText[] = [];
  let ends: string[] = [];
  const { at, json } = tokenHolder(result);
  if (typeof json.token === 'string') {
    const reasoning = json.isThinking === true;
    if (!reasoning) ends = thinking.close();
    const channel = reasoning ? thinking.channel() : ANSWER;
    located.push({ slot: { channel, mode: 'delta', text: json.token }, path: [...at, 'token'] });
  }
  const model = json.modelResponse;
  if (isRecord(model) && typeof model.message === 'string') {
    ends = [...ends, ...thinking.close(), ANSWER];
    located.push({
      slot: { channel: FINAL, mode: 'echo', text: model.message },
      path: [...at, 'modelResponse', 'message'],
    });
  }
  const title = result.title;
  if (isRecord(title) && typeof title.newTitle === 'string') {
    located.push({
      slot: { channel: 'title', mode: 'echo', text: title.newTitle },
      path: ['result', 'title', 'newTitle'],
    });
  }
  return { located, ends };
}

function decodeLine(frame: RawFrame, thinking: ReasoningRuns): WireEvent {
  const line = frame.payload ?? frame.raw;
  if (line.trim() === '') return passThrough(frame);
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return passThrough(frame, 'grok-web: line is not JSON');
  }
  if (!isRecord(json)) return passThrough(frame, 'grok-web: line is not a JSON object');
  if (!isRecord(json.result)) {
    return passThrough(frame, 'error' in json ? undefined : 'grok-web: line without result');
  }
  const { located, ends } = locate(json.result, thinking);
  const event = located.length > 0 ? locatedJsonEvent(frame, located) : passThrough(frame);
  return ends.length > 0 ? { ...event, ends } : event;
}

function grokSession(): AdapterSession {
  const thinking = new ReasoningRuns('thinking');
  let responseId: unknown;
  let softStopped = false;
  let terminated = true;
  return {
    decode: (frame) => decodeLine(frame, thinking),
    emitted(event) {
      terminated = event.frame.raw.endsWith('\n');
      const line = event.frame.payload ?? '';
      if (line.includes('"isSoftStop":true')) softStopped = true;
      const id = /"responseId":("(?:[^"\\]|\\.)*")/.exec(line)?.[1];
      if (id !== undefined) responseId = JSON.parse(id) as unknown;
    },
    blockEnding() {
      if (softStopped) return '';
      const response: Record<string, unknown> = { token: '', isThinking: false, isSoftStop: true };
      if (typeof responseId === 'string') response.responseId = responseId;
      return `${terminated ? '' : '\n'}${JSON.stringify({ result: { response } })}\n`;
    },
  };
}

export const grokWeb: WireAdapter = {
  ...recognisers.grokWeb,
  open: grokSession,
};
