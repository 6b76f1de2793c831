import 'fake-indexeddb/auto';
import type { Runtime, Scripting } from 'webextension-polyfill';
import { describe, expect, it } from 'vitest';
import { openAuditDb } from '../../../src/audit/audit-db.ts';
import { GuardBackground } from '../../../src/background/guard-background.ts';
import { LIVE_PORT_NAME, type BackgroundToLive } from '../../../src/protocol/runtime-messages.ts';
import type { PageGuardEvent, StreamRef } from '../../../src/protocol/guard-reports.ts';
import { githubPat } from '../cli/synthetic-secrets.ts';

const self = { id: 'csg-id', baseUrl: 'chrome-extension://csg-id/' };
const popup = { id: self.id, url: `${self.baseUrl}src/ui/popup/index.html` };
const chatTab = (tabId = 4, url = 'http://127.0.0.1:8787/') => ({
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

function harness(session = memoryArea(), data: Record<string, unknown> = {}) {
  const registered = new Map<string, Scripting.RegisteredContentScript>();
  const badges = new Map<number, string>();
  const background = new GuardBackground({
    storage: memoryArea(data),
    session,
    scripting: {
      getRegisteredContentScripts: async () => [...registered.values()],
      registerContentScripts: async (scripts) => scripts.forEach((s) => registered.set(s.id, s)),
      unregisterContentScripts: async (filter) =>
        filter?.ids?.forEach((id) => registered.delete(id)),
    },
    hasOrigins: async (patterns) => patterns.every((p) => !p.includes('unpermitted')),
    setBadge: async (tabId, text) => void badges.set(tabId, text),
    tabUrl: async (tabId) => (tabId === 4 ? 'http://127.0.0.1:8787/chat' : undefined),
    identity: () => self,
    openPopup: async () => false,
    openDb: () => openAuditDb(`csg-background-${++dbCounter}`),
    batchDelayMs: 5,
  });
  return { background, data, registered, badges };
}

const stream: StreamRef = {
  streamId: 's1',
  direction: 'in',
  format: 'plain-text',
  conversationId: 'c1',
  turnId: 't1',
};
function secretEvent(secret: string): PageGuardEvent {
  return {
    type: 'match',
    rule: 'github-pat',
    kind: 'secret',
    action: 'redact',
    start: 5,
    end: 5 + secret.length,
    pack: 'core',
    matched: secret,
  };
}

function livePort(sender: Runtime.MessageSender) {
  const received: BackgroundToLive[] = [];
  const onMessage: ((m: unknown) => void)[] = [];
  let disconnected = false;
  const port = {
    name: LIVE_PORT_NAME,
    sender,
    postMessage: (m: BackgroundToLive) => void received.push(m),
    disconnect: () => void (disconnected = true),
    onMessage: { addListener: (f: (m: unknown) => void) => void onMessage.push(f) },
    onDisconnect: { addListener: () => undefined },
  } as unknown as Runtime.Port;
  return {
    port,
    received,
    send: (m: unknown) => onMessage.forEach((f) => f(m)),
    disconnected: () => disconnected,
  };
}

describe('GuardBackground', () => {
  it('logs a guard event by digest only, and feeds the badge and the live view', async () => {
    const { background, data, badges } = harness();
    await background.start();
    const live = livePort(popup);
    background.live.adopt(live.port, (tabId, port) => void background.onLiveSubscribe(tabId, port));
    live.send({ tabId: 4 });
    const secret = githubPat();
    const answer = await background.handleContent(
      {
        to: 'background',
        type: 'guard-events',
        stream,
        events: [
          secretEvent(secret),
          {
            type: 'match',
            rule: 'email',
            kind: 'pii',
            action: 'flag',
            start: 0,
            end: 3,
            pack: 'core',
            matched: 'a@b',
          },
        ],
      },
      chatTab(),
    );
    expect(answer).toEqual({ accepted: 2 });
    await background.flush();
    const records = await background.handleUi(
      { to: 'background', type: 'audit-query', query: {} },
      popup,
    );
    expect(records).toMatchObject([
      { rule: 'email', action: 'flag' },
      {
        rule: 'github-pat',
        kind: 'secret',
        action: 'redact',
        site: '127.0.0.1',
        tabId: 4,
        start: 5,
        length: secret.length,
        streamId: 's1',
      },
    ]);
    const everything = JSON.stringify([records, data]);
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain('"matched"');
    expect(badges.get(4)).toBe('1');
    expect(live.received.filter((m) => m.type === 'event')).toHaveLength(2);
    expect(live.received.at(-1)).toEqual({ type: 'counters', tab: 2, today: 2 });
    const state = await background.handleUi(
      { to: 'background', type: 'tab-state', tabId: 4 },
      popup,
    );
    expect(state).toMatchObject({
      tabId: 4,
      site: '127.0.0.1',
      enabled: true,
      permitted: true,
      counters: { tab: 2, today: 2 },
    });
    await background.onTabLoading(4);
    expect(badges.get(4)).toBe('');
  });

  it('refuses bridge messages from a disabled site, another extension or a malformed body', async () => {
    const { background } = harness();
    await background.start();
    await background.handleUi(
      { to: 'background', type: 'set-site', site: '127.0.0.1', enabled: false },
      popup,
    );
    const message = {
      to: 'background',
      type: 'guard-events',
      stream,
      events: [secretEvent(githubPat())],
    };
    expect(await background.handleContent(message, chatTab())).toBeUndefined();
    expect(
      await background.handleContent(message, {
        ...chatTab(4, 'https://chatgpt.com/'),
        id: 'other',
      }),
    ).toBeUndefined();
    expect(
      await background.handleContent(
        { ...message, events: [{ type: 'match', rule: 'x' }] },
        chatTab(4, 'https://chatgpt.com/'),
      ),
    ).toBeUndefined();
    expect(await background.handleContent(message, popup)).toBeUndefined();
    await background.flush();
    expect(
      await background.handleUi({ to: 'background', type: 'audit-query', query: {} }, popup),
    ).toEqual([]);
  });

  it('answers UI messages only to extension pages', async () => {
    const { background } = harness();
    await background.start();
    expect(
      await background.handleUi({ to: 'background', type: 'get-settings' }, chatTab()),
    ).toBeUndefined();
    expect(
      await background.handleUi({ to: 'background', type: 'get-settings' }, popup),
    ).toHaveProperty('sites');
    const live = livePort(chatTab() as Runtime.MessageSender);
    background.live.adopt(live.port, () => undefined);
    expect(live.disconnected()).toBe(true);
  });

  it('set-site registers and unregisters the scripts for that site', async () => {
    const { background, registered } = harness();
    await background.start();
    expect(registered.get('csg-main-world')?.matches).toContain('http://127.0.0.1/*');
    const off = await background.handleUi(
      { to: 'background', type: 'set-site', site: '127.0.0.1', enabled: false },
      popup,
    );
    expect(off).toEqual({ site: '127.0.0.1', enabled: false, permitted: true, registered: false });
    expect(registered.get('csg-main-world')?.matches).not.toContain('http://127.0.0.1/*');
    const page = await background.handleContent(
      { to: 'background', type: 'page-config' },
      chatTab(),
    );
    expect(page).toBeUndefined();
    const other = await background.handleUi(
      { to: 'background', type: 'set-site', site: 'unpermitted.example.org', enabled: true },
      popup,
    );
    expect(other).toEqual({
      site: 'unpermitted.example.org',
      enabled: true,
      permitted: false,
      registered: false,
    });
    expect(
      await background.handleUi(
        { to: 'background', type: 'set-site', site: 'not a site', enabled: true },
        popup,
      ),
    ).toEqual({ error: 'RangeError' });
  });

  it('put-settings stores the normalised settings; export and clear work on the log', async () => {
    const { background, data } = harness();
    await background.start();
    const put = await background.handleUi(
      {
        to: 'background',
        type: 'put-settings',
        settings: { policy: { incoming: { pii: 'redact' } }, junk: true },
      },
      popup,
    );
    expect(put).toMatchObject({ policy: { incoming: { pii: 'redact', secret: 'redact' } } });
    expect(data.settings).toEqual(put);
    await background.handleContent(
      { to: 'background', type: 'guard-events', stream, events: [secretEvent(githubPat())] },
      chatTab(),
    );
    const csv = await background.handleUi(
      { to: 'background', type: 'audit-export', format: 'csv', query: {} },
      popup,
    );
    expect(csv).toMatchObject({ format: 'csv', mime: 'text/csv;charset=utf-8' });
    expect((csv as { content: string }).content.split('\r\n')[1]).toContain('github-pat');
    expect(await background.handleUi({ to: 'background', type: 'audit-clear' }, popup)).toEqual({
      cleared: 1,
    });
    expect(
      await background.handleUi({ to: 'background', type: 'audit-query', query: {} }, popup),
    ).toEqual([]);
  });

  it('keeps the tab counters across a worker restart (storage.session), not across navigation', async () => {
    const session = memoryArea();
    const data: Record<string, unknown> = {};
    const first = harness(session, data);
    await first.background.start();
    await first.background.handleContent(
      { to: 'background', type: 'guard-events', stream, events: [secretEvent(githubPat())] },
      chatTab(),
    );
    await first.background.flush();
    await new Promise((resolve) => setTimeout(resolve, 150));
    const restarted = harness(session, data).background;
    const state = await restarted.handleUi(
      { to: 'background', type: 'tab-state', tabId: 4 },
      popup,
    );
    expect(state).toMatchObject({ counters: { tab: 1 }, recent: [{ rule: 'github-pat' }] });
    expect(JSON.stringify(session.data)).not.toContain(githubPat());
    await restarted.onTabLoading(4);
    const after = await restarted.handleUi(
      { to: 'background', type: 'tab-state', tabId: 4 },
      popup,
    );
    expect(after).toMatchObject({ counters: { tab: 0 }, recent: [] });
  });

  it('counts answers per tab and site by how they were guarded (issue 18), across a worker restart', async () => {
    const session = memoryArea();
    const data: Record<string, unknown> = {};
    const first = harness(session, data);
    await first.background.start();
    const live = livePort(popup);
    first.background.live.adopt(
      live.port,
      (tabId, port) => void first.background.onLiveSubscribe(tabId, port),
    );
    live.send({ tabId: 4 });
    const answer = (format: string, decoded = true) => ({
      to: 'background',
      type: 'answer-guarded',
      format,
      decoded,
    });
    for (const message of [
      answer('openai-chat'),
      answer('openai-chat'),
      answer('generic'),
      answer('generic', false),
    ]) {
      expect(await first.background.handleContent(message, chatTab())).toEqual({ ok: true });
    }
    // Another tab, a frame of another site and a site switched off: not this tab's site.
    await first.background.handleContent(answer('anthropic'), chatTab(5));
    await first.background.handleContent(
      answer('anthropic'),
      chatTab(4, 'http://localhost:8787/frame'),
    );
    expect(
      await first.background.handleContent(answer('anthropic'), chatTab(4, 'https://a.test/')),
    ).toBeUndefined();
    const counts = {
      adapters: { 'openai-chat': 2 },
      generic: 1,
      undecodable: 1,
    };
    // The live view hears every site of the tab (the popup shows its tab's site's).
    const posted = live.received.filter((m) => m.type === 'answers');
    expect(posted.map((m) => m.site)).toEqual([...Array<string>(4).fill('127.0.0.1'), 'localhost']);
    expect(posted[3]).toEqual({ type: 'answers', site: '127.0.0.1', answers: counts });
    const state = await first.background.handleUi(
      { to: 'background', type: 'tab-state', tabId: 4 },
      popup,
    );
    expect(state).toMatchObject({ site: '127.0.0.1', answers: counts, counters: { tab: 0 } });
    await first.background.flush();
    expect(
      await first.background.handleUi({ to: 'background', type: 'audit-query', query: {} }, popup),
    ).toEqual([]);

    await new Promise((resolve) => setTimeout(resolve, 150));
    const restarted = harness(session, data).background;
    // A reload of the tab keeps its site's answer counts; closing the tab drops them.
    await restarted.onTabLoading(4);
    expect(
      await restarted.handleUi({ to: 'background', type: 'tab-state', tabId: 4 }, popup),
    ).toMatchObject({ answers: counts });
    await restarted.onTabRemoved(4);
    expect(
      await restarted.handleUi({ to: 'background', type: 'tab-state', tabId: 4 }, popup),
    ).toMatchObject({ answers: { adapters: {}, generic: 0, undecodable: 0 } });
  });
});
