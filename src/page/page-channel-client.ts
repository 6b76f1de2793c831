/**
 * The MAIN world's end of the private channel to the ISOLATED bridge
 * (src/content/page-channel-handshake.ts hands the port over). Sends typed,
 * versioned messages (src/protocol/page-channel.ts) and takes the bridge's
 * `config`.
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
import { parseBridgeMessage } from './parse-bridge-message.ts';

/** What the client needs of a MessagePort. */
export interface ChannelPort {
  postMessage(message: unknown): void;
  onmessage: ((event: MessageEvent) => void) | null;
}

export interface PageChannelClient {
  /** True once a port is attached (the handshake succeeded). */
  readonly connected: boolean;
  /** Sends a message; dropped when no port is attached (the guard keeps running). */
  send(message: PageToBridge): void;
  /** Attaches the port the handshake produced; later calls are ignored. */
  attach(port: ChannelPort): void;
}

export function createPageChannelClient(
  onMessage: (message: BridgeToPage) => void,
): PageChannelClient {
  let post: ((message: unknown) => void) | undefined;
  return {
    get connected() {
      return post !== undefined;
    },
    send(message) {
      if (post === undefined) return;
      try {
        post(message);
      } catch {
        // A message that cannot be cloned is dropped; the stream itself is unaffected.
      }
    },
    attach(port) {
      if (post !== undefined) return;
      const nativePost = port.postMessage;
      post = (message) => Reflect.apply(nativePost, port, [message]);
      // Setting onmessage also starts the port (HTML: implicit start()).
      port.onmessage = (event: MessageEvent) => {
        const message = parseBridgeMessage(event.data);
        if (message !== undefined) onMessage(message);
      };
    },
  };
}
