/**
 * The keyed digest stored instead of matched text (DESIGN.md invariant 7):
 * HMAC-SHA-256 with the per-install key, hex, truncated to 16 bytes (32 hex
 * digits). Equal texts give equal digests within one install (so repeats can be
 * counted), and nothing outside the install can test a guess against them.
 */

export const AUDIT_KEY_BYTES = 32;
export const DIGEST_BYTES = 16;

export type Digester = (text: string) => Promise<string>;

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export function newAuditKeyHex(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(AUDIT_KEY_BYTES)));
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

export function isAuditKeyHex(value: unknown): value is string {
  return typeof value === 'string' && new RegExp(`^[0-9a-f]{${AUDIT_KEY_BYTES * 2}}$`).test(value);
}

/** A digester over a non-extractable HMAC key imported from `keyHex`. */
export async function createDigester(keyHex: string): Promise<Digester> {
  if (!isAuditKeyHex(keyHex)) throw new Error('audit key has the wrong shape');
  const key = await crypto.subtle.importKey(
    'raw',
    fromHex(keyHex),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const encoder = new TextEncoder();
  return async (text) => {
    const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(text));
    return toHex(new Uint8Array(mac, 0, DIGEST_BYTES));
  };
}
