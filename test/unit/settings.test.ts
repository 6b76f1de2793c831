import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SETTINGS,
  ensureDefaultSettings,
  SETTINGS_KEY,
  type SettingsStorage,
} from '../../src/background/settings.ts';

function memoryStorage(initial: Record<string, unknown> = {}) {
  const data: Record<string, unknown> = { ...initial };
  const storage: SettingsStorage = {
    get: async (key) => (key in data ? { [key]: data[key] } : {}),
    set: async (items) => {
      Object.assign(data, structuredClone(items));
    },
  };
  return { data, storage };
}

describe('ensureDefaultSettings', () => {
  it('writes the defaults on a fresh install', async () => {
    const { data, storage } = memoryStorage();
    expect(await ensureDefaultSettings(storage)).toEqual({ version: 1, sites: {} });
    expect(data[SETTINGS_KEY]).toEqual({ version: 1, sites: {} });
  });

  it('keeps what is stored (an update never resets user choices)', async () => {
    const existing = { version: 1, sites: { 'claude.ai': { enabled: false } } };
    const { data, storage } = memoryStorage({ [SETTINGS_KEY]: existing });
    expect(await ensureDefaultSettings(storage)).toEqual(existing);
    expect(data[SETTINGS_KEY]).toEqual(existing);
  });

  it('never hands out the frozen defaults object', async () => {
    const { storage } = memoryStorage();
    const written = await ensureDefaultSettings(storage);
    expect(written).not.toBe(DEFAULT_SETTINGS);
    expect(Object.isFrozen(DEFAULT_SETTINGS)).toBe(true);
  });
});
