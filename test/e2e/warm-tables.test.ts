/**
 * Issue 19 §4 in real Chromium and Firefox: the pages' pack and its built tables
 * (built-tables.ts, base64) are built once per browser session in the background,
 * not on each page load.
 * The background keeps what it built in storage.session with a count of how
 * often it built it (guard-background.ts PAGE_RULES_KEY), which an extension
 * page reads; content scripts and pages cannot read storage.session. Several
 * page loads later the count is still one, and every page guards with what it
 * was handed: its built tables are checked on the page and, were they refused,
 * the page would block answers instead of redacting them.
 */
import type { Page } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockChat, type MockChat } from '../mock-chat/server.ts';
import { fakeGithubToken } from '../mock-chat/scripted-answers.ts';
import {
  POPUP_PATH,
  askMockChat,
  launchChromium,
  launchFirefox,
  openExtensionPage,
  type ExtensionBrowser,
} from './launch.ts';

interface StoredSummary {
  computed: number;
  hasBuilt: boolean;
  hasPackJson: boolean;
  tableBytes: number;
}

/** What storage.session holds of the pages' rules, read from an extension page. */
async function storedPageRules(extensionPage: Page): Promise<StoredSummary | null> {
  return extensionPage.evaluate(async () => {
    const { pageRules } = await chrome.storage.session.get('pageRules');
    if (typeof pageRules !== 'object' || pageRules === null) return null;
    const stored = pageRules as {
      computed: number;
      rules: { built?: { tables: string }; pack?: unknown };
    };
    return {
      computed: stored.computed,
      hasBuilt: stored.rules.built !== undefined,
      hasPackJson: stored.rules.pack !== undefined,
      tableBytes: stored.rules.built === undefined ? 0 : atob(stored.rules.built.tables).length,
    };
  });
}

describe.each([
  { name: 'chromium', launch: launchChromium },
  { name: 'firefox', launch: launchFirefox },
])('pack and built tables built once per session in $name', ({ launch }) => {
  let chat: MockChat;
  let target: ExtensionBrowser;

  beforeAll(async () => {
    chat = await startMockChat({ chunkDelayMs: 5 });
    target = await launch();
  });

  afterAll(async () => {
    await target?.close();
    await chat?.close();
  });

  it('guards every page load with the tables built once', { timeout: 90_000 }, async () => {
    const page = await target.browser.newPage();
    for (let load = 0; load < 3; load++) {
      await page.goto(`${chat.url}/`, { waitUntil: 'load' });
      await page.waitForSelector('html[data-csg-bridge="on"]', { timeout: 10_000 });
      const answer = await askMockChat(page, 'secret');
      expect(answer).toContain('[redacted:github-pat]');
      expect(answer).not.toContain(fakeGithubToken().slice(4, 14));
    }
    const extensionPage = await openExtensionPage(target, POPUP_PATH, 'body');
    const stored = await storedPageRules(extensionPage);
    expect(stored).not.toBeNull();
    expect(stored?.hasBuilt).toBe(true);
    expect(stored?.hasPackJson).toBe(false);
    expect(stored?.tableBytes).toBeGreaterThan(0);
    expect(stored?.computed).toBe(1);
  });
});
