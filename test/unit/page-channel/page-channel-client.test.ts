/**
 * The MAIN world's end of the channel over a real MessageChannel (Node's), and
 * its check of the bridge's messages: a malformed config never reaches the guard.
 */
import { describe, expect, it } from 'vitest';
import { createPageChannelClient } from '../../../src/page/page-channel-client.ts';
import { parseBridgeMessage, parsePageConfig } from '../../../src/page/parse-bridge-message.ts';
import type { BridgeToPage } from '../../../src/protocol/page-channel.ts';
import { sampleConfig } from './sample-page-config.ts';

function nextMessage(port: MessagePort): Promise<unknown> {
  return new Promise((resolve) => {
    port.onmessage = (event) => resolve(event.data);
  });
}

describe('createPageChannelClient', () => {
  it('drops messages until a port is attached, then sends them to the bridge', async () => {
    const received: BridgeToPage[] = [];
    const client = createPageChannelClient((m) => received.push(m));
    expect(client.connected).toBe(false);
    client.send({ v: 1, type: 'hello', hooks: ['fetch'] });
    const { port1, port2 } = new MessageChannel();
    client.attach(port1 as unknown as MessagePort);
    expect(client.connected).toBe(true);
    const arrived = nextMessage(port2 as unknown as MessagePort);
    client.send({ v: 1, type: 'holding', streamId: 'a', holding: true });
    expect(await arrived).toEqual({ v: 1, type: 'holding', streamId: 'a', holding: true });
    port1.close();
  });

  it('passes on a valid config and drops malformed bridge messages', async () => {
    const received: BridgeToPage[] = [];
    const client = createPageChannelClient((m) => received.push(m));
    const { port1, port2 } = new MessageChannel();
    client.attach(port1 as unknown as MessagePort);
    port2.postMessage({
      v: 1,
      type: 'config',
      config: { ...sampleConfig, incoming: { secret: 'off' } },
    });
    port2.postMessage({ v: 2, type: 'config', config: sampleConfig });
    port2.postMessage('config');
    port2.postMessage({ v: 1, type: 'config', config: sampleConfig });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received).toEqual([{ v: 1, type: 'config', config: sampleConfig }]);
    port1.close();
  });

  it('uses postMessage as captured at attach time, not a later replacement', async () => {
    const { port1, port2 } = new MessageChannel();
    const client = createPageChannelClient(() => undefined);
    client.attach(port1 as unknown as MessagePort);
    const seen: unknown[] = [];
    (port1 as unknown as { postMessage: (m: unknown) => void }).postMessage = (m) => seen.push(m);
    const arrived = nextMessage(port2 as unknown as MessagePort);
    client.send({ v: 1, type: 'stream-end', streamId: 'a', outcome: 'complete' });
    expect(await arrived).toEqual({ v: 1, type: 'stream-end', streamId: 'a', outcome: 'complete' });
    expect(seen).toEqual([]);
    port1.close();
  });
});

/** The outer shape of PageConfig.compiled; the packs' insides are loadCompiledPack's to check. */
const outerCompiled = {
  pack: { format: 'csg-compiled-pack' },
  labels: { name: 'labels', version: '1', minProse: 8, rules: { format: 'csg-compiled-pack' } },
};

describe('parsePageConfig / parseBridgeMessage', () => {
  it('keeps the compiled pack the background sent, outer shape checked', () => {
    const config = { ...sampleConfig, compiled: outerCompiled };
    const parsed = parsePageConfig(config);
    expect(parsed).toEqual(config);
    expect(parseBridgeMessage({ v: 1, type: 'config', config })).toEqual({
      v: 1,
      type: 'config',
      config,
    });
  });

  it('accepts a complete config and copies it', () => {
    const parsed = parsePageConfig(sampleConfig);
    expect(parsed).toEqual(sampleConfig);
    expect(parsed?.packs).not.toBe(sampleConfig.packs);
  });

  it.each<[string, unknown]>([
    [
      'a missing kind',
      { ...sampleConfig, incoming: { ...sampleConfig.incoming, secret: undefined } },
    ],
    [
      'an unknown action',
      { ...sampleConfig, incoming: { ...sampleConfig.incoming, pii: 'allow' } },
    ],
    [
      'a warn action for answers',
      { ...sampleConfig, incoming: { ...sampleConfig.incoming, pii: 'warn' } },
    ],
    ['another version', { ...sampleConfig, version: 2 }],
    ['packs not strings', { ...sampleConfig, packs: [1] }],
    ['negative envelope size', { ...sampleConfig, autoEnvelopeMinChars: -1 }],
    ['no config', null],
    ['a compiled field that is not an object', { ...sampleConfig, compiled: 'pack' }],
    [
      'a compiled field without a pack',
      { ...sampleConfig, compiled: { labels: outerCompiled.labels } },
    ],
    [
      'a label pack without minProse',
      {
        ...sampleConfig,
        compiled: { ...outerCompiled, labels: { ...outerCompiled.labels, minProse: '8' } },
      },
    ],
  ])('rejects a config with %s', (_name, config) => {
    expect(parsePageConfig(config)).toBeUndefined();
  });

  it('checks the other bridge messages too', () => {
    expect(
      parseBridgeMessage({ v: 1, type: 'send-decision', requestId: 'r', decision: 'send' }),
    ).toEqual({
      v: 1,
      type: 'send-decision',
      requestId: 'r',
      decision: 'send',
    });
    expect(
      parseBridgeMessage({ v: 1, type: 'send-decision', requestId: 'r', decision: 'maybe' }),
    ).toBeUndefined();
    expect(
      parseBridgeMessage({ v: 1, type: 'outgoing-marks', pasted: ['a'], referenceOnly: [] }),
    ).toEqual({
      v: 1,
      type: 'outgoing-marks',
      pasted: ['a'],
      referenceOnly: [],
    });
    expect(parseBridgeMessage({ v: 1, type: 'guard-events' })).toBeUndefined();
  });
});
