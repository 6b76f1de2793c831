/**
 * The MAIN world's remote guards (src/page/remote-guard.ts) against a stand-in for the
 * ISOLATED bridge: a body is held whole and released at its end with every occurrence of
 * `secret` replaced by `[redacted]`; a socket message is answered at once, the same way.
 * The stand-in answers from the test's own realm after a microtask, as the port would; it
 * is not the engine (the hooks' tests with the engine use test/support/local-guards.ts):
 * what it lets a test check is the MAIN world's own steps (decisions, decoding, the port),
 * for instance with a page's built-ins broken.
 */
import type { WireRecogniser } from '../../../src/core/wire/wire-event.ts';
import { createRemoteGuards, type RemoteGuards } from '../../../src/page/remote-guard.ts';
import type { BridgeToPage, PageToBridge } from '../../../src/protocol/page-channel.ts';

export interface FakeBridge {
  remote: RemoteGuards;
  /** Every message the MAIN world sent, in order. */
  sent: PageToBridge[];
}

/** The ISOLATED world's own built-ins: the faults a test injects cannot reach them. */
const { apply } = Reflect;
const Decoder = TextDecoder;
const Encoder = TextEncoder;
const decode = TextDecoder.prototype.decode;
const encode = TextEncoder.prototype.encode;

export function createFakeBridge(secret: string): FakeBridge {
  const redact = (text: string) => text.split(secret).join('[redacted]');
  // A plain table, not a Map: the faults a test injects stand for page code, which cannot
  // reach the ISOLATED world this stands for.
  const raw: Record<string, Uint8Array[]> = Object.create(null) as Record<string, Uint8Array[]>;
  const sent: PageToBridge[] = [];
  let next = 0;
  const answer = (message: BridgeToPage) => queueMicrotask(() => remote.receive(message));
  const handle = (message: PageToBridge) => {
    switch (message.type) {
      case 'guard-open':
        raw[message.streamId] = [];
        return;
      case 'guard-chunk':
        raw[message.streamId]?.push(message.bytes);
        return;
      case 'guard-message': {
        const { streamId } = message;
        answer({ v: 1, type: 'guard-messages', streamId, messages: [redact(message.message)] });
        return;
      }
      case 'guard-close': {
        const { streamId } = message;
        // The body's own bytes when there is nothing to redact (as the bridge hands them back).
        const bytes = Buffer.concat(raw[streamId] ?? []);
        const text = apply(decode, new Decoder(), [bytes]) as string;
        const out =
          redact(text) !== text
            ? (apply(encode, new Encoder(), [redact(text)]) as Uint8Array)
            : new Uint8Array(bytes);
        if (out.length > 0) answer({ v: 1, type: 'guard-output', streamId, bytes: out });
        answer({ v: 1, type: 'guard-done', streamId });
        return;
      }
      default:
        return;
    }
  };
  const remote = createRemoteGuards({
    newId: () => `s${++next}`,
    send: (message) => {
      sent.push(message);
      handle(message);
      return true;
    },
  });
  return { remote, sent };
}

/** The options of main-world.ts with the fake bridge's guards. */
export function bridgedOptions(
  bridge: FakeBridge,
  detect: (probe: Parameters<WireRecogniser['detect']>[0]) => WireRecogniser | undefined,
) {
  return {
    detectAdapter: detect,
    createWireGuard: (recogniser: WireRecogniser, probe: Parameters<WireRecogniser['detect']>[0]) =>
      bridge.remote.wire(recogniser, probe),
  };
}
