/**
 * Issue 5 §3 in the background: reference-only marks stored by keyed digest per
 * site and conversation (never text, never the URL), a per-site key that stays the
 * same across worker restarts and differs between sites, bounded storage, shape
 * checks on what the bridge sends, and the popup's requests relayed to the tab's
 * bridge (only for a guarded tab, only a checked list coming back).
 */
import 'fake-indexeddb/auto';
import type { Scripting } from 'webextension-polyfill';
import { describe, expect, it } from 'vitest';
import { openAuditDb } from '../../../src/audit/audit-db.ts';
import { GuardBackground } from '../../../src/background/guard-background.ts';
import { parseContentMessage, parseUiMessage } from '../../../src/background/message-shape.ts';
import {
  MAX_CONVERSATIONS,
  MAX_MARKS,
  REFERENCE_ONLY_KEY_STORAGE_KEY,
  REFERENCE_ONLY_STORAGE_PREFIX,
  ReferenceOnlyStore,
} from '../../../src/background/reference-only-store.ts';
import type {
  BackgroundToContent,
  ReferenceOnlyList,
  StoredReferenceMark,
} from '../../../src/protocol/runtime-messages.ts';

const self = { id: 'csg-id', baseUrl: 'chrome-extension://csg-id/' };
const popup = { id: self.id, url: `${self.baseUrl}src/ui/popup/index.html` };
const bridge = (url = 'http://127.0.0.1:8787/chat?chat=1', tabId = 4) => ({
  id: self.id,
  url,
  tab: { id: tabId },
  frameId: 0,
});
let dbCounter = 0;

function memoryArea(data: Record<string, unknown> = {}) {
  return {
    data,
    get: async (key: string) => (key in data ? { [key]: structuredClone(data[key]) } : {}),
    set: async (items: Record<string, unknown>) => void Object.assign(data, structuredClone(items)),
  };
}

const digestHex = (n: number) => n.toString(16).padStart(32, '0');
const mark = (position: number, pending = false, ...digests: number[]): StoredReferenceMark => ({
  position,
  pending,
  digests: digests.map(digestHex),
});

function harness(answerFromTab: (tabId: number, m: BackgroundToContent) => Promise<unknown>) {
  const data: Record<string, unknown> = {};
  const relayed: { tabId: number; message: BackgroundToContent }[] = [];
  const registered = new Map<string, Scripting.RegisteredContentScript>();
  const background = new GuardBackground({
    storage: memoryArea(data),
    scripting: {
      getRegisteredContentScripts: async () => [...registered.values()],
      registerContentScripts: async (scripts) => scripts.forEach((s) => registered.set(s.id, s)),
      unregisterContentScripts: async (filter) =>
        filter?.ids?.forEach((id) => registered.delete(id)),
    },
    hasOrigins: async () => true,
    setBadge: async () => undefined,
    tabUrl: async (tabId) =>
      tabId === 4
        ? 'http://127.0.0.1:8787/chat'
        : tabId === 5
          ? 'https://unguarded.example/'
          : undefined,
    identity: () => self,
    openPopup: async () => false,
    openDb: () => openAuditDb(`csg-reference-only-${++dbCounter}`),
    sendToTab: async (tabId, message) => {
      relayed.push({ tabId, message });
      return answerFromTab(tabId, message);
    },
  });
  return { background, data, relayed };
}

const LIST: ReferenceOnlyList = {
  available: true,
  items: [
    { index: 0, role: 'user', preview: 'hello', marked: false },
    { index: 1, role: 'assistant', preview: 'an answer', marked: true },
  ],
};

describe('ReferenceOnlyStore', () => {
  it('round-trips marks per site and conversation, by digest only', async () => {
    const area = memoryArea();
    const store = new ReferenceOnlyStore(area, () => 1000);
    const conversation = '/chat?chat=secret-conversation-id';
    await store.save('a.example', conversation, [mark(1, false, 1, 2), mark(3, true, 3)]);
    expect((await store.load('a.example', conversation)).marks).toEqual([
      mark(1, false, 1, 2),
      mark(3, true, 3),
    ]);
    expect((await store.load('a.example', '/chat?chat=other')).marks).toEqual([]);
    expect((await store.load('b.example', conversation)).marks).toEqual([]);
    // Neither the conversation's path nor its id is stored, only a keyed digest of it.
    const stored = JSON.stringify(area.data);
    expect(stored).not.toContain('secret-conversation-id');
    expect(stored).not.toContain('/chat');
    expect(Object.keys(area.data).sort()).toEqual(
      [REFERENCE_ONLY_KEY_STORAGE_KEY, `${REFERENCE_ONLY_STORAGE_PREFIX}a.example`].sort(),
    );
    // An empty list removes the conversation.
    await store.save('a.example', conversation, []);
    expect((await store.load('a.example', conversation)).marks).toEqual([]);
    expect(JSON.stringify(area.data[`${REFERENCE_ONLY_STORAGE_PREFIX}a.example`])).toBe(
      '{"v":1,"conversations":{}}',
    );
  });

  it('gives each site its own key, the same after a restart, and not the install key', async () => {
    const area = memoryArea();
    const first = new ReferenceOnlyStore(area);
    const a = await first.siteKey('a.example');
    const b = await first.siteKey('b.example');
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(a).not.toBe(b);
    expect(a).not.toBe(area.data[REFERENCE_ONLY_KEY_STORAGE_KEY]);
    const restarted = new ReferenceOnlyStore(area);
    expect(await restarted.siteKey('a.example')).toBe(a);
    expect(await new ReferenceOnlyStore(memoryArea()).siteKey('a.example')).not.toBe(a);
  });

  it('keeps the most recently changed conversations within the bound', async () => {
    let now = 0;
    const store = new ReferenceOnlyStore(memoryArea(), () => ++now);
    for (let i = 0; i <= MAX_CONVERSATIONS; i++) {
      await store.save('a.example', `/c/${String(i)}`, [mark(0, false, i + 1)]);
    }
    expect((await store.load('a.example', '/c/0')).marks).toEqual([]);
    expect((await store.load('a.example', '/c/1')).marks).toEqual([mark(0, false, 2)]);
    expect((await store.load('a.example', `/c/${String(MAX_CONVERSATIONS)}`)).marks).toHaveLength(
      1,
    );
  });

  it('drops malformed stored entries instead of trusting them', async () => {
    const area = memoryArea();
    const store = new ReferenceOnlyStore(area);
    await store.save('a.example', '/c', [mark(2, false, 9)]);
    const site = area.data[`${REFERENCE_ONLY_STORAGE_PREFIX}a.example`] as {
      conversations: Record<string, { marks: unknown[] }>;
    };
    const [id] = Object.keys(site.conversations);
    site.conversations[id as string]!.marks.push({ position: -1, pending: false, digests: [] });
    expect((await store.load('a.example', '/c')).marks).toEqual([]);
  });

  it('serialises concurrent saves of one site, so none is lost', async () => {
    const store = new ReferenceOnlyStore(memoryArea());
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        store.save('a.example', `/c/${String(i)}`, [mark(i, false, i + 1)]),
      ),
    );
    for (let i = 0; i < 10; i++) {
      expect((await store.load('a.example', `/c/${String(i)}`)).marks).toEqual([
        mark(i, false, i + 1),
      ]);
    }
  });
});

describe('message shapes', () => {
  it('accepts only bounded, well-formed reference-only messages', () => {
    const save = { to: 'background', type: 'reference-only-save', conversation: '/c' };
    expect(parseContentMessage({ ...save, marks: [mark(0, true, 1)] })).toEqual({
      ...save,
      marks: [mark(0, true, 1)],
    });
    expect(
      parseContentMessage({ ...save, marks: [{ position: 0, digests: ['x'], pending: false }] }),
    ).toBeNull();
    expect(
      parseContentMessage({ ...save, marks: Array.from({ length: MAX_MARKS + 1 }, () => mark(0)) }),
    ).toBeNull();
    expect(
      parseContentMessage({ to: 'background', type: 'reference-only-load', conversation: 7 }),
    ).toBeNull();
    expect(
      parseContentMessage({
        to: 'background',
        type: 'reference-only-load',
        conversation: '/c',
        extra: 'dropped',
      }),
    ).toEqual({ to: 'background', type: 'reference-only-load', conversation: '/c' });
    expect(
      parseUiMessage({
        to: 'background',
        type: 'reference-only-set',
        tabId: 4,
        index: -1,
        marked: true,
      }),
    ).toBeNull();
    expect(
      parseUiMessage({
        to: 'background',
        type: 'reference-only-set',
        tabId: 4,
        index: 1,
        marked: true,
      }),
    ).toEqual({ to: 'background', type: 'reference-only-set', tabId: 4, index: 1, marked: true });
  });
});

describe('GuardBackground and reference-only marks', () => {
  it('gives the bridge its site key and stored marks, and stores what it saves', async () => {
    const { background, data } = harness(async () => undefined);
    await background.start();
    const conversation = '/chat?chat=1';
    const saved = await background.handleContent(
      { to: 'background', type: 'reference-only-save', conversation, marks: [mark(1, false, 5)] },
      bridge(),
    );
    expect(saved).toEqual({ ok: true });
    const loaded = (await background.handleContent(
      { to: 'background', type: 'reference-only-load', conversation },
      bridge(),
    )) as { key: string; marks: StoredReferenceMark[] };
    expect(loaded.key).toMatch(/^[0-9a-f]{64}$/);
    expect(loaded.marks).toEqual([mark(1, false, 5)]);
    expect(Object.keys(data)).toContain(`${REFERENCE_ONLY_STORAGE_PREFIX}127.0.0.1`);
    // A page of a site that is not switched on gets nothing.
    expect(
      await background.handleContent(
        { to: 'background', type: 'reference-only-load', conversation },
        bridge('https://unguarded.example/chat'),
      ),
    ).toBeUndefined();
  });

  it('relays the popup to the top frame of a guarded tab and passes on only a checked list', async () => {
    const { background, relayed } = harness(async (_tabId, message) =>
      message.type === 'reference-only-set'
        ? { ...LIST, extra: 'x', items: LIST.items.map((i) => ({ ...i, html: '<b>' })) }
        : LIST,
    );
    await background.start();
    const list = await background.handleUi(
      { to: 'background', type: 'reference-only-list', tabId: 4 },
      popup,
    );
    expect(list).toEqual(LIST);
    const set = await background.handleUi(
      { to: 'background', type: 'reference-only-set', tabId: 4, index: 1, marked: false },
      popup,
    );
    expect(set).toEqual(LIST);
    expect(relayed).toEqual([
      { tabId: 4, message: { to: 'bridge', type: 'reference-only-list' } },
      { tabId: 4, message: { to: 'bridge', type: 'reference-only-set', index: 1, marked: false } },
    ]);
  });

  it('says unavailable for an unguarded tab, a missing bridge or a malformed answer', async () => {
    let answer: () => Promise<unknown> = async () => LIST;
    const { background, relayed } = harness(() => answer());
    await background.start();
    const ask = (tabId: number) =>
      background.handleUi({ to: 'background', type: 'reference-only-list', tabId }, popup);
    expect(await ask(5)).toEqual({ available: false, items: [] });
    expect(relayed).toHaveLength(0);
    answer = () => Promise.reject(new Error('Could not establish connection'));
    expect(await ask(4)).toEqual({ available: false, items: [] });
    answer = async () => ({
      available: true,
      items: [{ index: 0, role: 'user', preview: 'x'.repeat(201), marked: false }],
    });
    expect(await ask(4)).toEqual({ available: false, items: [] });
  });

  it('refuses the popup messages from anything but an extension page', async () => {
    const { background, relayed } = harness(async () => LIST);
    await background.start();
    expect(
      await background.handleUi(
        { to: 'background', type: 'reference-only-set', tabId: 4, index: 0, marked: true },
        bridge(),
      ),
    ).toBeUndefined();
    expect(relayed).toHaveLength(0);
  });
});
