/**
 * The fence: a fresh random token per request, so a fence leaked through the
 * model's output (prompt leaking) is worthless for the next request's forgery
 * (seed 004 §3, "每请求轮换，泄漏即作废"). 128 bits, above the 96 the issue asks.
 *
 * The random source is injected so tests are deterministic; the default is
 * `crypto.getRandomValues`, a global in Node 20, browsers and extension workers,
 * so `src/core` stays free of imports.
 */

/** Fills `bytes` with random bytes (the shape of `crypto.getRandomValues`). */
export type RandomFill = (bytes: Uint8Array) => void;

export const FENCE_BYTES = 16;

/** At least 96 bits (24 hex digits); more is accepted when a caller brings its own fence. */
const FENCE_TOKEN = /^[0-9a-f]{24,64}$/;

/**
 * `crypto.getRandomValues`, bound when this module loads. In the extension the
 * page hook loads at document_start, before any page script, so a page that
 * later replaces `crypto.getRandomValues` (to make fences predictable) does not
 * reach it: nothing from the page is trusted (DESIGN.md §3).
 */
const nativeGetRandomValues: ((bytes: Uint8Array) => unknown) | null = (() => {
  const webCrypto = (globalThis as { crypto?: { getRandomValues?: (b: Uint8Array) => unknown } })
    .crypto;
  const getRandomValues = webCrypto?.getRandomValues;
  return typeof getRandomValues === 'function' ? getRandomValues.bind(webCrypto) : null;
})();

export const defaultRandomFill: RandomFill = (bytes) => {
  // Fail closed: without a cryptographic source there is no unguessable fence.
  if (nativeGetRandomValues === null) {
    throw new Error('no crypto.getRandomValues: cannot make an unguessable fence');
  }
  nativeGetRandomValues(bytes);
};

/** A fresh fence token: FENCE_BYTES random bytes as lowercase hex. */
export function freshFence(random: RandomFill = defaultRandomFill): string {
  const bytes = new Uint8Array(FENCE_BYTES);
  random(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function isFenceToken(token: string): boolean {
  return FENCE_TOKEN.test(token);
}
