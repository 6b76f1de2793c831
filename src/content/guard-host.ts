/**
 * The guard's home: the ISOLATED world runs every guard the MAIN world's hooks
 * ask for (src/page/remote-guard.ts) and sends the guarded text back over the
 * private port. Page scripts share the MAIN world's globals and prototypes;
 * here they can reach neither the guard's state nor its rules.
 *
 * One stream per `guard-open`: a response body (`wire`, `plain-text`) whose
 * text arrives in `guard-chunk`s and leaves in `guard-output`s, then
 * `guard-done`; or a socket (`socket`) whose messages arrive one by one and
 * leave as `guard-messages`. A stream that opens before the page config WAITS
 * for it (never unguarded, never released on a timer), its text kept in
 * order. Any failure — no config can come, an unknown recogniser or one that
 * does not claim the probe, a guard that throws — posts `guard-failed`, and the
 * MAIN world fails the body (or socket) closed.
 *
 * Nothing from the page is trusted: the messages were validated
 * (parse-page-message.ts), and the recogniser the MAIN world names must claim
 * the probe here too.
 *
 * No extension APIs here.
 */
import { type WireAdapter, type WireRecogniser, readsBytes } from '../core/wire/wire-event.ts';
import type { BridgeToPage, PageToBridge } from '../protocol/page-channel.ts';
import { type BodyBytes, createBodyBytes } from './body-bytes.ts';
import type { Abortable, GuardPipelines, SocketTextGuard, TextGuard } from './guard-pipelines.ts';
import type { StreamGuardSetup } from './page-guard-config.ts';

/** Streams open at once in one frame; more is a flood (and fails closed). */
export const MAX_OPEN_STREAMS = 512;

type StreamMessage = Extract<
  PageToBridge,
  { type: 'guard-open' | 'guard-chunk' | 'guard-message' | 'guard-close' | 'guard-cancel' }
>;
type OpenMessage = Extract<PageToBridge, { type: 'guard-open' }>;

export interface GuardHostDeps {
  pipelines: GuardPipelines;
  /** The setup for streams that start now, once there is one; rejects when there never will be. */
  ready(): Promise<StreamGuardSetup>;
  /** The adapter of a response recogniser (adapter-registry.ts `adapterById`). */
  adapterById(id: string): WireAdapter | undefined;
  /** The socket formats' recognisers (Open WebUI's, Copilot's). */
  socketRecognisers: readonly WireRecogniser[];
  post(message: BridgeToPage): void;
  /**
   * A stream that failed before its guard existed (no setup can come, or the
   * recogniser did not hold): reported like a guard failure, so the person sees
   * the notice and the log has the event.
   */
  reportFailure(format: string, reason: string): void;
  /**
   * Called before each step: resolves at once while the current task is young,
   * or after a new task once it has run for a while (task-pacer.ts). Streams
   * that waited for the config have a backlog, and their steps are chained
   * promises: without pacing they would all run in one long task (issue 4).
   */
  pace?(): Promise<void> | undefined;
}

/**
 * A body's guard, its bytes (decoded here, released as bytes: body-bytes.ts) and the
 * text it released since the last network chunk ended (handed back at the chunk's end).
 */
interface BodyGuard {
  kind: 'body';
  guard: TextGuard & Abortable;
  bytes: BodyBytes;
  released: string;
}

type Guard = BodyGuard | { kind: 'socket'; guard: SocketTextGuard & Abortable };

interface Stream {
  /** Each step waits for the one before it (the first waits for the setup). */
  chain: Promise<Guard>;
  /** The stream is over (done, failed or cancelled): steps still queued do nothing. */
  over: boolean;
}

export interface GuardHost {
  /** Handles one stream message; false when `message` is not one. */
  handle(message: PageToBridge): boolean;
  /** Streams currently open (tests). */
  readonly open: number;
}

function isStreamMessage(message: PageToBridge): message is StreamMessage {
  return message.type.startsWith('guard-');
}

export function createGuardHost(deps: GuardHostDeps): GuardHost {
  const streams = new Map<string, Stream>();

  const finish = (streamId: string, stream: Stream, last: BridgeToPage | undefined) => {
    if (stream.over) return;
    stream.over = true;
    streams.delete(streamId);
    if (last !== undefined) deps.post(last);
  };
  const failed = (streamId: string): BridgeToPage => ({ v: 1, type: 'guard-failed', streamId });
  const done = (streamId: string): BridgeToPage => ({ v: 1, type: 'guard-done', streamId });

  /**
   * The format a stream would have been reported under: the audit log names formats
   * (`openai-chat`), not the recogniser ids the page sends (`openai-chat-stream`); an id
   * no recogniser has is reported as sent (parse-page-message.ts bounds it).
   */
  const formatOf = (message: OpenMessage): string => {
    if (message.kind === 'plain-text') return 'plain-text';
    const recogniser =
      message.kind === 'wire'
        ? deps.adapterById(message.recogniser)
        : deps.socketRecognisers.find((r) => r.id === message.recogniser);
    return recogniser?.format ?? message.recogniser;
  };

  /** The guard the message asks for, checked against the recognisers; throws otherwise. */
  const build = (message: OpenMessage, setup: StreamGuardSetup): Guard => {
    const { kind, probe } = message;
    const body = (guard: TextGuard & Abortable, byteLevel: boolean): BodyGuard => ({
      kind: 'body',
      guard,
      bytes: createBodyBytes(byteLevel),
      released: '',
    });
    if (kind === 'plain-text') return body(deps.pipelines.plainText(setup), false);
    if (kind === 'wire') {
      const adapter = deps.adapterById(message.recogniser);
      if (adapter === undefined || !adapter.detect(probe)) throw new Error('unrecognised');
      // A byte-level format (Kimi's Connect envelopes) is read as a byte string (body-bytes.ts).
      return body(deps.pipelines.wire(adapter, setup), readsBytes(adapter));
    }
    const socket = deps.socketRecognisers.find((r) => r.id === message.recogniser);
    if (socket === undefined || !socket.detect(probe)) throw new Error('unrecognised');
    return { kind: 'socket', guard: deps.pipelines.socket(socket, setup) };
  };

  const open = (message: OpenMessage): void => {
    const { streamId } = message;
    if (streams.has(streamId) || streams.size >= MAX_OPEN_STREAMS) {
      deps.post(failed(streamId));
      return;
    }
    const stream: Stream = {
      chain: deps.ready().then((setup) => build(message, setup)),
      over: false,
    };
    streams.set(streamId, stream);
    stream.chain.catch((error: unknown) => {
      if (stream.over) return;
      deps.reportFailure(formatOf(message), error instanceof Error ? error.message : 'failed');
      finish(streamId, stream, failed(streamId));
    });
  };

  /** Runs `work` on the stream's guard after everything before it; a throw fails the stream. */
  const step = (streamId: string, stream: Stream, work: (guard: Guard) => void) => {
    stream.chain = stream.chain.then(async (guard) => {
      await deps.pace?.();
      if (!stream.over) {
        try {
          work(guard);
        } catch {
          finish(streamId, stream, failed(streamId));
        }
      }
      return guard;
    });
    stream.chain.catch(() => undefined);
  };

  /**
   * What the guard released, gathered over a network chunk's pieces and handed back as
   * one output when the chunk ends (the MAIN world hands the page one chunk per network
   * chunk), when the body ends, or when the guard blocked (the body ends there).
   */
  const deliverText = (
    streamId: string,
    stream: Stream,
    body: BodyGuard,
    text: string,
    last: boolean,
    end = false,
  ) => {
    body.released += text;
    if (last || end || body.guard.finished) {
      const bytes = body.bytes.release(body.released, end);
      body.released = '';
      if (bytes.length > 0) deps.post({ v: 1, type: 'guard-output', streamId, bytes });
    }
    if (body.guard.finished) finish(streamId, stream, done(streamId));
  };

  const deliverMessages = (streamId: string, messages: string[]) => {
    if (messages.length > 0) deps.post({ v: 1, type: 'guard-messages', streamId, messages });
  };

  const onStream = (message: StreamMessage): void => {
    if (message.type === 'guard-open') {
      open(message);
      return;
    }
    const { streamId } = message;
    const stream = streams.get(streamId);
    if (stream === undefined) return;
    switch (message.type) {
      case 'guard-chunk':
        step(streamId, stream, (g) => {
          if (g.kind !== 'body') throw new Error('text for a socket');
          const text = g.bytes.decode(message.bytes);
          deliverText(streamId, stream, g, g.guard.push(text), message.last);
        });
        return;
      case 'guard-message':
        step(streamId, stream, (g) => {
          if (g.kind !== 'socket') throw new Error('message for a body');
          deliverMessages(streamId, g.guard.push(message.message));
        });
        return;
      case 'guard-close':
        step(streamId, stream, (g) => {
          if (g.kind === 'body') {
            // A character cut at the very end: its replacement, as the page would decode it.
            const tail = g.bytes.flush();
            const held = tail === '' ? '' : g.guard.push(tail);
            const rest = g.guard.finished ? '' : g.guard.end();
            deliverText(streamId, stream, g, held + rest, true, true);
          } else deliverMessages(streamId, g.guard.end());
          finish(streamId, stream, done(streamId));
        });
        return;
      case 'guard-cancel':
        stream.chain.then((g) => g.guard.abort()).catch(() => undefined);
        finish(streamId, stream, undefined);
        return;
    }
  };

  return {
    handle(message) {
      if (!isStreamMessage(message)) return false;
      onStream(message);
      return true;
    },
    get open() {
      return streams.size;
    },
  };
}
