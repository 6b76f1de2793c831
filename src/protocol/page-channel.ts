/**
 * Messages between the MAIN world (src/page) and the ISOLATED bridge
 * (src/content) over their private MessageChannel. Typed, directional and
 * versioned: a message with another `v` or an unknown `type` is dropped.
 *
 * The MAIN world only intercepts and moves text: it recognises a chat
 * response (wire-recognisers.ts) or request, hands its text to the bridge and
 * gives the page what comes back. The guard, the rules and everything it
 * reports live in the ISOLATED world (src/content/guard-host.ts), out of
 * reach of page scripts that share the MAIN world's globals, and the
 * MAIN-world script stays small (issue 4: at most 40 KB minified).
 *
 * The channel is set up once at document_start, before any page script runs
 * (see src/content/page-channel-handshake.ts); page scripts never see the port.
 * Still, the bridge trusts nothing it receives: every field is re-validated.
 */
import type { OutgoingRequest } from '../core/wire/requests/request-text.ts';
import type { WireProbe } from '../core/wire/wire-event.ts';

export const PAGE_CHANNEL_VERSION = 1;

/** What the MAIN world hands over to be guarded (one response body, or one socket). */
export type GuardKind = 'wire' | 'plain-text' | 'socket';

export type PageToBridge =
  /** The MAIN world is up; which hooks it installed. */
  | { v: 1; type: 'hello'; hooks: string[] }
  /**
   * A response body (or socket) to guard: `recogniser` is the id of the
   * wire-recognisers.ts entry that claimed `probe` ('' for plain text). The
   * bridge checks that the recogniser claims the probe before it trusts it.
   */
  | {
      v: 1;
      type: 'guard-open';
      streamId: string;
      kind: GuardKind;
      recogniser: string;
      probe: WireProbe;
    }
  /**
   * The next bytes of a body (`wire`, `plain-text`), as the network gave them: the
   * bridge decodes them (UTF-8, streaming, byte-order mark kept; a byte-level format
   * as a byte string) and, when the guard changed nothing, hands the very bytes back
   * (issue 19 §5: no decode and re-encode in the MAIN world, no text copied back). A
   * long network chunk comes in several pieces (each guarded in its own task); `last`
   * marks the piece that ends the network chunk.
   */
  | { v: 1; type: 'guard-chunk'; streamId: string; bytes: Uint8Array; last: boolean }
  /** The next text message of a socket. */
  | { v: 1; type: 'guard-message'; streamId: string; message: string }
  /** The body (socket) ended: the guard releases or blocks what it holds. */
  | { v: 1; type: 'guard-close'; streamId: string }
  /** The page cancelled the body or the network failed: drop the stream. */
  | { v: 1; type: 'guard-cancel'; streamId: string }
  /**
   * Issue 18 §4: a hook stopped a response itself (its decision or decoding threw, or a
   * synchronous XMLHttpRequest asked for a chat answer): the page got nothing of it. The
   * bridge reports it as a failure (notice, audit record). `hook` is the hook's name
   * (`fetch`, `xhr`, `event-source`, `web-socket`), `reason` a short content-free code.
   */
  | { v: 1; type: 'hook-failed'; hook: string; reason: string }
  /**
   * Issue 5: a request a request adapter recognised, with the body the page
   * would send. The bridge recognises the request again itself. Answered by
   * `request-verdict` with the same id, after as long as it takes (the person
   * may be asked to confirm).
   */
  | { v: 1; type: 'request-guard'; requestId: string; request: OutgoingRequest; body: string }
  /**
   * Issue 20: the HTTP status the server answered the sent request `requestId` with
   * (its `request-verdict` let it go). Status only, never content; the bridge learns
   * only from a request it rewrote itself (content/rewrite-refusals.ts).
   */
  | { v: 1; type: 'request-answered'; requestId: string; status: number };

export type BridgeToPage =
  /**
   * Guarded bytes for the page, in order: the input's own bytes when the guard
   * released exactly the text they hold, else the guarded text encoded (UTF-8, or
   * the byte string's bytes). The MAIN world hands the page one chunk per network chunk (the page renders as
   * often as without us). At most one per network chunk (after its `last` piece), none
   * while the guard holds everything.
   */
  | { v: 1; type: 'guard-output'; streamId: string; bytes: Uint8Array }
  /** Guarded socket messages for the page, in order (none while text is held). */
  | { v: 1; type: 'guard-messages'; streamId: string; messages: string[] }
  /** The guarded stream is complete (everything was sent before this). */
  | { v: 1; type: 'guard-done'; streamId: string }
  /** The guard failed or refused: fail closed, nothing more reaches the page. */
  | { v: 1; type: 'guard-failed'; streamId: string }
  /** Issue 5: the body to send instead of the page's, or a refusal. */
  | { v: 1; type: 'request-verdict'; requestId: string; send: true; body: string }
  | { v: 1; type: 'request-verdict'; requestId: string; send: false }
  /**
   * The bridge's first message: the chat sites' URL routes as data, regular-expression
   * sources by name (src/core/wire/site-routes.ts), so the page's code holds none
   * (src/page/page-site-routes.ts).
   */
  | { v: 1; type: 'site-routes'; routes: Record<string, string> };

/**
 * The handshake that hands one MessagePort between the worlds at document_start
 * (src/content/page-channel-handshake.ts): each side dispatches a cancelable
 * MessageEvent carrying a port under its own name and listens for the other's.
 * The names are not secret: what keeps the channel private is that both sides
 * stop listening before any page script can run.
 */
export const HANDSHAKE_EVENT = {
  /** Dispatched by the MAIN world (src/page). */
  main: 'csg-page-channel-main',
  /** Dispatched by the ISOLATED bridge (src/content). */
  bridge: 'csg-page-channel-bridge',
} as const;
