/**
 * The MAIN world's side of the guard: every guard a hook asks for is run by the
 * ISOLATED bridge (src/content/guard-host.ts, request-host.ts) over the private
 * port: a body as its network bytes (the bridge decodes them, and hands back the
 * same bytes when the guard changed nothing: content/body-bytes.ts), a socket as
 * its text messages. This module dresses that
 * as what the hooks expect — a byte guard
 * (a writable/readable pair) for a response body, a socket guard with a sink
 * for a WebSocket, a promise of the verdict for a request.
 *
 * Why not run the guard here: page scripts share this world's globals and
 * prototypes, so here the guard's state and rules would be within their reach,
 * and every page would carry the whole engine in its MAIN-world script (issue
 * 4: at most 40 KB minified). The cost is one hop per network chunk each way.
 *
 * Fail closed: without the channel (the handshake failed) a guarded body fails
 * at once, a socket closes and a request is refused; `guard-failed` does the
 * same mid-stream. A body whose answer never comes stays held (a verdict is
 * never replaced by time).
 *
 * No extension APIs here.
 */
import type { OutgoingRequest } from '../core/wire/requests/request-text.ts';
import type { WireProbe, WireRecogniser } from '../core/wire/wire-event.ts';
import type { BridgeToPage, GuardKind, PageToBridge } from '../protocol/page-channel.ts';
import type { ByteGuard } from './guarded-response.ts';
import {
  apply,
  create,
  NativePromise,
  NativeReadableStream,
  NativeTypeError,
  NativeWritableStream,
  sliceBytes,
} from './intrinsics.ts';

/** Where a guarded socket's output goes (web-socket-hook.ts). */
export interface SocketSink {
  /** Messages the page may receive now, in order. */
  deliver(messages: string[]): void;
  /** The guard released everything after the socket closed. */
  done(): void;
  /** The guard failed: close the socket, deliver nothing more. */
  fail(): void;
}

/** A guarded socket: its text messages go in; the sink gets what the page may see. */
export interface RemoteSocket {
  push(message: string): void;
  end(): void;
}

/** `id`: the request's id on the channel, for `answered` (issue 20: a refused rewrite). */
export type RequestVerdict = { send: true; body: string; id?: string } | { send: false };

export interface RemoteGuards {
  wire(recogniser: WireRecogniser, probe: WireProbe): ByteGuard;
  plainText(probe: WireProbe): ByteGuard;
  socket(recogniser: WireRecogniser, probe: WireProbe, sink: SocketSink): RemoteSocket;
  request(request: OutgoingRequest, body: string): Promise<RequestVerdict>;
  /**
   * Issue 20: the HTTP status the sent request `id` was answered with; the bridge
   * decides whether it was a refused rewrite (content/rewrite-refusals.ts).
   */
  answered(id: string, status: number): void;
  /** Takes the bridge's messages (the site routes go to page-site-routes.ts, not here). */
  receive(message: BridgeToPage): void;
}

export interface RemoteGuardDeps {
  /** Sends to the bridge; false when there is no channel (nothing was sent). */
  send(message: PageToBridge): boolean;
  newId(): string;
}

/**
 * The most bytes one `guard-chunk` carries. The ISOLATED world guards each message
 * in its own task, on the page's main thread: a 64 KB network read handed over
 * whole would be one long task; in pieces, rendering and input run in between
 * (issue 4: no long tasks caused by the guard). The guard's output does not
 * depend on how its input is split (DESIGN.md §3.1), and the bridge decodes the
 * pieces as one stream (a character split between two is decoded whole).
 */
export const MAX_CHUNK_BYTES = 16_384;

/**
 * `bytes` in pieces of at most `max` bytes, each its own copy unless `bytes` is one
 * piece spanning its whole buffer: a posted view carries its whole buffer along.
 */
export function bytePieces(bytes: Uint8Array, max = MAX_CHUNK_BYTES): Uint8Array[] {
  const length = bytes.byteLength;
  if (length <= max && bytes.byteOffset === 0 && length === bytes.buffer.byteLength) return [bytes];
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < length || at === 0; at += max) {
    pieces.push(apply(sliceBytes, bytes, [at, at + max]) as Uint8Array);
  }
  return pieces;
}

/** The page sees this message; it carries no content. */
const FAILED = 'Chat Stream Guard: the guard failed';

/**
 * Open streams by id: tables without a prototype, read without a method the page could
 * replace (Map.prototype.get is the page's to change).
 */
type Table<V> = Record<string, V>;
const table = <V>() => create(null) as Table<V>;
/** Removes `id`; true when it was there. */
const take = <V>(open: Table<V>, id: string): boolean => id in open && delete open[id];

interface BodyEnd {
  output(bytes: Uint8Array): void;
  done(): void;
  failed(): void;
}

export function createRemoteGuards(deps: RemoteGuardDeps): RemoteGuards {
  const bodies = table<BodyEnd>();
  const sockets = table<SocketSink>();
  const verdicts = table<(verdict: RequestVerdict) => void>();

  const open = (kind: GuardKind, recogniser: string, probe: WireProbe, streamId: string) =>
    deps.send({ v: 1, type: 'guard-open', streamId, kind, recogniser, probe });

  const body = (kind: GuardKind, recogniser: string, probe: WireProbe): ByteGuard => {
    const streamId = deps.newId();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let sink!: WritableStreamDefaultController;
    // Like a TransformStream's two sides: the page cancelling the output errors the
    // input (so the pipe cancels the network body: the upstream stops), and the input
    // aborting (network error, the page's AbortSignal) errors the output with the same
    // reason (so the page sees the very error the native body raised).
    const readable = new NativeReadableStream<Uint8Array>({
      __proto__: null,
      start: (c: ReadableStreamDefaultController<Uint8Array>) => {
        controller = c;
      },
      cancel: (reason: unknown) => {
        if (take(bodies, streamId)) deps.send({ v: 1, type: 'guard-cancel', streamId });
        sink.error(reason);
      },
    } as UnderlyingDefaultSource<Uint8Array>);
    const end: BodyEnd = {
      // One output per network chunk, bytes the bridge sent (never shared memory).
      output: (bytes) => controller.enqueue(bytes),
      done: () => {
        take(bodies, streamId);
        controller.close();
      },
      failed: () => {
        take(bodies, streamId);
        const error = new NativeTypeError(FAILED);
        controller.error(error);
        sink.error(error);
      },
    };
    const post = (message: PageToBridge) => {
      if (streamId in bodies) deps.send(message);
    };
    const postBytes = (bytes: Uint8Array) => {
      const pieces = bytePieces(bytes);
      for (let i = 0; i < pieces.length; i++) {
        post({
          v: 1,
          type: 'guard-chunk',
          streamId,
          bytes: pieces[i]!,
          last: i === pieces.length - 1,
        });
      }
    };
    const writable = new NativeWritableStream<Uint8Array>({
      __proto__: null,
      start: (c: WritableStreamDefaultController) => {
        sink = c;
      },
      write: (chunk: Uint8Array) => postBytes(chunk),
      close: () => post({ v: 1, type: 'guard-close', streamId }),
      abort: (reason: unknown) => {
        if (take(bodies, streamId)) deps.send({ v: 1, type: 'guard-cancel', streamId });
        controller.error(reason);
      },
    } as UnderlyingSink<Uint8Array>);
    bodies[streamId] = end;
    if (!open(kind, recogniser, probe, streamId)) end.failed();
    return { writable, readable };
  };

  return {
    // The bridge reads a byte-level format (Kimi's Connect envelopes) as a byte string.
    wire: (recogniser, probe) => body('wire', recogniser.id, probe),
    plainText: (probe) => body('plain-text', '', probe),
    socket(recogniser, probe, sink) {
      const streamId = deps.newId();
      sockets[streamId] = sink;
      const post = (message: PageToBridge) => {
        if (streamId in sockets) deps.send(message);
      };
      if (!open('socket', recogniser.id, probe, streamId)) {
        take(sockets, streamId);
        sink.fail();
      }
      return {
        push: (message) => post({ v: 1, type: 'guard-message', streamId, message }),
        end: () => post({ v: 1, type: 'guard-close', streamId }),
      };
    },
    request(request, body) {
      const requestId = deps.newId();
      return new NativePromise((resolve) => {
        verdicts[requestId] = resolve;
        if (!deps.send({ v: 1, type: 'request-guard', requestId, request, body })) {
          take(verdicts, requestId);
          resolve({ send: false });
        }
      });
    },
    answered(requestId, status) {
      deps.send({ v: 1, type: 'request-answered', requestId, status });
    },
    receive(message) {
      if (message.type === 'request-verdict') {
        const resolve = verdicts[message.requestId];
        take(verdicts, message.requestId);
        resolve?.(
          message.send
            ? { send: true, body: message.body, id: message.requestId }
            : { send: false },
        );
        return;
      }
      if (message.type === 'site-routes') return;
      const { streamId } = message;
      const bodyEnd = bodies[streamId];
      if (bodyEnd !== undefined) {
        if (message.type === 'guard-output') bodyEnd.output(message.bytes);
        else if (message.type === 'guard-done') bodyEnd.done();
        else if (message.type === 'guard-failed') bodyEnd.failed();
        return;
      }
      const sink = sockets[streamId];
      if (sink === undefined) return;
      if (message.type === 'guard-messages') sink.deliver(message.messages);
      else if (message.type === 'guard-done') {
        take(sockets, streamId);
        sink.done();
      } else if (message.type === 'guard-failed') {
        take(sockets, streamId);
        sink.fail();
      }
    },
  };
}
