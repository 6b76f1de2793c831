/**
 * The `WebSocket` hook of the MAIN world: incoming text messages of a socket a socket
 * format recognises are guarded before the page's `onmessage` / `message` listeners see
 * them. Open WebUI streams its answers as Socket.IO events on a WebSocket
 * (WIRE-FORMATS.md §6.1; `OpenWebUiSocketGuard`). ChatGPT's WebSocket hand-off (§1.7,
 * `encoded_item` SSE strings) has no adapter yet, so those sockets pass untouched.
 *
 * Design: the page keeps the native WebSocket (send, close, binaryType, protocols are
 * the browser's). The constructor registers the hook's capturing `message` and `close`
 * listeners before page code can register any, so they run first. Until a socket is
 * recognised, each text message is offered to `createSocketGuard` (its URL, and the
 * message as the head: a Socket.IO handshake precedes the first chat event) and passes
 * through untouched, at native speed. Once recognised, every text message is stopped
 * (`stopImmediatePropagation`) and handed to the guard (which runs in the ISOLATED
 * world: remote-guard.ts); its output (the same messages, in order, with only their
 * text changed; none while text is held) reaches the page through the socket's sink as
 * new `MessageEvent`s. On `close` the guard releases what it held, then the page gets
 * the close event. Binary messages pass untouched (no socket format carries answer text
 * in binary frames); they are not reordered behind held text messages.
 *
 * Failures: an exception while deciding leaves the message and socket native; a guard
 * that fails fails closed: the socket is closed and no later message reaches the page.
 *
 * No extension APIs here: this code runs in the page's own world.
 */

import { newFetchHookStats } from './fetch-hook.ts';
import { call, getOwnPropertyDescriptor, MessageOf, pristine, weakSet } from './intrinsics.ts';
import { replaceConstructor } from './native-patch.ts';
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
}

const INSTALLED = weakSet<object>();

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

  const fire = (socket: WebSocket, event: Event): void => {
    synthetic.add(event);
    call(dispatch, socket, event);
  };

  const deliver = (socket: WebSocket, messages: string[], origin: string): void => {
    for (let i = 0; i < messages.length; i++) {
      const init = { __proto__: null, data: messages[i], origin } as MessageEventInit;
      fire(socket, new MessageEvent('message', init));
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
        deliver(socket, messages, state.origin);
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
    try {
      data = call<unknown>(MessageOf.data, event);
      if (typeof data !== 'string') return;
      if (state.phase === 'undecided') {
        const probe = { url: state.url, method: 'GET', contentType: '', head: data };
        // The decision runs with the built-ins of document_start (intrinsics.ts).
        const guard = pristine(() => createSocketGuard(probe, sinkFor(socket, state)));
        if (guard === undefined) return;
        state.guard = guard;
        state.origin = call<string>(MessageOf.origin, event);
        // A guard that failed at once (no channel) has already closed the socket.
        if (phaseOf(state) === 'undecided') state.phase = 'guarded';
        stats.wireGuarded++;
      }
    } catch {
      // The decision threw: fail closed.
      call(stopImmediate, event);
      failClosed(socket, state, 'decision');
      return;
    }
    call(stopImmediate, event);
    try {
      state.guard?.push(data);
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

  replaceConstructor<typeof WebSocket>(target, 'WebSocket', target, (socket) => {
    const state: SocketState = {
      url: urlGetter ? call<string>(urlGetter, socket) : '',
      phase: 'undecided',
      guard: undefined,
      origin: '',
      close: undefined,
    };
    const listen = (type: string, handle: (event: Event) => void) =>
      call(addListener, socket, type, handle, true);
    listen('message', (event) => onMessage(socket, state, event));
    listen('close', (event) => onClose(socket, state, event));
  });
  INSTALLED.add(target.WebSocket);
}
