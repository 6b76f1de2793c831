/**
 * SHA-256 (FIPS 180-4) of bytes, in plain code, as lower-case hex: what the
 * background records for the page's built tables (issue 19 §4), where the page
 * compares it with WebCrypto's digest. The page's native SHA-256 of the 1 MB
 * file took a median 2.4 ms of its main thread in Chromium against 5.0 ms for
 * the cold FNV-1a loop of data-digest.ts (8 pages each, docs/page-setup.md
 * "Set-up and first token, 3 December (third session)"). The background builds
 * the tables once per session and answers synchronously (page-config.ts
 * `compiledRulesFor`), so it computes the digest here (about 20 ms in Node).
 */

const K = Uint32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const INITIAL = [
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

/** The message with its padding: a 1 bit, zeros, and its length in bits (big-endian). */
function padded(bytes: Uint8Array): DataView {
  const blocks = Math.ceil((bytes.length + 9) / 64);
  const out = new Uint8Array(blocks * 64);
  out.set(bytes);
  out[bytes.length] = 0x80;
  const view = new DataView(out.buffer);
  const bits = bytes.length * 8;
  view.setUint32(out.length - 8, Math.floor(bits / 0x100000000));
  view.setUint32(out.length - 4, bits >>> 0);
  return view;
}

/** One 64-byte block at `at` folded into `h`; `w` is scratch of 64 words. */
function compress(view: DataView, at: number, h: Int32Array, w: Int32Array): void {
  for (let t = 0; t < 16; t++) w[t] = view.getInt32(at + 4 * t);
  for (let t = 16; t < 64; t++) {
    const a = w[t - 15] as number;
    const b = w[t - 2] as number;
    const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
    const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
    w[t] = ((w[t - 16] as number) + s0 + (w[t - 7] as number) + s1) | 0;
  }
  let a = h[0] as number;
  let b = h[1] as number;
  let c = h[2] as number;
  let d = h[3] as number;
  let e = h[4] as number;
  let f = h[5] as number;
  let g = h[6] as number;
  let hh = h[7] as number;
  for (let t = 0; t < 64; t++) {
    const s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    const ch = (e & f) ^ (~e & g);
    const t1 = (hh + s1 + ch + (K[t] as number) + (w[t] as number)) | 0;
    const s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = (s0 + maj) | 0;
    hh = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  const next = [a, b, c, d, e, f, g, hh];
  for (let i = 0; i < 8; i++) h[i] = ((h[i] as number) + (next[i] as number)) | 0;
}

/** The SHA-256 of `bytes` as 64 lower-case hex digits. */
export function sha256Hex(bytes: Uint8Array): string {
  const view = padded(bytes);
  const h = Int32Array.from(INITIAL);
  const w = new Int32Array(64);
  for (let at = 0; at < view.byteLength; at += 64) compress(view, at, h, w);
  return hexOfWords(h);
}

/** Eight 32-bit words, big-endian, as hex (also the form WebCrypto's digest is compared in). */
function hexOfWords(h: Int32Array): string {
  let hex = '';
  for (const word of h) hex += (word >>> 0).toString(16).padStart(8, '0');
  return hex;
}

/** A digest's bytes (WebCrypto's `ArrayBuffer`) as lower-case hex. */
export function hexOfDigest(digest: ArrayBuffer): string {
  let hex = '';
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
