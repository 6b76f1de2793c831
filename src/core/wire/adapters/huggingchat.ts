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
 * The reattach stream (`GET {base}/conversation/{id}/stream`, §4.6) is SSE
 * (`event: update`, `data: <update>`; `event: end`; `: heartbeat` comments),
 * opened with `EventSource`: the same updates, read from each `update` event's
 * data; every other event passes. A block there ends with the same
 * interrupted `finalAnswer`, as an `update` event (the `end` event's data is
 * not documented, so none is invented).
 *
 * Not covered: the history load (`GET {base}/api/conversation/{id}`), whose
 * shape differs between chat-ui versions.
 */
import type { JsonPath } from '../json-string-span.ts';
import { replaceStrings } from '../json-string-span.ts';
import { NdjsonFramer } from '../framing/ndjson-framer.ts';
import { SseFramer } from '../framing/sse-framer.ts';
import type { Framer, RawFrame } from '../raw-frame.ts';
import { ReasoningRuns } from '../reasoning-runs.ts';
import { isRecord, renderSseJson } from '../sse-json-render.ts';
import {
  type AdapterSession,
  type TextSlot,
  type WireAdapter,
  type WireEvent,
  passThrough,
} from '../wire-event.ts';
import { recognisers } from '../wire-recognisers.ts';
import { withConversationDocument } from './huggingchat-history.ts';

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

/**
 * The POST's answer is JSONL, the reattach stream SSE (§4.6): the first
 * character that is not a blank decides (`{` a JSON line, anything else an SSE
 * field or comment), so the split of the bytes never changes the frames.
 */
class UpdatesFramer implements Framer {
  private buffer = '';
  private inner: Framer | undefined;

  push(text: string): RawFrame[] {
    if (this.inner !== undefined) return this.inner.push(text);
    this.buffer += text;
    const first = /\S/.exec(this.buffer)?.[0];
    if (first === undefined) return [];
    this.inner = first === '{' ? new NdjsonFramer() : new SseFramer();
    const buffered = this.buffer;
    this.buffer = '';
    return this.inner.push(buffered);
  }

  end(): RawFrame[] {
    if (this.inner !== undefined) return this.inner.end();
    const rest = this.buffer;
    this.buffer = '';
    return rest.length > 0 ? [{ raw: rest }] : [];
  }
}

/** An SSE frame of the reattach stream: `event: update` carries one update as its data. */
function decodeSseFrame(frame: RawFrame, state: UpdateState): WireEvent {
  const sse = frame.sse;
  if (sse === undefined || sse.event !== 'update') return passThrough(frame);
  return decodeUpdate(frame, sse.data, state, (edits) => renderSseJson(frame, edits));
}

function updatesSession(): AdapterSession {
  const state: UpdateState = { reasoning: new ReasoningRuns('reasoning'), pads: false };
  let finished = false;
  let terminated = true;
  let sse = false;
  return {
    decode(frame) {
      // NDJSON frames carry their line as `payload`; SSE frames never do.
      if (frame.payload === undefined) {
        sse = true;
        return decodeSseFrame(frame, state);
      }
      const line = frame.payload;
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
      if (sse) return `event: update\ndata: ${stop}\n\n`;
      return `${terminated ? '' : '\n'}${stop}\n`;
    },
  };
}

export const huggingChat: WireAdapter = {
  ...recognisers.huggingChat,
  // The conversation routes also answer the conversation document (huggingchat-history.ts).
  open: () => withConversationDocument(updatesSession()),
  createFramer: () => new UpdatesFramer(),
};
