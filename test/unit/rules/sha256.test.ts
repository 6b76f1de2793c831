/**
 * The background's SHA-256 of the page's built tables (sha256.ts, issue 19 §4:
 * @noble/hashes) is compared on the page with WebCrypto's digest through
 * `hexOfDigest`: for any bytes the two must agree, or the page would refuse good
 * tables (and fail closed on every guarded site). Lengths around the padding's
 * edges (55, 56 and 64 bytes mod 64) are drawn often.
 */
import { createHash, webcrypto } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hexOfDigest, sha256Hex } from '../../../src/core/rules/sha256.ts';

const edgeLength = fc
  .tuple(fc.integer({ min: 0, max: 4 }), fc.constantFrom(0, 1, 54, 55, 56, 57, 63))
  .map(([blocks, rest]) => blocks * 64 + rest);
const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  edgeLength.chain((length) => fc.uint8Array({ minLength: length, maxLength: length })),
);

describe('sha256Hex', () => {
  it('is the FIPS 180-4 digest of the standard vectors', () => {
    const ascii = (text: string) => new TextEncoder().encode(text);
    expect(sha256Hex(ascii(''))).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(sha256Hex(ascii('abc'))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(sha256Hex(ascii('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'))).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('equals node:crypto and WebCrypto (the page) for any bytes', async () => {
    await fc.assert(
      fc.asyncProperty(bytes, async (data) => {
        const ours = sha256Hex(data);
        expect(ours).toBe(createHash('sha256').update(data).digest('hex'));
        expect(ours).toBe(hexOfDigest(await webcrypto.subtle.digest('SHA-256', data)));
      }),
      { numRuns: 300 },
    );
  });
});
