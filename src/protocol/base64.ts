/**
 * Bytes as base64 text and back, for binary data crossing runtime messaging
 * (issue 19 §4: the page's built tables). Chrome's runtime messaging is JSON,
 * so a Uint8Array arrives as an object of numbered keys; Firefox's structured
 * clone would keep it, but one string form serves both. `atob`/`btoa` are
 * globals in service workers, event pages, content scripts and Node alike.
 */

/** Code units per String.fromCharCode call: well under any engine's argument limit. */
const CHUNK = 0x2000;

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(binary);
}

/** Thrown for text that is not base64 (`atob` throws a DOMException, which differs per host). */
export class Base64Error extends Error {
  override name = 'Base64Error';
}

/**
 * The bytes `text` encodes, in a buffer of their own (offset 0, so typed-array
 * views of any alignment fit). Throws Base64Error when `text` is not base64.
 */
export function base64ToBytes(text: string): Uint8Array {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    throw new Base64Error('not base64');
  }
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
