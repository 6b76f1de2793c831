/**
 * Base64 for the page's built tables (issue 19 §4): any bytes round-trip, the
 * text is what Node's own encoder gives, and text that is not base64 is refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Base64Error, base64ToBytes, bytesToBase64 } from '../../../src/protocol/base64.ts';

describe('base64', () => {
  it('round-trips any bytes, as Node encodes them', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 20_000 }), (bytes) => {
        const text = bytesToBase64(bytes);
        expect(text).toBe(Buffer.from(bytes).toString('base64'));
        expect(base64ToBytes(text)).toEqual(bytes);
      }),
      { numRuns: 200 },
    );
  });

  it('gives bytes at offset 0 of their own buffer', () => {
    const bytes = base64ToBytes(bytesToBase64(Uint8Array.of(1, 2, 3)));
    expect(bytes.byteOffset).toBe(0);
    expect(bytes.buffer.byteLength).toBe(3);
  });

  it.each(['%%%%', 'abc=d', '\u0100AAA'])('refuses %j', (text) => {
    expect(() => base64ToBytes(text)).toThrow(Base64Error);
  });

  it('uses the native Uint8Array.fromBase64 where the browser has it, refusals mapped', () => {
    const host = Uint8Array as unknown as { fromBase64?: (text: string) => Uint8Array };
    const had = host.fromBase64;
    const calls: string[] = [];
    host.fromBase64 = (text) => {
      calls.push(text);
      if (text === 'bad') throw new SyntaxError('bad');
      return new Uint8Array(Buffer.from(text, 'base64'));
    };
    try {
      expect(base64ToBytes('AQID')).toEqual(Uint8Array.of(1, 2, 3));
      expect(() => base64ToBytes('bad')).toThrow(Base64Error);
      expect(calls).toEqual(['AQID', 'bad']);
    } finally {
      if (had === undefined) delete host.fromBase64;
      else host.fromBase64 = had;
    }
  });
});
