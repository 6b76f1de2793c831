/**
 * Issue 21 §2: the install id the audit export names this browser profile by
 * (resource attribute `service.instance.id`, and the prefix of every record id).
 * Random (a version 4 UUID), made the first time a record is exported and kept in
 * storage.local; it says nothing about the person or the machine. No endpoint, no id.
 */

export const INSTALL_ID_KEY = 'auditExportInstallId';

export interface InstallIdStorage {
  get(key: string): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The stored install id, made and stored first if there is none (or it is malformed). */
export async function installIdOf(
  storage: InstallIdStorage,
  makeId: () => string = () => crypto.randomUUID(),
): Promise<string> {
  const stored = (await storage.get(INSTALL_ID_KEY))[INSTALL_ID_KEY];
  if (typeof stored === 'string' && UUID.test(stored)) return stored;
  const made = makeId();
  await storage.set({ [INSTALL_ID_KEY]: made });
  return made;
}
