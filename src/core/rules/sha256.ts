/**
 * The SHA-256 of the page's built tables as lower-case hex: what the background
 * records beside the tables (issue 19 §4), where the page compares it with
 * WebCrypto's digest (content/load-built-tables.ts). The page's native SHA-256
 * of the 1 MB file took a median 2.4 ms of its main thread in Chromium against
 * 5.0 ms for the cold FNV-1a loop of data-digest.ts (docs/page-setup.md "Set-up
 * and first token, 3 December (third session)"). The background answers the
 * page synchronously (page-config.ts `compiledRulesFor`), where WebCrypto is
 * asynchronous, so it hashes with @noble/hashes, an audited pure-JS
 * implementation, rather than code of our own.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** The SHA-256 of `bytes` as 64 lower-case hex digits. */
export function sha256Hex(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes));
}

/**
 * A digest's bytes (WebCrypto's `ArrayBuffer`) as lower-case hex. Here, not from
 * @noble/hashes, so the content script that compares does not bundle the library.
 */
export function hexOfDigest(digest: ArrayBuffer): string {
  let hex = '';
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
