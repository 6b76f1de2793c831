import { describe, expect, it } from 'vitest';
import { defaultSettings } from '../../src/background/default-settings.ts';
import {
  DEFAULT_SETTINGS,
  ensureDefaultSettings,
  readSettings,
  SETTINGS_KEY,
  writeSettings,
  type SettingsStorage,
} from '../../src/background/settings.ts';
import { DEFAULT_SITE_PATTERNS } from '../../src/protocol/settings-schema.ts';

function memoryStorage(initial: Record<string, unknown> = {}) {
  const data: Record<string, unknown> = { ...initial };
  let writes = 0;
  const storage: SettingsStorage = {
    get: async (key) => (key in data ? { [key]: structuredClone(data[key]) } : {}),
    set: async (items) => {
      writes += 1;
      Object.assign(data, structuredClone(items));
    },
  };
  return { data, storage, writes: () => writes };
}

describe('ensureDefaultSettings', () => {
  it('writes the defaults on a fresh install: every known chat site and localhost on', async () => {
    const { data, storage } = memoryStorage();
    const written = await ensureDefaultSettings(storage);
    expect(written).toEqual(defaultSettings());
    expect(data[SETTINGS_KEY]).toEqual(defaultSettings());
    for (const site of [
      'chatgpt.com',
      'claude.ai',
      'gemini.google.com',
      'localhost',
      '127.0.0.1',
    ]) {
      expect(written.sites[site]).toEqual({ enabled: true });
    }
  });

  it('keeps what is stored (an update never resets user choices) and writes nothing', async () => {
    const existing = defaultSettings();
    existing.sites['claude.ai'] = { enabled: false };
    existing.sites['chat.example.org'] = { enabled: true };
    existing.policy.incoming.pii = 'redact';
    existing.audit.maxRecords = 500;
    const { data, storage, writes } = memoryStorage({ [SETTINGS_KEY]: existing });
    expect(await ensureDefaultSettings(storage)).toEqual(existing);
    expect(data[SETTINGS_KEY]).toEqual(existing);
    expect(writes()).toBe(0);
  });

  it('migrates the shell shape: a site the person switched off stays off, the rest gets defaults', async () => {
    const shell = { version: 1, sites: { 'claude.ai': { enabled: false } } };
    const { data, storage } = memoryStorage({ [SETTINGS_KEY]: shell });
    const migrated = await ensureDefaultSettings(storage);
    expect(migrated.sites['claude.ai']).toEqual({ enabled: false });
    expect(migrated.sites['chatgpt.com']).toEqual({ enabled: true });
    expect(migrated.policy).toEqual(defaultSettings().policy);
    expect(data[SETTINGS_KEY]).toEqual(migrated);
  });

  it('never hands out the frozen defaults object', async () => {
    const { storage } = memoryStorage();
    const written = await ensureDefaultSettings(storage);
    expect(written).not.toBe(DEFAULT_SETTINGS);
    expect(Object.isFrozen(DEFAULT_SETTINGS)).toBe(true);
    expect(Object.isFrozen(DEFAULT_SETTINGS.sites)).toBe(true);
    written.sites['chatgpt.com']!.enabled = false;
    expect(DEFAULT_SETTINGS.sites['chatgpt.com']?.enabled).toBe(true);
  });

  it('has a default site for every host the manifest grants, and no other', async () => {
    const { readFileSync } = await import('node:fs');
    const manifest = JSON.parse(
      readFileSync(new URL('../../manifest.json', import.meta.url), 'utf8'),
    ) as { host_permissions: string[] };
    expect(Object.values(DEFAULT_SITE_PATTERNS).flat().sort()).toEqual(
      [...manifest.host_permissions].sort(),
    );
  });
});

describe('readSettings / writeSettings', () => {
  it('reads defaults when nothing is stored, without writing', async () => {
    const { storage, writes } = memoryStorage();
    expect(await readSettings(storage)).toEqual(defaultSettings());
    expect(writes()).toBe(0);
  });

  it('stores only normalised settings', async () => {
    const { data, storage } = memoryStorage();
    const stored = await writeSettings(storage, {
      sites: { 'Example.ORG': { enabled: true } },
      extra: 1,
    });
    expect(stored.sites['example.org']).toEqual({ enabled: true });
    expect(data[SETTINGS_KEY]).toEqual(stored);
    expect(data[SETTINGS_KEY]).not.toHaveProperty('extra');
  });
});
