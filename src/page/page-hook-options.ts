/**
 * The options every MAIN-world hook takes: one object, shared by the fetch, XHR,
 * EventSource and WebSocket hooks, so that whatever wraps `createWireGuard` (the
 * bridge's event reporting) applies to all of them, and one set of counters
 * (`FetchHookStats`) counts what all of them did.
 *
 * MAIN world: no extension APIs.
 */

import type { WireProbe } from '../core/wire/wire-event.ts';
import type { FetchHookOptions } from './fetch-hook.ts';
import type { SocketSink } from './remote-guard.ts';

/**
 * Guards one socket's text messages with state kept across messages (remote-guard.ts
 * `RemoteSocket`): `push` takes each text message, `end` is called when the socket
 * closes; what the page may receive goes to the socket's sink, in order (none while
 * text is held, several when a hold is released). Throwing means the guard failed.
 */
export interface SocketMessageGuard {
  push(message: string): void;
  end(): void;
}

export interface PageHookOptions extends FetchHookOptions {
  /**
   * A guard for a WebSocket whose URL or text message (`probe.head`) a socket format
   * recognises, or undefined when none does. Socket formats are message-oriented (one
   * socket message is one frame), so they do not fit the byte guard of the other hooks.
   */
  createSocketGuard?: (probe: WireProbe, sink: SocketSink) => SocketMessageGuard | undefined;
}
