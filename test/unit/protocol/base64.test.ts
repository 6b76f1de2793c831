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
});
