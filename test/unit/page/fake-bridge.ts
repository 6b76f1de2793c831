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

export function createFakeBridge(secret: string): FakeBridge {
  const redact = (text: string) => text.split(secret).join('[redacted]');
  // A plain table, not a Map: the faults a test injects stand for page code, which cannot
  // reach the ISOLATED world this stands for.
  const bodies: Record<string, string> = Object.create(null) as Record<string, string>;
  const sent: PageToBridge[] = [];
  let next = 0;
  const answer = (message: BridgeToPage) => queueMicrotask(() => remote.receive(message));
  const handle = (message: PageToBridge) => {
    switch (message.type) {
      case 'guard-open':
        bodies[message.streamId] = '';
        return;
      case 'guard-chunk': {
        const { streamId, text, last } = message;
        bodies[streamId] = (bodies[streamId] ?? '') + text;
        answer({ v: 1, type: 'guard-output', streamId, text: '', last });
        return;
      }
      case 'guard-message': {
        const { streamId } = message;
        answer({ v: 1, type: 'guard-messages', streamId, messages: [redact(message.message)] });
        return;
      }
      case 'guard-close': {
        const { streamId } = message;
        const text = redact(bodies[streamId] ?? '');
        answer({ v: 1, type: 'guard-output', streamId, text, last: true });
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
