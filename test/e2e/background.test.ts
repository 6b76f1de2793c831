/**
 * The background end to end in real Chromium and Firefox ESR (issue 4): content
 * scripts are registered per site (a site switched off gets no script at all, and
 * switching it back on works after a reload), and a guarded answer on the mock
 * chat lands in the IndexedDB audit log with the right rule id, by digest only.
 */

import type { Page } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockChat, type MockChat } from '../mock-chat/server.ts';
import { fakeGithubToken } from '../mock-chat/scripted-answers.ts';
import {
  askMockChat,
  launchChromium,
  launchFirefox,
  openExtensionPage,
  OPTIONS_PATH,
  type ExtensionBrowser,
} from './launch.ts';
import { type LoggedRecord, readAuditStore } from './audit-store.ts';

function setSite(extensionPage: Page, site: string, enabled: boolean) {
  return extensionPage.evaluate(
    (s: string, on: boolean) =>
      chrome.runtime.sendMessage({ to: 'background', type: 'set-site', site: s, enabled: on }),
    site,
    enabled,
  ) as Promise<{ registered: boolean; enabled: boolean }>;
}

/** The badge text of the first tab whose URL starts with `urlPrefix`. */
function badgeOf(extensionPage: Page, urlPrefix: string): Promise<string> {
  return extensionPage.evaluate(async (prefix: string) => {
    const tabs = await chrome.tabs.query({});
    const tab = tabs.find((candidate) => candidate.url?.startsWith(prefix));
    return tab?.id === undefined ? 'no tab' : chrome.action.getBadgeText({ tabId: tab.id });
  }, urlPrefix);
}

/**
 * The marks once the guard engine has docked: it runs at document_end, in a later
 * task (src/content/engine-dock.ts), which Firefox may reach after `load` fired.
 */
async function dockedGuardMarks(page: Page) {
  await page.waitForSelector('html[data-csg-bridge="on"]', { timeout: 10_000 });
  return guardMarks(page);
}

async function guardMarks(page: Page) {
  return page.evaluate(() => ({
    guard: document.documentElement.getAttribute('data-csg-guard'),
    bridge: document.documentElement.getAttribute('data-csg-bridge'),
  }));
}

describe.each([
  { name: 'chromium', launch: launchChromium },
  { name: 'firefox', launch: launchFirefox },
])('background in $name', ({ launch }) => {
  let chat: MockChat;
  let target: ExtensionBrowser;
  let page: Page;
  let extensionPage: Page;
  const token = fakeGithubToken();

  beforeAll(async () => {
    chat = await startMockChat({ chunkDelayMs: 5 });
    target = await launch();
    extensionPage = await openExtensionPage(target, OPTIONS_PATH, 'body');
    page = await target.browser.newPage();
  });

  afterAll(async () => {
    await target?.close();
    await chat?.close();
  });

  it('logs a guarded answer in IndexedDB with the rule id, and no raw secret anywhere', async () => {
    await page.goto(`${chat.url}/`, { waitUntil: 'load' });
    expect(await dockedGuardMarks(page)).toEqual({ guard: 'on', bridge: 'on' });
    const answer = await askMockChat(page, 'show me the secret');
    expect(answer).not.toContain(token);

    let records: LoggedRecord[] | null = null;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      records = await readAuditStore(extensionPage);
      if (records?.some((record) => record.rule === 'github-pat')) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const logged = records?.find((record) => record.rule === 'github-pat');
    expect(logged).toMatchObject({ kind: 'secret', action: 'redact', site: '127.0.0.1' });
    expect(logged?.digest).toMatch(/^[0-9a-f]{32}$/);

    // The toolbar badge counts the interventions on the tab.
    expect(Number(await badgeOf(extensionPage, chat.url))).toBeGreaterThanOrEqual(1);
    const state = await extensionPage.evaluate(async (prefix: string) => {
      const tabs = await chrome.tabs.query({});
      const tabId = tabs.find((tab) => tab.url?.startsWith(prefix))?.id;
      return chrome.runtime.sendMessage({ to: 'background', type: 'tab-state', tabId });
    }, chat.url);
    expect(state).toMatchObject({ site: '127.0.0.1', enabled: true, permitted: true });
    expect(state.counters.tab).toBeGreaterThanOrEqual(1);
    expect(state.counters.today).toBeGreaterThanOrEqual(state.counters.tab);
    expect(state.recent.map((record: LoggedRecord) => record.rule)).toContain('github-pat');

    const storage = await extensionPage.evaluate(() => chrome.storage.local.get(null));
    const everything = JSON.stringify([records, storage]);
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(token.slice(4, 20));
    expect(everything).not.toContain('"matched"');
  });

  it('gives a site switched off no script at all, and guards it again once switched back on', async () => {
    expect(await setSite(extensionPage, '127.0.0.1', false)).toMatchObject({
      enabled: false,
      registered: false,
    });
    await page.goto(`${chat.url}/`, { waitUntil: 'load' });
    expect(await guardMarks(page)).toEqual({ guard: null, bridge: null });
    expect(await askMockChat(page, 'show me the secret')).toContain(token);
    // A new document resets the badge, and an unguarded page adds nothing.
    expect(await badgeOf(extensionPage, chat.url)).toBe('');

    expect(await setSite(extensionPage, '127.0.0.1', true)).toMatchObject({
      enabled: true,
      registered: true,
    });
    await page.reload({ waitUntil: 'load' });
    expect(await dockedGuardMarks(page)).toEqual({ guard: 'on', bridge: 'on' });
    expect(await askMockChat(page, 'show me the secret')).not.toContain(token);
  });
});
