/**
 * Microsoft Copilot (copilot.microsoft.com), WIRE-FORMATS-2.md §4.2 and
 * WIRE-FORMATS.md §5.6. Confidence MED: public clients agree (gpt4free
 * `Copilot.py` and others), no live capture.
 *
 * The page sends on a WebSocket `wss://copilot.microsoft.com/c/api/chat?api-version=2…`
 * and the answer comes back on it as JSON frames, one per socket message,
 * named by `event`. Guarded, per answer (`messageId`; frames without one are
 * one answer, `answer`):
 * - `appendText {text}`: incremental, channel `msg:<id>` (`:<partId>` when the
 *   frame names a part);
 * - `replaceText {text}`: the part's text replaced (a snapshot);
 * - `chainOfThought {text}`: reasoning, its own channel `msg:<id>:thought`;
 * - `titleUpdate {title}` and each of `suggestedFollowups {suggestions[]}`:
 *   whole texts the page shows.
 * `partCompleted` ends the part's channel and `done` every channel of the
 * answer. Every other frame (`connected`, `received`, `startMessage`,
 * `citation`, image events, `ping`/`pong`, `error`) passes byte for byte; an
 * event name not in §4.2 / §5.6 passes and is reported.
 *
 * A block ends the answer the way the socket ends one: a `done` frame for that
 * answer (socket-answer-guard.ts sends it as its own message and drops the
 * answer's later frames). The user's text goes out in a `send` frame on the
 * same socket (§4.2); that side is not rewritten here.
 */
import type { JsonPath } from '../json-string-span.ts';
import { type LocatedText, locatedJsonEvent } from '../located-text.ts';
import type { RawFrame } from '../raw-frame.ts';
import { ReasoningRuns } from '../reasoning-runs.ts';
import type { AnswerSocketSession, SocketFormat } from '../socket-answer-guard.ts';
import { isRecord } from '../sse-json-render.ts';
import { type WireAdapter, type WireEvent, passThrough } from '../wire-event.ts';
import { recognisers } from '../wire-recognisers.ts';

/** The answer of frames that name none. */
const UNNAMED = 'answer';

/** Frames without answer text (§4.2, §5.6). */
const PASS_EVENTS = new Set([
  'connected',
  'received',
  'startMessage',
  'citation',
  'generatingImage',
  'imageGenerated',
  'partialImageGenerated',
  'ping',
  'pong',
  'error',
  'challenge',
]);

/** Frames of an answer: the ones a block's drop applies to. */
const ANSWER_EVENTS = new Set([
  'startMessage',
  'appendText',
  'replaceText',
  'chainOfThought',
  'partCompleted',
  'done',
  'citation',
  'suggestedFollowups',
]);

function parseFrame(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) && typeof value.event === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

const answerIdOf = (frame: Record<string, unknown>): string =>
  typeof frame.messageId === 'string' ? frame.messageId : UNNAMED;

const partChannel = (frame: Record<string, unknown>): string => {
  const msg = `msg:${answerIdOf(frame)}`;
  return typeof frame.partId === 'string' ? `${msg}:${frame.partId}` : msg;
};

/**
 * The texts of one frame, and the channels it ends: the answer's text resuming
 * ends its open run of reasoning, so the answer never waits behind a reasoning
 * tail that can no longer grow (reasoning-runs.ts).
 */
function locate(
  frame: Record<string, unknown>,
  thought: ReasoningRuns,
): { located: LocatedText[]; ends: string[] } {
  const located: LocatedText[] = [];
  let ends: string[] = [];
  const at = (key: string | number, ...rest: (string | number)[]): JsonPath => [key, ...rest];
  const text = typeof frame.text === 'string' ? frame.text : undefined;
  switch (frame.event) {
    case 'appendText':
      ends = thought.close();
      if (text !== undefined)
        located.push({
          slot: { channel: partChannel(frame), mode: 'delta', text },
          path: at('text'),
        });
      break;
    case 'replaceText':
      ends = thought.close();
      if (text !== undefined)
        located.push({
          slot: { channel: partChannel(frame), mode: 'snapshot', text },
          path: at('text'),
        });
      break;
    case 'chainOfThought':
      if (text !== undefined)
        located.push({
          slot: { channel: thought.channel(), mode: 'delta', text },
          path: at('text'),
        });
      break;
    case 'titleUpdate':
      if (typeof frame.title === 'string')
        located.push({
          slot: { channel: 'title', mode: 'echo', text: frame.title },
          path: at('title'),
        });
      break;
    case 'suggestedFollowups':
      if (Array.isArray(frame.suggestions))
        frame.suggestions.forEach((s: unknown, i: number) => {
          if (typeof s === 'string')
            located.push({
              slot: { channel: `followup:${answerIdOf(frame)}:${i}`, mode: 'echo', text: s },
              path: at('suggestions', i),
            });
        });
      break;
  }
  return { located, ends };
}

export function copilotSocketSession(): AnswerSocketSession {
  const channelsOf = new Map<string, Set<string>>();
  const thoughts = new Map<string, ReasoningRuns>();
  const done = new Set<string>();
  let lastTextMessage: string | undefined;

  const decode = (raw: RawFrame): WireEvent => {
    const frame = parseFrame(raw.payload ?? raw.raw);
    if (frame === undefined) return passThrough(raw);
    const id = answerIdOf(frame);
    const known = channelsOf.get(id) ?? new Set<string>();
    channelsOf.set(id, known);
    const thought = thoughts.get(id) ?? new ReasoningRuns(`msg:${id}:thought`);
    thoughts.set(id, thought);
    const { located, ends: closed } = locate(frame, thought);
    let ends = closed;
    if (frame.event === 'partCompleted') ends = [partChannel(frame)].filter((c) => known.has(c));
    if (frame.event === 'done') ends = [...known];
    const event =
      located.length > 0
        ? locatedJsonEvent(raw, located)
        : passThrough(
            raw,
            ANSWER_EVENTS.has(String(frame.event)) ||
              PASS_EVENTS.has(String(frame.event)) ||
              frame.event === 'titleUpdate'
              ? undefined
              : `copilot: event ${String(frame.event)}`,
          );
    for (const l of located) {
      if (l.slot.channel.startsWith('msg:')) {
        known.add(l.slot.channel);
        lastTextMessage = id;
      }
    }
    return ends.length > 0 ? { ...event, ends } : event;
  };

  return {
    get lastTextMessage() {
      return lastTextMessage;
    },
    decode,
    emitted(event) {
      const frame = parseFrame(event.frame.payload ?? event.frame.raw);
      if (frame?.event === 'done') done.add(answerIdOf(frame));
    },
    endingFor(id) {
      if (done.has(id)) return '';
      done.add(id);
      return JSON.stringify(id === UNNAMED ? { event: 'done' } : { event: 'done', messageId: id });
    },
    blockEnding() {
      return lastTextMessage === undefined ? '' : this.endingFor(lastTextMessage);
    },
  };
}

/** One socket message = one frame (the adapter is fed message by message). */
export const copilotSocket: WireAdapter = {
  ...recognisers.copilotSocket,
  open: copilotSocketSession,
};

/** Copilot's socket as a format of the shared socket guard. */
export const copilotSocketFormat: SocketFormat = {
  adapter: copilotSocket,
  session: copilotSocketSession,
  answerOf(message) {
    const frame = parseFrame(message);
    return frame !== undefined && ANSWER_EVENTS.has(String(frame.event))
      ? answerIdOf(frame)
      : undefined;
  },
  answerOfChannel: (channel) => /^(?:msg|followup):([^:]*)/.exec(channel)?.[1],
};
