/**
 * The private channel between the MAIN world and the ISOLATED bridge, and the
 * in-page notices, in real Chromium and Firefox ESR with the built extension.
 *
 * - The handshake succeeds: the bridge marks the document `data-csg-channel="open"`.
 * - A page script cannot get events into the bridge: it dispatches forged handshake
 *   events (with its own ports) and posts look-alike messages to `window`, then we
 *   check from the bridge's side that nothing arrived: no notice host appears.
 * - A redaction shows a notice in the closed shadow root. Page JavaScript cannot reach a
 *   closed shadow root, and neither can puppeteer's `pierce/` (it walks `shadowRoot`,
 *   null when closed) nor, in Firefox, its `aria/` query (BiDi accessibility locators do
 *   not enter closed roots). So the test reads it the way only the extension can
 *   (`readNotices`: `scripting.executeScript` from an extension page, with the
 *   content-script-only `openOrClosedShadowRoot`), in both browsers; in Chromium it also
 *   checks the sentence is in the accessibility tree (CDP snapshot).
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
  POPUP_PATH,
  tabIdOf,
  type ExtensionBrowser,
} from './launch.ts';

const HOST = 'chat-stream-guard-notices';

interface NoticeView {
  texts: string[];
  live: string[];
  buttons: string[];
}

/**
 * Reads the closed shadow root the way only the extension can: from an extension page,
 * `scripting.executeScript` runs a function in the tab's ISOLATED world, where
 * `chrome.dom.openOrClosedShadowRoot` (Chromium) or `Element.openOrClosedShadowRoot`
 * (Firefox) opens closed shadow roots. Page JavaScript has neither.
 */
async function readNotices(target: ExtensionBrowser, pageUrl: string): Promise<NoticeView | null> {
  const extensionPage = await openExtensionPage(target, POPUP_PATH, 'body');
  try {
    const tabId = await tabIdOf(extensionPage, pageUrl);
    return await extensionPage.evaluate(async (id: number) => {
      const [result] = await chrome.scripting.executeScript({
        target: { tabId: id },
        func: () => {
          const host = document.querySelector('chat-stream-guard-notices');
          if (host === null) return null;
          const open = (
            globalThis as unknown as {
              chrome?: { dom?: { openOrClosedShadowRoot?(e: Element): ShadowRoot | null } };
            }
          ).chrome?.dom?.openOrClosedShadowRoot;
          const root =
            open !== undefined
              ? open(host)
              : (host as Element & { openOrClosedShadowRoot: ShadowRoot | null })
                  .openOrClosedShadowRoot;
          if (!root) return null;
          return {
            texts: Array.from(root.querySelectorAll('.notice .text'), (n) => n.textContent ?? ''),
            live: Array.from(
              root.querySelectorAll('[role="status"]'),
              (n) => n.getAttribute('aria-live') ?? '',
            ),
            buttons: Array.from(root.querySelectorAll('button'), (n) => n.textContent ?? ''),
          };
        },
      });
      return result?.result as NoticeView | null;
    }, tabId);
  } finally {
    await extensionPage.close();
  }
}

/** Everything a hostile page script can try through `window` after start-up. */
async function forgeFromPage(page: Page): Promise<void> {
  await page.evaluate(() => {
    const events = [
      {
        type: 'match',
        rule: 'github-pat',
        kind: 'secret',
        action: 'redact',
        start: 0,
        end: 4,
        pack: 'forged@1',
        matched: 'abcd',
      },
    ];
    const forged = {
      v: 1,
      type: 'guard-events',
      stream: { streamId: 'forged', direction: 'in', format: 'x', conversationId: '', turnId: '' },
      events,
    };
    for (const name of ['csg-page-channel-main', 'csg-page-channel-bridge']) {
      const channel = new MessageChannel();
      window.dispatchEvent(new MessageEvent(name, { cancelable: true, ports: [channel.port2] }));
      channel.port1.postMessage(forged);
      channel.port1.postMessage({ ...forged, stream: { ...forged.stream, streamId: 'p2' } });
    }
    window.postMessage(forged, '*');
    document.dispatchEvent(new CustomEvent('csg-page-channel-main', { detail: forged }));
  });
  // Give any (wrongly) accepted message time to reach the bridge and render.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
}

describe.each([
  { name: 'chromium', launch: launchChromium },
  { name: 'firefox', launch: launchFirefox },
])('private page channel and notices in $name', ({ launch }) => {
  let chat: MockChat;
  let target: ExtensionBrowser;
  let page: Page;

  beforeAll(async () => {
    chat = await startMockChat({ chunkDelayMs: 5 });
    target = await launch();
    page = await target.browser.newPage();
    await page.goto(`${chat.url}/`, { waitUntil: 'load' });
  });

  afterAll(async () => {
    await target?.close();
    await chat?.close();
  });

  it('opens the private channel at document_start', async () => {
    await page.waitForSelector('html[data-csg-channel="open"]', { timeout: 5_000 });
  });

  it('takes no event from page scripts: forged handshakes and posted messages show nothing', async () => {
    await forgeFromPage(page);
    expect(await page.$(HOST)).toBeNull();
  });

  it('shows a redaction notice in a closed shadow root', async () => {
    const token = fakeGithubToken();
    const text = await askMockChat(page, 'show me the secret');
    expect(text).not.toContain(token);
    await page.waitForSelector(HOST, { timeout: 5_000 });
    // Closed: page code sees no shadow root on the host, and the host is a direct child
    // of <html>, outside the page's own chat DOM.
    expect(
      await page.$eval(HOST, (host) => ({
        closed: host.shadowRoot === null,
        parentIsRoot: host.parentElement === document.documentElement,
      })),
    ).toEqual({ closed: true, parentIsRoot: true });

    const notice = await readNotices(target, chat.url);
    if (notice === null) throw new Error('no notice shadow root found from the extension side');
    expect(notice.texts).toHaveLength(1);
    expect(notice.texts[0]).toMatch(
      /^Chat Stream Guard redacted a secret \(.+\) from the answer\.$/,
    );
    expect(notice.texts.join(' ')).not.toContain(token.slice(4, 16));
    expect(notice.live).toEqual(['polite', 'polite']);
    expect(notice.buttons).toContain('Open Chat Stream Guard');

    if (target.name === 'chromium') {
      // The accessibility tree (what a screen reader gets) includes the closed shadow content.
      const tree = JSON.stringify(await page.accessibility.snapshot({ interestingOnly: false }));
      expect(tree).toContain(notice.texts[0]);
    }
  });
});
