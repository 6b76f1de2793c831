/**
 * The per-install HMAC key of the audit digests (docs/audit-log.md "Digest"):
 * 32 random bytes generated once, kept in `storage.local` under `auditKey`.
 * Extension storage is out of the page's reach (pages cannot call extension
 * APIs; the bridge never reads this key). Never exported, never logged.
 */
import {
  createDigester,
  isAuditKeyHex,
  newAuditKeyHex,
  type Digester,
} from '../audit/audit-digest.ts';
import type { SettingsStorage } from './settings.ts';

export const AUDIT_KEY_STORAGE_KEY = 'auditKey';

/** The stored key, or a new one stored first. A broken stored key is replaced. */
export async function loadAuditKey(storage: SettingsStorage): Promise<string> {
  const stored = (await storage.get(AUDIT_KEY_STORAGE_KEY))[AUDIT_KEY_STORAGE_KEY];
  if (isAuditKeyHex(stored)) return stored;
  const key = newAuditKeyHex();
  await storage.set({ [AUDIT_KEY_STORAGE_KEY]: key });
  return key;
}

/** One digester per background lifetime: concurrent callers share the first load. */
export function lazyDigester(storage: SettingsStorage): () => Promise<Digester> {
  let digester: Promise<Digester> | undefined;
  return () => {
    digester ??= loadAuditKey(storage).then(createDigester);
    // A failed load is retried next time instead of failing forever.
    digester.catch(() => {
      digester = undefined;
    });
    return digester;
  };
}
