/**
 * The send side of a chat WebSocket (issue 20 §2): Microsoft Copilot sends the
 * person's text as a client frame, `{"event":"send",…,"content":[{"type":"text",
 * "text":…}]}` (WIRE-FORMATS-2.md §4.2), so outgoing DLP must rewrite that frame
 * before it leaves, as it rewrites an HTTP send. Each frame the page sends is
 * offered to the send hook (outgoing-hook.ts, through `prepareOutgoing`) as a
 * request to the socket's URL with the method `SOCKET_SEND` (no fetch or XHR
 * uses it) and the frame as its body: a request recogniser claims only a chat
 * socket's frames (request-recognisers.ts `copilotRequest`), which then go to the
 * ISOLATED bridge (request-host.ts: paste envelopes, DLP, the person's
 * confirmation); every other frame is sent at once, untouched.
 *
 * `WebSocket.send` returns at once while the verdict takes a round trip (or as long
 * as the person takes to confirm), so a claimed frame is held, and every later
 * frame of that socket waits behind it, whatever it is: frames leave in the order
 * the page sent them, and a later frame never overtakes a held one (`sendInOrder`).
 * While the site routes have not arrived (page-site-routes.ts), the send hook holds
 * every frame until they have.
 *
 * Fail closed: a frame the bridge refuses (blocked, cancelled, the guard failed) is
 * not sent; the bridge tells the person (request-host.ts reports it like a guarded
 * send). A binary frame of a claimed socket is read as UTF-8 like a binary HTTP
 * body, and leaves binary. The page's `close()` is the browser's own and does not
 * wait: a frame still held when the page closes its socket is never sent (the
 * browser drops a send on a closing socket), so nothing leaves unguarded; the page
 * script's size budget (test/e2e/build-output.test.ts) is why close is not queued.
 *
 * No extension APIs here.
 */
import { SOCKET_SEND } from '../core/wire/requests/request-recognisers.ts';
import type { FetchHookOptions } from './fetch-hook.ts';

/** A socket's frames in flight: the last one's settling, while any is held. */
export interface SendQueue {
  tail?: Promise<void> | undefined;
}

/**
 * Sends `data`, a frame the page sends on the socket (`queue.url`), with `send`: at once
 * when no frame of the socket is held and the send hook does not claim it; otherwise
 * once every earlier frame of the socket has left (or was refused), as decided.
 */
export function sendInOrder(
  queue: SendQueue & { url: string },
  prepare: NonNullable<FetchHookOptions['prepareOutgoing']>,
  data: unknown,
  send: (frame: unknown) => void,
): void {
  const held = prepare(queue.url, { method: SOCKET_SEND, body: data as BodyInit });
  const before = queue.tail;
  if (held === undefined && before === undefined) return send(data);
  const settle = async () => {
    await before;
    try {
      // A new Request holding the guarded copy; the page's own arguments (`own`) when the
      // site routes came and no recogniser claims the frame; no decision needed: `[0, 1]`.
      const [copy, own] = (await (held ?? [0, 1])) as [Request, unknown];
      send(own ? data : await (typeof data === 'string' ? copy.text() : copy.arrayBuffer()));
    } catch {
      // Refused: not sent (the bridge told the person).
    }
    if (queue.tail === tail) queue.tail = undefined;
  };
  const tail = (queue.tail = settle());
}
