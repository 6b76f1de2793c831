/**
 * Extension settings in `chrome.storage.local` under the key `settings`
 * (schema: src/protocol/settings-schema.ts, documented in docs/settings.md).
 * Reading always goes through `normaliseSettings`, so the rest of the background
 * only ever sees valid settings.
 */
import { SETTINGS_KEY, type Settings } from '../protocol/settings-schema.ts';
import { applyManagedPolicy, ownAfterEdit } from './apply-managed-policy.ts';
import { defaultSettings } from './default-settings.ts';
import { emptyManagedPolicy, type ParsedManagedPolicy } from './managed-policy.ts';
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

/**
 * The organisation's policy (issue 21 §1, managed-policy-source.ts); without one
 * the person's own settings apply unchanged.
 */
export interface ManagedPolicyReader {
  read(): Promise<ParsedManagedPolicy>;
}

async function managedPolicyOf(managed: ManagedPolicyReader | undefined) {
  return managed === undefined ? emptyManagedPolicy() : (await managed.read()).policy;
}

/**
 * The settings in force: the stored settings, repaired (the defaults when nothing
 * is stored), with every value the organisation manages in force. Writes nothing.
 */
export async function readSettings(
  storage: SettingsStorage,
  managed?: ManagedPolicyReader,
): Promise<Settings> {
  const own = normaliseSettings((await storage.get(SETTINGS_KEY))[SETTINGS_KEY]);
  return applyManagedPolicy(own, await managedPolicyOf(managed));
}

/**
 * Stores `settings` (an edit of the settings in force) as the person's own:
 * normalised, with the previous own value kept wherever the organisation decides
 * (apply-managed-policy.ts `ownAfterEdit`). Returns the settings now in force.
 */
export async function writeSettings(
  storage: SettingsStorage,
  settings: unknown,
  managed?: ManagedPolicyReader,
): Promise<Settings> {
  const policy = await managedPolicyOf(managed);
  const previous = normaliseSettings((await storage.get(SETTINGS_KEY))[SETTINGS_KEY]);
  const own = normaliseSettings(ownAfterEdit(normaliseSettings(settings), previous, policy));
  await storage.set({ [SETTINGS_KEY]: own });
  return applyManagedPolicy(own, policy);
}

/**
 * Writes the default settings when none are stored, and repairs/migrates what is
 * stored otherwise. Every valid choice the person made is kept (an update or a
 * browser restart must never reset what the user chose); storage is written only
 * when the repaired value differs. Returns the settings in force (what is stored,
 * with the organisation's policy applied).
 */
export async function ensureDefaultSettings(
  storage: SettingsStorage,
  managed?: ManagedPolicyReader,
): Promise<Settings> {
  const stored = (await storage.get(SETTINGS_KEY))[SETTINGS_KEY];
  const normalised = normaliseSettings(stored);
  if (JSON.stringify(stored) !== JSON.stringify(normalised)) {
    await storage.set({ [SETTINGS_KEY]: normalised });
  }
  return applyManagedPolicy(normalised, await managedPolicyOf(managed));
}
