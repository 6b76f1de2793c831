/**
 * Extension settings kept in `chrome.storage.local` under the key `settings`.
 * Shell version: the schema version and an (empty) per-site map; the full schema
 * (sites enabled, policy per kind) is documented in docs/settings.md by a later issue.
 */

export const SETTINGS_KEY = 'settings';

export interface SiteSettings {
  enabled: boolean;
}

export interface Settings {
  version: 1;
  sites: Record<string, SiteSettings>;
}

export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze({ version: 1, sites: {} });

/** The part of `storage.local` this module needs (the polyfill's and a test fake both fit). */
export interface SettingsStorage {
  get(key: string): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
}

/**
 * Writes the default settings when none are stored; keeps existing settings (an update
 * or a browser restart must never reset what the user chose). Returns what is stored.
 */
export async function ensureDefaultSettings(storage: SettingsStorage): Promise<Settings> {
  const stored = (await storage.get(SETTINGS_KEY))[SETTINGS_KEY];
  if (stored !== undefined && stored !== null && typeof stored === 'object') {
    return stored as Settings;
  }
  const defaults: Settings = { version: DEFAULT_SETTINGS.version, sites: {} };
  await storage.set({ [SETTINGS_KEY]: defaults });
  return defaults;
}
