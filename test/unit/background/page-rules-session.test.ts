/**
 * Issue 19 §4: the background builds the pages' pack and built tables once per
 * browser session. Every page asks (`page-pack`), and all get what was built
 * first; a service worker that Chrome stopped when idle (its module state
 * gone: `vi.resetModules` here) restores them from storage.session instead of
 * building them again; a change of policy builds them anew.
 */
import 'fake-indexeddb/auto';
import type { Scripting } from 'webextension-polyfill';
import { describe, expect, it, vi } from 'vitest';
import { openAuditDb } from '../../../src/audit/audit-db.ts';
import type { StoredPageRules } from '../../../src/background/guard-background.ts';
import type { PagePackAnswer } from '../../../src/protocol/runtime-messages.ts';

const self = { id: 'csg-id', baseUrl: 'chrome-extension://csg-id/' };
const chatTab = { id: self.id, url: 'http://127.0.0.1:8787/', tab: { id: 4 }, frameId: 0 };
let dbCounter = 0;

function memoryArea(data: Record<string, unknown> = {}) {
  return {
    data,
    get: async (key: string) => (key in data ? { [key]: structuredClone(data[key]) } : {}),
    set: async (items: Record<string, unknown>) => void Object.assign(data, structuredClone(items)),
  };
}

/** A background as a freshly started worker has it: its modules loaded anew. */
async function freshWorker(session: ReturnType<typeof memoryArea>, local: Record<string, unknown>) {
  vi.resetModules();
  const { GuardBackground } = await import('../../../src/background/guard-background.ts');
  const registered = new Map<string, Scripting.RegisteredContentScript>();
  return new GuardBackground({
    storage: memoryArea(local),
    session,
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
    openDb: () => openAuditDb(`csg-page-rules-${++dbCounter}`),
  });
}

type Background = Awaited<ReturnType<typeof freshWorker>>;

async function pagePack(background: Background): Promise<PagePackAnswer> {
  const answer = await background.handleContent({ to: 'background', type: 'page-pack' }, chatTab);
  return answer as PagePackAnswer;
}

const stored = (session: ReturnType<typeof memoryArea>) =>
  session.data.pageRules as StoredPageRules | undefined;

describe('the pages’ pack and built tables, once per browser session', () => {
  it(
    'are built at start-up, handed to every page, and restored by a restarted worker',
    {
      timeout: 120_000,
    },
    async () => {
      const session = memoryArea();
      const local: Record<string, unknown> = {};
      const first = await freshWorker(session, local);
      await first.start();
      expect(stored(session)?.computed).toBe(1);
      const a = await pagePack(first);
      const b = await pagePack(first);
      expect(a.compiled.built).toBeDefined();
      expect(b.compiled).toBe(a.compiled);
      expect(stored(session)?.computed).toBe(1);

      // Chrome stopped the idle worker: the next one restores, it does not rebuild.
      const restarted = await freshWorker(session, local);
      const c = await pagePack(restarted);
      expect(c.compiled).toEqual(a.compiled);
      expect(stored(session)?.computed).toBe(1);

      // Another policy is another set of built tables: built once more, and counted.
      const settings = structuredClone(local.settings) as {
        policy: { incoming: Record<string, string> };
      };
      settings.policy.incoming.pii = 'block';
      local.settings = settings;
      restarted.onStorageChanged({ settings: {} }, 'local');
      await restarted.resync();
      const d = await pagePack(restarted);
      expect(d.compiled.built).toBeDefined();
      expect(d.compiled.built).not.toEqual(a.compiled.built);
      expect(stored(session)?.computed).toBe(2);
    },
  );

  it('without storage.session (a browser that lacks it) still answers every page', async () => {
    vi.resetModules();
    const session = memoryArea();
    session.get = async () => {
      throw new Error('no storage.session');
    };
    session.set = async () => {
      throw new Error('no storage.session');
    };
    const worker = await freshWorker(session, {});
    const answer = await pagePack(worker);
    expect(answer.compiled.built?.tables.length).toBeGreaterThan(0);
  });
});
