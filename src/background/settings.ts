/**
 * Extension settings in `chrome.storage.local` under the key `settings`
 * (schema: src/protocol/settings-schema.ts, documented in docs/settings.md).
 * Reading always goes through `normaliseSettings`, so the rest of the background
 * only ever sees valid settings.
 */
import { SETTINGS_KEY, type Settings } from '../protocol/settings-schema.ts';
import { defaultSettings } from './default-settings.ts';
import { normaliseSettings } from './normalise-settings.ts';

export { SETTINGS_KEY };
export type { Settings, SiteSettings } from '../protocol/settings-schema.ts';

function deepFreeze<T>(value: T): Readonly<T> {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** The defaults, frozen: for comparison and display, never handed out to be changed. */
export const DEFAULT_SETTINGS: Readonly<Settings> = deepFreeze(defaultSettings());

/** The part of `storage.local` this module needs (the polyfill's and a test fake both fit). */
export interface SettingsStorage {
  get(key: string): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
}

/** The stored settings, repaired; the defaults when nothing is stored. Writes nothing. */
export async function readSettings(storage: SettingsStorage): Promise<Settings> {
  return normaliseSettings((await storage.get(SETTINGS_KEY))[SETTINGS_KEY]);
}

/** Normalises and stores `settings`; returns what was stored. */
export async function writeSettings(
  storage: SettingsStorage,
  settings: unknown,
): Promise<Settings> {
  const normalised = normaliseSettings(settings);
  await storage.set({ [SETTINGS_KEY]: normalised });
  return normalised;
}

/**
 * Writes the default settings when none are stored, and repairs/migrates what is
 * stored otherwise. Every valid choice the person made is kept (an update or a
 * browser restart must never reset what the user chose); storage is written only
 * when the repaired value differs. Returns what is stored.
 */
export async function ensureDefaultSettings(storage: SettingsStorage): Promise<Settings> {
  const stored = (await storage.get(SETTINGS_KEY))[SETTINGS_KEY];
  const normalised = normaliseSettings(stored);
  if (JSON.stringify(stored) !== JSON.stringify(normalised)) {
    await storage.set({ [SETTINGS_KEY]: normalised });
  }
  return normalised;
}
