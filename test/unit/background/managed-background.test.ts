/**
 * Issue 21 §1 in the background: the policy decides which sites are registered,
 * a live change of the managed area re-applies it, nothing the UI sends weakens a
 * managed value, and an ignored value is logged once as an audit record.
 */
import 'fake-indexeddb/auto';
import type { Scripting } from 'webextension-polyfill';
import { describe, expect, it } from 'vitest';
import { openAuditDb } from '../../../src/audit/audit-db.ts';
import { GuardBackground } from '../../../src/background/guard-background.ts';
import type { AuditRecord } from '../../../src/protocol/runtime-messages.ts';
import type { Settings } from '../../../src/protocol/settings-schema.ts';

const self = { id: 'csg-id', baseUrl: 'chrome-extension://csg-id/' };
const options = { id: self.id, url: `${self.baseUrl}src/ui/options/index.html` };
let dbCounter = 0;

function harness(initialPolicy: unknown) {
  const data: Record<string, unknown> = {};
  let policy = initialPolicy;
  const registered = new Map<string, Scripting.RegisteredContentScript>();
  const background = new GuardBackground({
    storage: {
      get: async (key: string) => (key in data ? { [key]: structuredClone(data[key]) } : {}),
      set: async (items: Record<string, unknown>) =>
        void Object.assign(data, structuredClone(items)),
    },
    managed: { get: async () => structuredClone(policy) as Record<string, unknown> },
    scripting: {
      getRegisteredContentScripts: async () => [...registered.values()],
      registerContentScripts: async (scripts) => scripts.forEach((s) => registered.set(s.id, s)),
      unregisterContentScripts: async (filter) =>
        filter?.ids?.forEach((id) => registered.delete(id)),
    },
    hasOrigins: async () => true,
    setBadge: async () => undefined,
    tabUrl: async () => undefined,
    identity: () => self,
    openPopup: async () => false,
    openDb: () => openAuditDb(`csg-managed-background-${++dbCounter}`),
    batchDelayMs: 5,
  });
  const matches = () => [...(registered.get('csg-bridge')?.matches ?? [])];
  const ask = <T>(message: Record<string, unknown>) =>
    background.handleUi({ to: 'background', ...message }, options) as Promise<T>;
  return {
    background,
    data,
    matches,
    ask,
    setPolicy: (value: unknown) => {
      policy = value;
      background.onStorageChanged({}, 'managed');
    },
  };
}

// The first start compiles the built-in packs: seconds, not milliseconds.
describe('GuardBackground under a managed policy', { timeout: 20_000 }, () => {
  it('registers the forced sites and re-applies a changed policy live', async () => {
    const h = harness({ sites: { localhost: false, 'llm.corp.example': true } });
    await h.background.start();
    expect(h.matches()).toContain('*://llm.corp.example/*');
    expect(h.matches()).not.toContain('http://localhost/*');
    h.setPolicy({});
    await h.background.resync();
    expect(h.matches()).toContain('http://localhost/*');
    expect(h.matches()).not.toContain('*://llm.corp.example/*');
  });

  it('keeps a managed value whatever the UI sends, and stores only the person’s own', async () => {
    const h = harness({ incomingPolicy: { secret: 'block' } });
    await h.background.start();
    const current = await h.ask<Settings>({ type: 'get-settings' });
    expect(current.policy.incoming.secret).toBe('block');
    const weakened = structuredClone(current);
    weakened.policy.incoming.secret = 'off';
    weakened.policy.incoming.pii = 'redact';
    const answer = await h.ask<Settings>({ type: 'put-settings', settings: weakened });
    expect(answer.policy.incoming).toMatchObject({ secret: 'block', pii: 'redact' });
    const stored = h.data.settings as Settings;
    expect(stored.policy.incoming).toMatchObject({ secret: 'redact', pii: 'redact' });
  });

  it('logs an ignored value once, naming where and why', async () => {
    const h = harness({ incomingPolicy: { secret: 'blok' } });
    await h.background.start();
    await h.background.resync();
    h.setPolicy({ incomingPolicy: { secret: 'blok' } });
    await h.background.resync();
    const records = await h.ask<AuditRecord[]>({ type: 'audit-query', query: {} });
    const managed = records.filter((record) => record.rule.startsWith('managed-policy/'));
    expect(managed).toEqual([
      expect.objectContaining({
        rule: 'managed-policy/incomingPolicy.secret',
        kind: 'error',
        action: 'error',
        pack: 'unknown-action',
      }),
    ]);
    // The ignored value left protection as it was.
    const settings = await h.ask<Settings>({ type: 'get-settings' });
    expect(settings.policy.incoming.secret).toBe('redact');
  });
});
