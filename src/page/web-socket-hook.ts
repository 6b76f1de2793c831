/**
 * The `WebSocket` hook of the MAIN world: incoming messages of a socket a socket format
 * recognises are guarded before the page's `onmessage` / `message` listeners see them.
 * Open WebUI streams its answers as Socket.IO events on a WebSocket (WIRE-FORMATS.md
 * §6.1; `OpenWebUiSocketGuard`). ChatGPT's WebSocket hand-off (§1.7, `encoded_item` SSE
 * strings) has no adapter yet, so those sockets pass untouched.
 *
 * Design: the page keeps the native WebSocket (send, close, protocols are the
 * browser's). The constructor registers the hook's capturing `message` and `close`
 * listeners before page code can register any, so they run first. Until a socket is
 * recognised, each message is offered to `createSocketGuard` (its URL, and the message
 * as the head: a Socket.IO handshake precedes the first chat event) and passes through
 * untouched. Once recognised, every message is stopped (`stopImmediatePropagation`) and
 * handed to the guard (which runs in the ISOLATED world: remote-guard.ts); its output
 * (the same messages, in order, with only their text changed; none while text is held)
 * reaches the page through the socket's sink as new `MessageEvent`s. On `close` the
 * guard releases what it held, then the page gets the close event.
 *
 * Issue 18 §3, binary frames: a binary message whose bytes are UTF-8 text (a Socket.IO
 * packet sent as a binary frame) is decided and guarded as that text, and reaches the
 * page as binary again, in the page's `binaryType`. To read every binary message at
 * once, the native socket always receives ArrayBuffers; `binaryType` is kept per socket
 * for the page (its getter and setter are patched, the native setter still validates),
 * and a binary message the page wants as a Blob is handed over as a new Blob of the same
 * bytes. Binary messages that are not UTF-8 (attachments, images) carry no answer text:
 * they pass as they are, not reordered behind held messages.
 *
 * Failures: an exception in the hook's own steps, or a guard that fails, fails closed:
 * the socket is closed and no later message reaches the page.
 *
 * No extension APIs here: this code runs in the page's own world.
 */

import { newFetchHookStats } from './fetch-hook.ts';
import {
  call,
  decodeText,
  Encoder,
  getOwnPropertyDescriptor,
  MessageOf,
  NativeBlob,
  NativeTextDecoder,
  NativeTextEncoder,
  pristine,
  weakMap,
  weakSet,
} from './intrinsics.ts';
import { replaceAccessor, replaceConstructor } from './native-patch.ts';
import type { PageHookOptions, SocketMessageGuard } from './page-hook-options.ts';
import type { SocketSink } from './remote-guard.ts';

export type WebSocketHookOptions = Pick<
  PageHookOptions,
  'createSocketGuard' | 'stats' | 'reportFailure'
>;

export interface WebSocketHookTarget {
  WebSocket: typeof WebSocket;
  MessageEvent: typeof MessageEvent;
  CloseEvent: typeof CloseEvent;
  Event: typeof Event;
  EventTarget: typeof EventTarget;
  Function: FunctionConstructor;
}

/**
 * `closing`: the guarded socket closed and the guard is releasing its last messages;
 * `closed`: it did, and the page got the close event.
 */
type Phase = 'undecided' | 'guarded' | 'closing' | 'failed' | 'closed';

interface SocketState {
  url: string;
  phase: Phase;
  guard: SocketMessageGuard | undefined;
  /** The origin of the socket's messages (the first one's). */
  origin: string;
  /** The close event's details, kept while the guard releases its last messages. */
  close: { code: number; reason: string; wasClean: boolean } | undefined;
  /** The `binaryType` the page set (the native one is always `arraybuffer`). */
  binaryType: string;
  /** For each message handed to the guard, in order: was it binary? */
  kinds: boolean[];
  /** The next entry of `kinds` to deliver. */
  delivered: number;
}

const INSTALLED = weakSet<object>();
/** UTF-8 that refuses what is not: a binary message is text only when it decodes. */
const STRICT = { __proto__: null, fatal: true, ignoreBOM: true } as TextDecoderOptions;
const encoder = new NativeTextEncoder();

/** The phase, re-read after a call that may have moved it on. */
const phaseOf = (state: SocketState): Phase => state.phase;

export function installWebSocketHook(
  target: WebSocketHookTarget,
  options: WebSocketHookOptions = {},
): void {
  const { createSocketGuard, reportFailure } = options;
  const stats = options.stats ?? newFetchHookStats();
  if (!createSocketGuard) return;
  if (typeof target.WebSocket !== 'function' || INSTALLED.has(target.WebSocket)) return;

  // Captured now (document_start): the page may replace any of them later.
  const { MessageEvent, CloseEvent, Event } = target;
  const addListener = target.EventTarget.prototype.addEventListener;
  const dispatch = target.EventTarget.prototype.dispatchEvent;
  const stopImmediate = Event.prototype.stopImmediatePropagation;
  const socketProto = target.WebSocket.prototype;
  const nativeClose = socketProto.close;
  const urlGetter = getOwnPropertyDescriptor(socketProto, 'url')?.get;
  const synthetic = weakSet<Event>();
  const states = weakMap<object, SocketState>();
  const strict = new NativeTextDecoder('utf-8', STRICT);

  const fire = (socket: WebSocket, event: Event): void => {
    synthetic.add(event);
    call(dispatch, socket, event);
  };

  const message = (socket: WebSocket, state: SocketState, data: unknown): void => {
    const init = { __proto__: null, data, origin: state.origin } as MessageEventInit;
    fire(socket, new MessageEvent('message', init));
  };

  /** Binary data as the page asked for it (`binaryType`). */
  const asBinary = (state: SocketState, buffer: ArrayBuffer): unknown =>
    state.binaryType === 'blob' ? new NativeBlob([buffer]) : buffer;

  const deliver = (socket: WebSocket, state: SocketState, messages: string[]): void => {
    for (let i = 0; i < messages.length; i++) {
      // The guard hands back its messages in order: each in the kind it came in as (a
      // block's own ending takes the kind of the message before it).
      const binary = state.kinds[state.delivered] ?? state.kinds[state.delivered - 1];
      if (state.delivered < state.kinds.length) state.delivered++;
      const text = messages[i]!;
      const bytes = () => call<Uint8Array<ArrayBuffer>>(Encoder.encode, encoder, text).buffer;
      message(socket, state, binary ? asBinary(state, bytes()) : text);
    }
  };

  const fireClose = (socket: WebSocket, state: SocketState): void => {
    const init = state.close ?? { code: 1006, reason: '', wasClean: false };
    fire(socket, new CloseEvent('close', { __proto__: null, ...init } as CloseEventInit));
  };

  /**
   * Fail closed: the socket is closed and no later message reaches the page. `reason`
   * when a step in this world threw (the person is told here; a guard that failed in the
   * ISOLATED world was reported there).
   */
  const failClosed = (socket: WebSocket, state: SocketState, reason?: string): void => {
    if (state.phase === 'failed' || state.phase === 'closed') return;
    if (reason === 'decision') stats.decisionErrors++;
    else stats.guardFailures++;
    if (reason !== undefined) reportFailure?.('web-socket', reason);
    const closing = state.phase === 'closing';
    state.phase = 'failed';
    state.guard = undefined;
    // Already closed: the page still gets its close event. Otherwise the browser's own.
    if (closing) fireClose(socket, state);
    else call(nativeClose, socket);
  };

  const sinkFor = (socket: WebSocket, state: SocketState): SocketSink => ({
    deliver: (messages) => {
      if (state.phase === 'guarded' || state.phase === 'closing') {
        deliver(socket, state, messages);
      }
    },
    done: () => {
      if (state.phase !== 'closing') return;
      state.phase = 'closed';
      fireClose(socket, state);
    },
    fail: () => failClosed(socket, state),
  });

  const onMessage = (socket: WebSocket, state: SocketState, event: Event): void => {
    if (synthetic.has(event) || !(event instanceof MessageEvent)) return;
    if (state.phase !== 'undecided' && state.phase !== 'guarded') {
      call(stopImmediate, event);
      return;
    }
    let data: unknown;
    let text: string | undefined;
    try {
      data = call<unknown>(MessageOf.data, event);
      const binary = typeof data !== 'string';
      if (binary) {
        try {
          text = decodeText(strict, data as ArrayBuffer);
        } catch {
          // Not UTF-8: binary data, no answer text.
        }
      } else {
        text = data as string;
      }
      if (text !== undefined && state.phase === 'undecided') {
        const probe = { url: state.url, method: 'GET', contentType: '', head: text };
        // The decision runs with the built-ins of document_start (intrinsics.ts).
        const guard = pristine(() => createSocketGuard(probe, sinkFor(socket, state)));
        if (guard !== undefined) {
          state.guard = guard;
          state.origin = call<string>(MessageOf.origin, event);
          // A guard that failed at once (no channel) has already closed the socket.
          if (phaseOf(state) === 'undecided') state.phase = 'guarded';
          stats.wireGuarded++;
        }
      }
      if (phaseOf(state) !== 'guarded' || text === undefined) {
        // The browser's own message; a binary one in the page's type.
        if (binary && state.binaryType === 'blob') {
          call(stopImmediate, event);
          state.origin ||= call<string>(MessageOf.origin, event);
          message(socket, state, asBinary(state, data as ArrayBuffer));
        }
        return;
      }
      state.kinds[state.kinds.length] = binary;
    } catch {
      // The decision threw: fail closed.
      call(stopImmediate, event);
      failClosed(socket, state, 'decision');
      return;
    }
    call(stopImmediate, event);
    try {
      state.guard?.push(text);
    } catch {
      failClosed(socket, state, 'guard');
    }
  };

  const onClose = (socket: WebSocket, state: SocketState, event: Event): void => {
    if (synthetic.has(event) || state.phase !== 'guarded') return;
    call(stopImmediate, event);
    const { code, reason, wasClean } = event as CloseEvent;
    state.close = { code, reason, wasClean };
    state.phase = 'closing';
    const guard = state.guard;
    state.guard = undefined;
    try {
      guard?.end();
    } catch {
      failClosed(socket, state, 'guard');
    }
  };

  // The page's binaryType, per socket; the native one stays `arraybuffer` (see above).
  const binaryType = replaceAccessor(
    socketProto,
    'binaryType',
    target,
    (n) =>
      function (this: unknown) {
        return states.get(this as object)?.binaryType ?? call(n.get, this);
      },
    (n) =>
      function (this: unknown, value: unknown) {
        call(n.set!, this, value);
        const state = states.get(this as object);
        if (state === undefined) return;
        // The native setter validated it (an unknown value leaves the type as it was).
        state.binaryType = call<string>(n.get, this);
        call(n.set!, this, 'arraybuffer');
      },
  );

  replaceConstructor<typeof WebSocket>(target, 'WebSocket', target, (socket) => {
    const state: SocketState = {
      url: urlGetter ? call<string>(urlGetter, socket) : '',
      phase: 'undecided',
      guard: undefined,
      origin: '',
      close: undefined,
      binaryType: call<string>(binaryType.get, socket),
      kinds: [],
      delivered: 0,
    };
    call(binaryType.set!, socket, 'arraybuffer');
    states.set(socket, state);
    const listen = (type: string, handle: (event: Event) => void) =>
      call(addListener, socket, type, handle, true);
    listen('message', (event) => onMessage(socket, state, event));
    listen('close', (event) => onClose(socket, state, event));
  });
  INSTALLED.add(target.WebSocket);
}
