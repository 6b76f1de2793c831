import { describe, expect, it } from 'vitest';
import {
  MANAGED_ISSUES_KEY,
  ManagedPolicySource,
  recordsFromManagedIssues,
  type ManagedArea,
} from '../../../src/background/managed-policy-source.ts';
import type { ManagedIssue } from '../../../src/background/managed-policy.ts';
import {
  readSettings,
  SETTINGS_KEY,
  writeSettings,
  type SettingsStorage,
} from '../../../src/background/settings.ts';
import { defaultSettings } from '../../../src/background/default-settings.ts';

function memoryStorage(initial: Record<string, unknown> = {}) {
  const data: Record<string, unknown> = { ...initial };
  const storage: SettingsStorage = {
    get: async (key) => (key in data ? { [key]: structuredClone(data[key]) } : {}),
    set: async (items) => {
      Object.assign(data, structuredClone(items));
    },
  };
  return { data, storage };
}

function managedArea(value: () => unknown): ManagedArea {
  return { get: async () => value() as Record<string, unknown> };
}

describe('ManagedPolicySource', () => {
  it('treats an area that cannot be read (Firefox without a policy) as no policy', async () => {
    const { storage } = memoryStorage();
    const reported: ManagedIssue[][] = [];
    const source = new ManagedPolicySource(
      { get: () => Promise.reject(new Error('Managed storage manifest not found')) },
      storage,
      (issues) => reported.push(issues),
    );
    const parsed = await source.read();
    expect(parsed.issues).toEqual([]);
    expect(parsed.policy.sites).toEqual({});
    expect(reported).toEqual([]);
  });

  it('reports ignored values once per change, remembered across restarts', async () => {
    const { storage } = memoryStorage();
    let policy: unknown = { incomingPolicy: { secret: 'blok' } };
    const reported: ManagedIssue[][] = [];
    const start = () =>
      new ManagedPolicySource(
        managedArea(() => policy),
        storage,
        (issues) => reported.push(issues),
      );
    const first = start();
    await Promise.all([first.read(), first.read()]);
    await start().read(); // a restarted service worker
    expect(reported).toEqual([[{ field: 'incomingPolicy.secret', problem: 'unknown-action' }]]);
    policy = { incomingPolicy: { secret: 'block' } };
    await first.read();
    policy = { auditRetention: { maxAgeDays: -1 } };
    await first.read();
    expect(reported).toHaveLength(2);
    expect(reported[1]).toEqual([{ field: 'auditRetention.maxAgeDays', problem: 'out-of-range' }]);
  });

  it('audit records name where and why, never the value', () => {
    const [record] = recordsFromManagedIssues(
      [{ field: 'sites.chatgpt.com', problem: 'not-a-boolean' }],
      1000,
    );
    expect(record).toMatchObject({
      time: 1000,
      rule: 'managed-policy/sites.chatgpt.com',
      kind: 'error',
      action: 'error',
      pack: 'not-a-boolean',
      digest: '',
      length: 0,
    });
  });
});

describe('settings with a managed policy', () => {
  it('reads the settings in force and stores only the person’s own values', async () => {
    const own = defaultSettings();
    own.policy.incoming.secret = 'flag';
    const { data, storage } = memoryStorage({ [SETTINGS_KEY]: own });
    const source = new ManagedPolicySource(
      managedArea(() => ({ incomingPolicy: { secret: 'block' }, sites: { 'claude.ai': false } })),
      storage,
      () => undefined,
    );
    const effective = await readSettings(storage, source);
    expect(effective.policy.incoming.secret).toBe('block');
    expect(effective.sites['claude.ai']).toEqual({ enabled: false });

    // The options page sends back the settings in force with one free edit.
    const edited = structuredClone(effective);
    edited.policy.incoming.pii = 'redact';
    edited.policy.incoming.secret = 'off';
    const written = await writeSettings(storage, edited, source);
    expect(written.policy.incoming).toMatchObject({ secret: 'block', pii: 'redact' });
    const stored = data[SETTINGS_KEY] as typeof own;
    expect(stored.policy.incoming).toMatchObject({ secret: 'flag', pii: 'redact' });
    expect(stored.sites['claude.ai']).toEqual({ enabled: true });
    expect(data[MANAGED_ISSUES_KEY]).toBe('[]');
  });
});
