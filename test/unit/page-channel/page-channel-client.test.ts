/**
 * The MAIN world's end of the channel over a real MessageChannel (Node's), and
 * its check of the bridge's messages: a malformed answer never reaches a hook.
 */
import { describe, expect, it } from 'vitest';
import { createPageChannelClient } from '../../../src/page/page-channel-client.ts';
import { parseBridgeMessage } from '../../../src/page/parse-bridge-message.ts';
import type { BridgeToPage } from '../../../src/protocol/page-channel.ts';

function nextMessage(port: MessagePort): Promise<unknown> {
  return new Promise((resolve) => {
    port.onmessage = (event) => resolve(event.data);
  });
}

describe('createPageChannelClient', () => {
  it('sends nothing until a port is attached (and says so), then sends to the bridge', async () => {
    const client = createPageChannelClient(() => undefined);
    expect(client.connected).toBe(false);
    expect(client.send({ v: 1, type: 'hello', hooks: ['fetch'] })).toBe(false);
    const { port1, port2 } = new MessageChannel();
    client.attach(port1 as unknown as MessagePort);
    expect(client.connected).toBe(true);
    const arrived = nextMessage(port2 as unknown as MessagePort);
    const message = { v: 1, type: 'request-answered', requestId: 'r', status: 200 } as const;
    expect(client.send(message)).toBe(true);
    expect(await arrived).toEqual(message);
    port1.close();
  });

  it("moves a body's bytes to the bridge (no copy): the sender's buffer is detached", async () => {
    const client = createPageChannelClient(() => undefined);
    const { port1, port2 } = new MessageChannel();
    client.attach(port1 as unknown as MessagePort);
    const arrived = nextMessage(port2 as unknown as MessagePort);
    const bytes = new Uint8Array([104, 105]);
    expect(client.send({ v: 1, type: 'guard-chunk', streamId: 'a', bytes, last: true })).toBe(true);
    expect(bytes.buffer.byteLength).toBe(0);
    expect(await arrived).toEqual({
      v: 1,
      type: 'guard-chunk',
      streamId: 'a',
      bytes: new Uint8Array([104, 105]),
      last: true,
    });
    port1.close();
  });

  it('passes on valid bridge messages and drops malformed ones', async () => {
    const received: BridgeToPage[] = [];
    const client = createPageChannelClient((m) => received.push(m));
    const { port1, port2 } = new MessageChannel();
    client.attach(port1 as unknown as MessagePort);
    const bytes = new Uint8Array([120]);
    port2.postMessage({ v: 1, type: 'guard-output', streamId: 's', bytes: 42 });
    port2.postMessage({ v: 2, type: 'guard-output', streamId: 's', bytes });
    port2.postMessage('guard-output');
    port2.postMessage({ v: 1, type: 'guard-output', streamId: 's', bytes: 'x' });
    port2.postMessage({ v: 1, type: 'guard-output', streamId: 's', bytes: [120] });
    port2.postMessage({ v: 1, type: 'guard-output', streamId: 's', bytes });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received).toEqual([{ v: 1, type: 'guard-output', streamId: 's', bytes }]);
    port1.close();
  });

  it('uses postMessage as captured at attach time, not a later replacement', async () => {
    const { port1, port2 } = new MessageChannel();
    const client = createPageChannelClient(() => undefined);
    client.attach(port1 as unknown as MessagePort);
    const seen: unknown[] = [];
    (port1 as unknown as { postMessage: (m: unknown) => void }).postMessage = (m) => seen.push(m);
    const arrived = nextMessage(port2 as unknown as MessagePort);
    client.send({ v: 1, type: 'guard-close', streamId: 'a' });
    expect(await arrived).toEqual({ v: 1, type: 'guard-close', streamId: 'a' });
    expect(seen).toEqual([]);
    port1.close();
  });
});

describe('parseBridgeMessage', () => {
  it('accepts each message of the contract, rebuilt with its known fields only', () => {
    const valid: BridgeToPage[] = [
      { v: 1, type: 'guard-output', streamId: 's', bytes: new Uint8Array([97]) },
      { v: 1, type: 'guard-messages', streamId: 's', messages: ['a', 'b'] },
      { v: 1, type: 'guard-done', streamId: 's' },
      { v: 1, type: 'guard-failed', streamId: 's' },
      { v: 1, type: 'request-verdict', requestId: 'r', send: true, body: '{}' },
      { v: 1, type: 'request-verdict', requestId: 'r', send: false },
    ];
    for (const message of valid) {
      expect(parseBridgeMessage({ ...message, extra: 'x' })).toEqual(message);
    }
  });

  it('drops anything else: wrong version, unknown type, wrong field types', () => {
    const invalid: unknown[] = [
      null,
      'guard-done',
      [],
      { v: 2, type: 'guard-done', streamId: 's' },
      { v: 1, type: 'config', config: {} },
      { v: 1, type: 'guard-done' },
      { v: 1, type: 'guard-messages', streamId: 's', messages: [1] },
      { v: 1, type: 'request-verdict', requestId: 'r', send: true },
      { v: 1, type: 'request-verdict', requestId: 'r', send: 'yes', body: '' },
      { v: 1, type: 'request-verdict', send: false },
    ];
    for (const message of invalid) expect(parseBridgeMessage(message)).toBeUndefined();
  });

  it('never takes an inherited field for a missing one', () => {
    const forged = Object.create({ streamId: 's' }) as Record<string, unknown>;
    forged.v = 1;
    forged.type = 'guard-done';
    expect(parseBridgeMessage(forged)).toBeUndefined();
  });
});
