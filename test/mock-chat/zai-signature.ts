/**
 * The shape of Z.ai's request signature (WIRE-FORMATS-2.md §3.5): an
 * HMAC-SHA256 over `requestId,…,timestamp,…,user_id,…|base64(latest user
 * text)|timestamp`. The site keys it with an HMAC of a 5-minute time bucket;
 * the mock keys it with a fixed test key, which keeps what matters here: the
 * signature binds the user's text, so a request whose text was changed after
 * signing is rejected. The mock page (zai-routes.ts) computes the same with
 * WebCrypto.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const MOCK_ZAI_KEY = 'mock-zai-signing-key';

export interface ZaiSigned {
  requestId: string;
  timestamp: string;
  userId: string;
  prompt: string;
}

/** What is signed (the prompt as the base64 of its UTF-8 bytes). */
export function zaiSignedText(s: ZaiSigned): string {
  const prompt = Buffer.from(s.prompt, 'utf8').toString('base64');
  return `requestId,${s.requestId},timestamp,${s.timestamp},user_id,${s.userId}|${prompt}|${s.timestamp}`;
}

/** The `x-signature` header value (hex). */
export function zaiSignature(s: ZaiSigned, key = MOCK_ZAI_KEY): string {
  return createHmac('sha256', key).update(zaiSignedText(s)).digest('hex');
}

/** True when `signature` is the signature of `s`. */
export function zaiSignatureMatches(s: ZaiSigned, signature: string, key = MOCK_ZAI_KEY): boolean {
  const expected = Buffer.from(zaiSignature(s, key), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  return expected.length === given.length && timingSafeEqual(expected, given);
}
