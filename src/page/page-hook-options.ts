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

/**
 * Guards one socket's text messages with state kept across messages (Open WebUI's
 * `OpenWebUiSocketGuard` has this shape): `push` returns the messages the page may
 * receive now, in order (none while text is held, several when a hold is released);
 * `end` is called when the socket closes. Throwing means the guard failed.
 */
export interface SocketMessageGuard {
  push(message: string): string[];
  end(): string[];
}

export interface PageHookOptions extends FetchHookOptions {
  /**
   * A guard for a WebSocket whose URL or text message (`probe.head`) a socket format
   * recognises, or undefined when none does. Socket formats are message-oriented (one
   * socket message is one frame), so they do not fit the byte guard of the other hooks.
   */
  createSocketGuard?: (probe: WireProbe) => SocketMessageGuard | undefined;
}
