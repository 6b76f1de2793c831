/**
 * `csg replay` of a WebSocket entry of a Chrome DevTools HAR (issue 20 §3):
 * DevTools keeps a socket's frames in the entry's `_webSocketMessages`
 * (`{type: "send"|"receive", time, opcode, data}`). When a socket format claims
 * the entry's URL (Copilot, WIRE-FORMATS-2.md §4.2; Open WebUI's Socket.IO,
 * WIRE-FORMATS.md §6.1), its received text frames run, in order, through the
 * shared socket guard the page hook uses (socket-answer-guard.ts), and the
 * frames the page would have received are recorded back in the same structure.
 *
 * A socket frame is one unit of the socket's own framing: the page receives a
 * message whole, never part of one, so chunking within a frame does not apply
 * (DESIGN.md §3.1's chunk invariance is about byte streams). `--compare` says so.
 */
import type { GuardOptions } from '../core/guard/stream-guard.ts';
import type { CompiledPack } from '../core/rules/compile-pack.ts';
import { socketFormatById } from '../core/wire/adapter-registry.ts';
import type { ReplayOutcome } from '../core/wire/replay-body.ts';
import { type SocketFormat, SocketAnswerGuard } from '../core/wire/socket-answer-guard.ts';
import type { WireIssue } from '../core/wire/stream-rewriter.ts';
import { socketRecognisers } from '../core/wire/wire-recognisers.ts';
import type { HarEntryBody, HarSocketMessage } from './har-capture.ts';

/** RFC 6455 §5.2: a text frame (binary frames, opcode 2, pass unguarded). */
const TEXT_OPCODE = 1;

const isReceivedText = (m: HarSocketMessage): boolean =>
  m.type === 'receive' && m.opcode === TEXT_OPCODE;

/**
 * The socket format that claims a HAR entry, as the page's WebSocket hook
 * decides it: by the socket's URL, or by its first received message (the head).
 */
export function socketFormatOfEntry(entry: HarEntryBody): SocketFormat | undefined {
  const messages = entry.socketMessages;
  if (messages === undefined) return undefined;
  const head = messages.find(isReceivedText)?.data ?? '';
  const probe = { url: entry.url, method: 'GET', contentType: '', head };
  const recogniser = socketRecognisers.find((r) => r.detect(probe));
  return recogniser === undefined ? undefined : socketFormatById(recogniser.id);
}

export interface SocketReplay {
  /** The frames as the page would have seen them (sends as recorded). */
  messages: HarSocketMessage[];
  outcome: ReplayOutcome;
  /** How many received text frames were guarded. */
  frames: number;
}

const stopsAnswer = (outcome: ReplayOutcome): boolean =>
  outcome.events.some(
    ({ event }) => event.type === 'error' || (event.type === 'match' && event.action === 'block'),
  );

/**
 * Replays the received text frames of a socket through `format`'s guard. Each
 * message the guard releases is recorded as a received frame carrying the
 * fields (time, opcode…) of the frame whose arrival released it; what the
 * socket's close releases carries the last received frame's. `output` is the
 * released messages joined by newlines (for the byte-identity check).
 */
export function replaySocket(
  format: SocketFormat,
  pack: CompiledPack,
  messages: readonly HarSocketMessage[],
  guard: GuardOptions = {},
): SocketReplay {
  const events: ReplayOutcome['events'] = [];
  const issues: WireIssue[] = [];
  const socket = new SocketAnswerGuard(format, pack, {
    guard,
    onGuardEvents: (channel, list) => events.push(...list.map((event) => ({ channel, event }))),
    onIssue: (issue) => issues.push(issue),
  });
  const out: HarSocketMessage[] = [];
  const released: string[] = [];
  let last: HarSocketMessage | undefined;
  let frames = 0;
  const record = (from: HarSocketMessage, texts: string[]) => {
    for (const data of texts) out.push({ ...from, data });
    released.push(...texts);
  };
  for (const message of messages) {
    if (!isReceivedText(message)) {
      out.push(message);
      continue;
    }
    frames++;
    last = message;
    record(message, socket.push(message.data));
  }
  const tail = socket.end();
  if (last !== undefined) record(last, tail);
  const outcome: ReplayOutcome = { output: released.join('\n'), blocked: false, events, issues };
  outcome.blocked = stopsAnswer(outcome);
  return { messages: out, outcome, frames };
}

/** True when the replay released exactly the received frames, unchanged. */
export function socketUnchanged(
  messages: readonly HarSocketMessage[],
  replay: SocketReplay,
): boolean {
  const before = messages.filter(isReceivedText).map((m) => m.data);
  const after = replay.messages.filter(isReceivedText).map((m) => m.data);
  return before.length === after.length && before.every((data, i) => data === after[i]);
}

/** The `--compare` line of a socket entry (without its newline). */
export function socketComparisonLine(stream: number, format: string, replay: SocketReplay): string {
  const n = replay.outcome.events.length;
  const blocked = replay.outcome.blocked ? ', blocked' : '';
  return (
    `stream ${stream} ${format} (WebSocket): ${replay.frames} received frames, each one unit; ` +
    `chunking within a frame does not apply to sockets (${n} event${n === 1 ? '' : 's'}${blocked})`
  );
}
