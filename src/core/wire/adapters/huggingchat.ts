/**
 * HuggingChat (huggingface/chat-ui), WIRE-FORMATS-2.md §4.6. Confidence HIGH:
 * read in chat-ui's own source (`MessageUpdate.ts`, the conversation route).
 *
 * The answer to `POST {base}/conversation/{id}` is JSONL: one
 * `JSON.stringify(update)` per line. Guarded:
 * - `stream.token`: incremental; the server pads it with `\0` to 16 characters
 *   and the client strips them, so the guard reads the token without its
 *   padding (a secret split across tokens must meet itself) and a rewritten
 *   token is padded again the same way;
 * - `reasoning` updates with `subtype: "stream"`: reasoning, its own channel,
 *   ended when the answer's tokens resume;
 * - `finalAnswer.text`: the answer's FULL text (§0.2, "full-text echoes"),
 *   guarded whole, so it shows the same redactions as the tokens and never
 *   what they lost;
 * - `title.title`: the generated conversation title.
 * `status`, `tool`, `file`, `routerMetadata`, `elicitation` (and the 4096
 * spaces after `finalAnswer`) pass byte for byte; an unknown type is reported.
 *
 * A block ends the answer the way a stopped generation ends:
 * `finalAnswer` with `interrupted: true` and empty text, which the client's
 * `mergeFinalAnswerContent` resolves to the (guarded) content streamed so far.
 *
 * Not covered yet: the reattach stream (`GET …/stream`, SSE) and the history
 * load (`GET {base}/api/conversation/{id}`).
 */
import type { JsonPath } from '../json-string-span.ts';
import { replaceStrings } from '../json-string-span.ts';
import type { RawFrame } from '../raw-frame.ts';
import { ReasoningRuns } from '../reasoning-runs.ts';
import { isRecord } from '../sse-json-render.ts';
import {
  type AdapterSession,
  type TextSlot,
  type WireAdapter,
  type WireEvent,
  passThrough,
} from '../wire-event.ts';
import { recognisers } from '../wire-recognisers.ts';

const ANSWER = 'answer';
/**
 * `finalAnswer.text` is guarded as its own whole text, which ends the answer:
 * the server trims it (`trimEnd`, stop sequences) so it need not equal the
 * streamed tokens; the same rules give it the same redactions.
 */
const FINAL = 'final';
/** chat-ui pads stream tokens to this many characters with NUL (`padEnd(16, "\0")`). */
const PAD_TO = 16;

/** `MessageUpdateType` values of chat-ui's `MessageUpdate.ts` that carry no answer text. */
const PASSED_TYPES = new Set(['status', 'tool', 'file', 'routerMetadata', 'elicitation']);

interface Located {
  slot: TextSlot;
  path: JsonPath;
  /**
   * A token of a server that pads (known when it is decoded, so the result
   * never depends on where the network split the body): padded again when rewritten.
   */
  pad: boolean;
}

/** What a stream has shown so far: its reasoning runs, and whether its server pads tokens. */
export interface UpdateState {
  reasoning: ReasoningRuns;
  /** Set on the first NUL-padded token (chat-ui before the padding had none). */
  pads: boolean;
}

function tokenSlot(channel: string, token: string, state: UpdateState): Located {
  const text = token.replaceAll('\0', '');
  if (text.length !== token.length) state.pads = true;
  return { slot: { channel, mode: 'delta', text }, path: ['token'], pad: state.pads };
}

function locate(update: Record<string, unknown>, state: UpdateState) {
  const { reasoning } = state;
  const located: Located[] = [];
  let ends: string[] = [];
  const { type } = update;
  if (type === 'stream' && typeof update.token === 'string') {
    ends = reasoning.close();
    located.push(tokenSlot(ANSWER, update.token, state));
  } else if (type === 'reasoning' && update.subtype === 'stream') {
    if (typeof update.token === 'string')
      located.push(tokenSlot(reasoning.channel(), update.token, state));
  } else if (type === 'finalAnswer' && typeof update.text === 'string') {
    ends = [...reasoning.close(), ANSWER];
    located.push({
      slot: { channel: FINAL, mode: 'echo', text: update.text },
      path: ['text'],
      pad: false,
    });
  } else if (type === 'title' && typeof update.title === 'string') {
    located.push({
      slot: { channel: 'title', mode: 'echo', text: update.title },
      path: ['title'],
      pad: false,
    });
  }
  return { located, ends };
}

/** One update (a JSON object), re-rendered by `rerender` with the edited string values. */
export function decodeUpdate(
  frame: RawFrame,
  json: string,
  state: UpdateState,
  rerender: (texts: readonly { path: JsonPath; value: string }[]) => string,
): WireEvent {
  let update: unknown;
  try {
    update = JSON.parse(json);
  } catch {
    return passThrough(frame, 'huggingchat: line is not JSON');
  }
  if (!isRecord(update) || typeof update.type !== 'string') {
    return passThrough(frame, 'huggingchat: line is not an update');
  }
  const { located, ends } = locate(update, state);
  const known = located.length > 0 || PASSED_TYPES.has(update.type) || update.type === 'reasoning';
  const event: WireEvent =
    located.length === 0
      ? passThrough(frame, known ? undefined : `huggingchat: update ${update.type}`)
      : {
          frame,
          slots: located.map((l) => l.slot),
          render: (texts) =>
            rerender(
              located.map((l, i) => {
                const text = texts[i] as string;
                return {
                  path: l.path,
                  value: l.pad ? text.padEnd(PAD_TO, '\0') : text,
                };
              }),
            ),
        };
  return ends.length > 0 ? { ...event, ends } : event;
}

function jsonlSession(): AdapterSession {
  const state: UpdateState = { reasoning: new ReasoningRuns('reasoning'), pads: false };
  let finished = false;
  let terminated = true;
  return {
    decode(frame) {
      const line = frame.payload ?? frame.raw;
      if (line.trim() === '') return passThrough(frame);
      return decodeUpdate(frame, line, state, (edits) => replaceStrings(frame.raw, edits));
    },
    emitted(event) {
      terminated = event.frame.raw.endsWith('\n');
      if (event.slots.some((s) => s.channel === FINAL)) finished = true;
    },
    blockEnding() {
      if (finished) return '';
      const stop = JSON.stringify({ type: 'finalAnswer', text: '', interrupted: true });
      return `${terminated ? '' : '\n'}${stop}\n`;
    },
  };
}

export const huggingChat: WireAdapter = {
  ...recognisers.huggingChat,
  open: jsonlSession,
};
