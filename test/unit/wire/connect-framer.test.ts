/**
 * Connect envelopes framed on a byte string (framing/connect-framer.ts,
 * WIRE-FORMATS-2.md §2.3): lengths are bytes, a payload is decoded only once
 * whole, and any split of the bytes (inside the 5-byte header, inside a
 * multi-byte character) gives the frames of the single chunk.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byteStringOf, bytesOfByteString } from '../../../src/core/wire/byte-string.ts';
import {
  CONNECT_END_STREAM,
  ConnectFramer,
  renderConnectEnvelope,
} from '../../../src/core/wire/framing/connect-framer.ts';
import type { RawFrame } from '../../../src/core/wire/raw-frame.ts';
import { splitBytes } from '../../support/wire-harness.ts';
import { cutFractions } from '../../support/text-arbitraries.ts';

/** An envelope as a server writes it: Node's own UInt32BE, not the code under test. */
function envelope(flags: number, json: string): Uint8Array {
  const payload = Buffer.from(json, 'utf8');
  const header = Buffer.alloc(5);
  header.writeUInt8(flags, 0);
  header.writeUInt32BE(payload.length, 1);
  return new Uint8Array(Buffer.concat([header, payload]));
}

function frames(chunks: Uint8Array[]): RawFrame[] {
  const framer = new ConnectFramer();
  const out = chunks.flatMap((c) => framer.push(byteStringOf(c)));
  return [...out, ...framer.end()];
}

const first = JSON.stringify({ op: 'append', block: { text: { content: '巴黎 😀' } } });
// 136 bytes of payload: its length's last byte, 0x88, is not ASCII (nor UTF-8 alone).
const second = JSON.stringify({ heartbeat: 'é'.repeat(60) });
const body = new Uint8Array(
  Buffer.concat([envelope(0, first), envelope(0, second), envelope(CONNECT_END_STREAM, '{}')]),
);

describe('ConnectFramer', () => {
  it('splits envelopes by their byte length and decodes each payload as UTF-8', () => {
    const list = frames([body]);
    expect(list.map((f) => f.raw.length)).toEqual([5 + Buffer.byteLength(first), 5 + 136, 7]);
    expect(list.map((f) => f.payload)).toEqual([first, second, '{}']);
    expect(list.map((f) => f.raw).join('')).toBe(byteStringOf(body));
  });

  it('gives the same frames for any split of the bytes', () => {
    const whole = frames([body]);
    fc.assert(
      fc.property(cutFractions(30), (at) => {
        expect(frames(splitBytes(body, at))).toEqual(whole);
      }),
      { numRuns: 200 },
    );
  });

  it('passes an envelope cut short, and a body that is not enveloped, as they came', () => {
    const cut = body.slice(0, 12);
    expect(frames([cut])).toEqual([{ raw: byteStringOf(cut) }]);
    const html = new TextEncoder().encode('<html>blocked</html>');
    expect(
      frames(splitBytes(html, [0.3]))
        .map((f) => f.raw)
        .join(''),
    ).toBe(byteStringOf(html));
    expect(frames([html]).every((f) => f.payload === undefined)).toBe(true);
  });

  it('leaves a compressed envelope without a payload (it cannot be read here)', () => {
    const [frame] = frames([envelope(0x01, '{"x":1}')]);
    expect(frame?.payload).toBeUndefined();
  });

  it('re-envelopes a payload with the byte length of its UTF-8 form', () => {
    const json = JSON.stringify({ text: '数据 😀'.repeat(30) });
    const written = bytesOfByteString(renderConnectEnvelope(0, json));
    expect(written).toEqual(envelope(0, json));
  });
});
