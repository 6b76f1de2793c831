/**
 * The MAIN world's end of the private channel to the ISOLATED bridge
 * (src/content/page-channel-handshake.ts hands the port over). Sends typed,
 * versioned messages (src/protocol/page-channel.ts) and hands the bridge's
 * validated answers on (remote-guard.ts).
 *
 * The page shares this JavaScript world, so `postMessage` is captured from the
 * port when the client is made (document_start, before any page script): a page
 * that later patches `MessagePort.prototype.postMessage` does not see what we
 * send. (A malicious site itself is out of scope, DESIGN.md §1; this only keeps
 * ordinary page code from stumbling into the channel.)
 *
 * No extension APIs here.
 */
import type { BridgeToPage, PageToBridge } from '../protocol/page-channel.ts';
import { apply, BytesOf, call, getOwnPropertyDescriptor } from './intrinsics.ts';
import { parseBridgeMessage } from './parse-bridge-message.ts';

/** MessageEvent's `data` getter as it was at document_start. */
const eventData = getOwnPropertyDescriptor(MessageEvent.prototype, 'data')!.get!;

/** What the client needs of a MessagePort. */
export interface ChannelPort {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent) => void) | null;
}

export interface PageChannelClient {
  /** True once a port is attached (the handshake succeeded). */
  readonly connected: boolean;
  /** Sends a message; false when it could not be sent (no port yet, or not cloneable). */
  send(message: PageToBridge): boolean;
  /** Attaches the port the handshake produced; later calls are ignored. */
  attach(port: ChannelPort): void;
}

export function createPageChannelClient(
  onMessage: (message: BridgeToPage) => void,
): PageChannelClient {
  let post: ((message: unknown, transfer?: Transferable[]) => void) | undefined;
  return {
    get connected() {
      return post !== undefined;
    },
    send(message) {
      if (post === undefined) return false;
      try {
        // A body's bytes move to the bridge rather than being copied (issue 19 §5):
        // remote-guard.ts posts each piece in a buffer of its own.
        if (message.type === 'guard-chunk') {
          try {
            post(message, [call<ArrayBuffer>(BytesOf.buffer, message.bytes)]);
            return true;
          } catch {
            // Not transferable: sent as a copy.
          }
        }
        post(message);
        return true;
      } catch {
        // Not sent: the caller fails its stream or request closed.
        return false;
      }
    },
    attach(port) {
      if (post !== undefined) return;
      const nativePost = port.postMessage;
      post = (message, transfer) =>
        apply(nativePost, port, transfer === undefined ? [message] : [message, transfer]);
      // Setting onmessage also starts the port (HTML: implicit start()).
      port.onmessage = (event: MessageEvent) => {
        const message = parseBridgeMessage(call(eventData, event));
        if (message !== undefined) onMessage(message);
      };
    },
  };
}
