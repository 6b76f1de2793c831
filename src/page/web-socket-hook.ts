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
 * (`stopImmediatePropagation`) and the guard's output (the same messages, in order, with
 * only their text changed; none while text is held) is dispatched instead as new
 * `MessageEvent`s. On `close` the guard releases what it held, then the page gets the
 * close event. Binary messages pass untouched (no socket format carries answer text in
 * binary frames); they are not reordered behind held text messages.
 *
 * Failures: an exception while deciding leaves the message and socket native; a guard
 * that throws fails closed: the socket is closed and no later message reaches the page.
 *
 * No extension APIs here: this code runs in the page's own world.
 */

import { newFetchHookStats } from './fetch-hook.ts';
import { replaceConstructor } from './native-patch.ts';
import type { PageHookOptions, SocketMessageGuard } from './page-hook-options.ts';

export type WebSocketHookOptions = Pick<PageHookOptions, 'createSocketGuard' | 'stats'>;

export interface WebSocketHookTarget {
  WebSocket: typeof WebSocket;
  MessageEvent: typeof MessageEvent;
  CloseEvent: typeof CloseEvent;
  Event: typeof Event;
  EventTarget: typeof EventTarget;
  Function: FunctionConstructor;
}

/** `closed`: the guarded socket closed and the guard released its last messages. */
type Phase = 'undecided' | 'guarded' | 'failed' | 'closed';

interface SocketState {
  url: string;
  phase: Phase;
  guard: SocketMessageGuard | undefined;
}

const INSTALLED = new WeakSet<object>();

export function installWebSocketHook(
  target: WebSocketHookTarget,
  options: WebSocketHookOptions = {},
): void {
  const { createSocketGuard } = options;
  const stats = options.stats ?? newFetchHookStats();
  if (!createSocketGuard) return;
  if (typeof target.WebSocket !== 'function' || INSTALLED.has(target.WebSocket)) return;

  const addListener = target.EventTarget.prototype.addEventListener;
  const dispatch = target.EventTarget.prototype.dispatchEvent;
  const stopImmediate = target.Event.prototype.stopImmediatePropagation;
  const nativeClose = target.WebSocket.prototype.close;
  const synthetic = new WeakSet<Event>();

  const fire = (socket: WebSocket, event: Event): void => {
    synthetic.add(event);
    Reflect.apply(dispatch, socket, [event]);
  };

  const deliver = (socket: WebSocket, messages: string[], origin: string): void => {
    for (const data of messages) {
      fire(socket, new target.MessageEvent('message', { data, origin }));
    }
  };

  const failClosed = (socket: WebSocket, state: SocketState): void => {
    if (state.phase === 'failed') return;
    stats.guardFailures++;
    state.phase = 'failed';
    state.guard = undefined;
    // The page then gets the browser's own close event.
    Reflect.apply(nativeClose, socket, []);
  };

  const onMessage = (socket: WebSocket, state: SocketState, event: Event): void => {
    if (synthetic.has(event) || !(event instanceof target.MessageEvent)) return;
    if (state.phase === 'failed' || state.phase === 'closed') {
      Reflect.apply(stopImmediate, event, []);
      return;
    }
    if (typeof event.data !== 'string') return;
    if (state.phase === 'undecided') {
      try {
        const guard = createSocketGuard({
          url: state.url,
          method: 'GET',
          contentType: '',
          head: event.data,
        });
        if (guard === undefined) return;
        state.guard = guard;
        state.phase = 'guarded';
        stats.wireGuarded++;
      } catch {
        stats.decisionErrors++;
        return;
      }
    }
    Reflect.apply(stopImmediate, event, []);
    let out: string[];
    try {
      out = state.guard?.push(event.data) ?? [];
    } catch {
      failClosed(socket, state);
      return;
    }
    deliver(socket, out, event.origin);
  };

  const onClose = (socket: WebSocket, state: SocketState, event: Event): void => {
    if (synthetic.has(event) || state.phase !== 'guarded') return;
    Reflect.apply(stopImmediate, event, []);
    const guard = state.guard;
    state.guard = undefined;
    state.phase = 'closed';
    try {
      deliver(socket, guard?.end() ?? [], new URL(state.url).origin);
    } catch {
      stats.guardFailures++;
    }
    const { code, reason, wasClean } = event as CloseEvent;
    fire(socket, new target.CloseEvent('close', { code, reason, wasClean }));
  };

  replaceConstructor<typeof WebSocket>(target, 'WebSocket', target, (socket) => {
    const state: SocketState = { url: socket.url, phase: 'undecided', guard: undefined };
    const listen = (type: string, handle: (event: Event) => void) =>
      Reflect.apply(addListener, socket, [type, handle, true]);
    listen('message', (event) => onMessage(socket, state, event));
    listen('close', (event) => onClose(socket, state, event));
  });
  INSTALLED.add(target.WebSocket);
}
