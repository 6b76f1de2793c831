/**
 * The MAIN world's body codecs (src/page/body-codec.ts): a byte-level format
 * (Kimi's Connect envelopes) reaches the guard as a byte string, one unit per
 * byte, for any split of the network bytes, and comes back as exactly those
 * bytes; through the remote guard the page gets the body byte for byte.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byteStringOf } from '../../../src/core/wire/byte-string.ts';
import { recognisers } from '../../../src/core/wire/wire-recognisers.ts';
import { byteBodyCodec } from '../../../src/page/body-codec.ts';
import { splitBytes } from '../../support/wire-harness.ts';
import { createFakeBridge } from './fake-bridge.ts';
import { cutFractions } from '../../support/text-arbitraries.ts';

const bytes = fc.uint8Array({ maxLength: 20_000 });
const cuts = cutFractions(12);

describe('byteBodyCodec', () => {
  it('decodes any split of any bytes to the byte string of the whole, and encodes it back', () => {
    fc.assert(
      fc.property(bytes, cuts, (body, at) => {
        const codec = byteBodyCodec();
        const text = splitBytes(body, at)
          .map((chunk) => codec.decode(chunk))
          .join('');
        expect(text + codec.flush()).toBe(byteStringOf(body));
        for (const piece of splitBytes(body, at)) codec.add(codec.decode(piece));
        expect(codec.take()).toEqual(body);
        expect(codec.empty).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});

describe('the remote guard of a byte-level format', () => {
  it('posts the network bytes to the guard and gives the page the bytes back', async () => {
    const bridge = createFakeBridge('never-in-the-body');
    const body = new Uint8Array([0, 0, 0, 0, 0x87, 0xe5, 0xb7, 0xb4, 0xff, 0x02, 0x7b, 0x7d]);
    const guard = bridge.remote.wire(recognisers.kimiWeb, {
      url: 'https://www.kimi.com/apiv2/kimi.gateway.chat.v1.ChatService/Chat',
      contentType: 'application/connect+json',
      head: '',
    });
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of splitBytes(body, [0.2, 0.5])) controller.enqueue(chunk);
        controller.close();
      },
    });
    const out = new Uint8Array(await new Response(source.pipeThrough(guard)).arrayBuffer());
    expect(out).toEqual(body);
    const posted = bridge.sent.flatMap((m) => (m.type === 'guard-chunk' ? [...m.bytes] : []));
    expect(posted).toEqual([...body]);
  });
});
