/**
 * DESIGN.md §3.7: the extension makes no network request of its own. In Chromium,
 * every extension context (the background service worker, the popup and the options
 * page) is watched through the DevTools protocol's Network domain while the demo's
 * attacks stream through a guarded page; any request to an http(s) or ws(s) URL from
 * those contexts fails the test. Requests the page itself makes (to the mock chat) are
 * the page's, and the exfiltration image that would reach the attacker is neutralised
 * (demo-attacks.test.ts counts its hits).
 *
 * Chromium only: Firefox's remote protocol has no Network domain for extension
 * contexts. The code under test is the same in both builds.
 */
import type { CDPSession, Target } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockChat, type MockChat } from '../mock-chat/server.ts';
import {
  launchChromium,
  OPTIONS_PATH,
  openExtensionPage,
  POPUP_PATH,
  type ExtensionBrowser,
} from './launch.ts';

const NETWORK_SCHEME = /^(https?|wss?):/i;

describe('the extension makes no network request (chromium)', () => {
  let chat: MockChat;
  let target: ExtensionBrowser;
  const requests: string[] = [];
  const sessions: CDPSession[] = [];

  const watch = async (t: Target) => {
    if (!t.url().startsWith(target.extensionBase)) return;
    const session = await t.createCDPSession();
    sessions.push(session);
    session.on('Network.requestWillBeSent', (event: { request: { url: string } }) => {
      requests.push(`${t.type()} ${t.url()} → ${event.request.url}`);
    });
    await session.send('Network.enable');
  };

  beforeAll(async () => {
    chat = await startMockChat({ chunkDelayMs: 2 });
    target = await launchChromium();
    for (const t of target.browser.targets()) await watch(t);
    target.browser.on('targetcreated', (t: Target) => void watch(t));
  });

  afterAll(async () => {
    for (const session of sessions) await session.detach().catch(() => undefined);
    await target?.close();
    await chat?.close();
  });

  it('watches the background service worker', () => {
    const worker = target.browser
      .targets()
      .find((t) => t.type() === 'service_worker' && t.url().startsWith(target.extensionBase));
    expect(worker).toBeDefined();
  });

  it('no extension context requests anything while attacks stream and the UI is used', async () => {
    const page = await target.browser.newPage();
    await page.goto(`${chat.url}/chat`, { waitUntil: 'load' });
    for (const prompt of ['secret', 'exfil', 'invisible', 'injection']) {
      const before = await page.$$eval('.msg[data-role="assistant"]', (all) => all.length);
      await page.type('#prompt', prompt);
      await page.click('#composer button[type="submit"]');
      await page.waitForFunction(
        (n) =>
          (document.querySelectorAll('.msg[data-role="assistant"]')[n] as HTMLElement | undefined)
            ?.dataset.done === 'true',
        { timeout: 15_000 },
        before,
      );
    }
    // Extension pages open as about:blank first: watch them before they navigate.
    for (const [path, selector] of [
      [POPUP_PATH, '#csg-popup'],
      [OPTIONS_PATH, 'main'],
    ] as const) {
      const tab = await target.browser.newPage();
      const session = await tab.createCDPSession();
      sessions.push(session);
      session.on('Network.requestWillBeSent', (event: { request: { url: string } }) => {
        requests.push(`page ${path} → ${event.request.url}`);
      });
      await session.send('Network.enable');
      await openExtensionPage(target, path, selector, tab);
    }
    // Give batched audit writes and the live port time to run.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(sessions.length).toBeGreaterThanOrEqual(3);
    // The watch works: the extension pages' own resources were seen loading.
    expect(requests.some((line) => line.includes('→ chrome-extension://'))).toBe(true);
    expect(requests.filter((line) => NETWORK_SCHEME.test(line.split(' → ')[1] ?? ''))).toEqual([]);
    expect(chat.attacker.hits()).toBe(0);
  });
});
