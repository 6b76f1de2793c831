/**
 * Bytes as base64 text and back, for binary data crossing runtime messaging
 * (issue 19 §4: the page's built tables). Chrome's runtime messaging is JSON,
 * so a Uint8Array arrives as an object of numbered keys; Firefox's structured
 * clone would keep it, but one string form serves both. `atob`/`btoa` are
 * globals in service workers, event pages, content scripts and Node alike.
 */

/** Code units per String.fromCharCode call: well under any engine's argument limit. */
const CHUNK = 0x2000;

/**
 * The ES2026 base64 methods (Chrome 140, Firefox 133; not Node 20): native, several
 * times faster than `atob` and a loop over its string on a page's main thread.
 */
interface NativeBase64 {
  fromBase64?: (text: string) => Uint8Array;
}
interface NativeToBase64 {
  toBase64?: () => string;
}

export function bytesToBase64(bytes: Uint8Array): string {
  const native = (bytes as NativeToBase64).toBase64;
  if (typeof native === 'function') return native.call(bytes);
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
  const native = (Uint8Array as NativeBase64).fromBase64;
  if (typeof native === 'function') {
    try {
      return native(text);
    } catch {
      throw new Base64Error('not base64');
    }
  }
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
