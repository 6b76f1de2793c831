/**
 * Reference only from the popup, and marks that survive a reload (issue 5 §3, §5),
 * in real Chromium and Firefox with the built extension, against the mock chat's
 * saved conversation (test/mock-chat/reference-only-routes.ts), which the page
 * sends back in full on every turn (the server records every body):
 * - the popup lists the tab's messages; marking the answer there leaves it out of
 *   the next request while the page still shows it;
 * - after a reload of the page the mark still applies, and the popup shows it;
 * - what the extension stored holds digests, not the answer's text or the URL;
 * - unmarking from the popup sends the answer again.
 */
import type { Page } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_CHAT, REFERENCE_CHAT_ID } from '../mock-chat/reference-only-routes.ts';
import { startMockChat, type MockChat } from '../mock-chat/server.ts';
import {
  OPTIONS_PATH,
  POPUP_PATH,
  launchChromium,
  launchFirefox,
  openExtensionPage,
  tabIdOf,
  type ExtensionBrowser,
} from './launch.ts';

interface SentMessage {
  role: string;
  content: string;
}

const ANSWER = REFERENCE_CHAT[1].content;
const TOGGLE = '[data-testid="reference-only-toggle"]';

/** Submits `prompt` in the mock chat; resolves with the answer's state once it is done. */
async function ask(page: Page, prompt: string): Promise<string> {
  const before = await page.$$eval('.msg[data-role="assistant"]', (all) => all.length);
  await page.type('#prompt', prompt);
  await page.click('#composer button[type="submit"]');
  await page.waitForFunction(
    (n) => {
      const last = document.querySelectorAll<HTMLElement>('.msg[data-role="assistant"]')[n];
      return last !== undefined && last.dataset.done !== 'false';
    },
    { timeout: 15_000 },
    before,
  );
  return page.$$eval(
    '.msg[data-role="assistant"]',
    (all, n) => (all[n] as HTMLElement).dataset.done ?? '',
    before,
  );
}

async function pressedStates(popup: Page): Promise<(string | null)[]> {
  return popup.$$eval(TOGGLE, (all) => all.map((b) => b.getAttribute('aria-pressed')));
}

describe.each([
  { name: 'chromium', launch: launchChromium },
  { name: 'firefox', launch: launchFirefox },
])('reference only from the popup in $name', ({ launch }) => {
  let chat: MockChat;
  let target: ExtensionBrowser;
  let page: Page;
  let extensionPage: Page;

  const messagesSentSince = (count: number): SentMessage[] => {
    const sent = chat.received().slice(count);
    expect(sent).toHaveLength(1);
    return (JSON.parse((sent[0] as { body: string }).body) as { messages: SentMessage[] }).messages;
  };

  const openSavedChat = async () => {
    await page.waitForSelector('#transcript[data-loaded="true"]', { timeout: 10_000 });
    await page.waitForFunction(() => document.documentElement.dataset.csgBridge === 'on');
  };

  /** The popup as a page about the chat tab (`?tab=`), once its list is there. */
  const openPopup = async (): Promise<Page> => {
    const tabId = await tabIdOf(extensionPage, `${chat.url}/chat`);
    return openExtensionPage(
      target,
      `${POPUP_PATH}?tab=${String(tabId)}`,
      '[data-testid="reference-only-list"]',
    );
  };

  beforeAll(async () => {
    chat = await startMockChat({ chunkDelayMs: 1 });
    target = await launch();
    extensionPage = await openExtensionPage(target, OPTIONS_PATH, 'body');
    page = await target.browser.newPage();
  });

  afterAll(async () => {
    await target?.close();
    await chat?.close();
  });

  it('marks the answer from the popup: the next request omits it, the page still shows it', async () => {
    await page.goto(`${chat.url}/chat?chat=${REFERENCE_CHAT_ID}`, { waitUntil: 'load' });
    await openSavedChat();
    const popup = await openPopup();
    const rows = await popup.$$eval('[data-testid="reference-only-item"]', (all) =>
      all.map((row) => row.textContent ?? ''),
    );
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain(REFERENCE_CHAT[0].content);
    expect(rows[1]).toContain('Rugosa roses are the hardiest');
    expect(await pressedStates(popup)).toEqual(['false', 'false']);

    await popup.click(`${TOGGLE}[data-index="1"]`);
    await popup.waitForSelector(`${TOGGLE}[data-index="1"][aria-pressed="true"]`);
    await popup.close();

    const count = chat.received().length;
    expect(await ask(page, 'And tulips?')).toBe('true');
    const sent = messagesSentSince(count);
    expect(sent).toEqual([
      { role: 'user', content: REFERENCE_CHAT[0].content },
      { role: 'user', content: 'And tulips?' },
    ]);
    const shown = await page.$eval('.msg[data-role="assistant"]', (el) => el.textContent ?? '');
    expect(shown).toContain('Rugosa roses are the hardiest');
    // The page's own conversation still holds the answer as it was.
    const kept = await page.evaluate(
      () =>
        (window as unknown as { __chat: { messages: SentMessage[] } }).__chat.messages[1]?.content,
    );
    expect(kept).toBe(ANSWER);
  });

  it('what is stored is digests: no text of the answer, no URL', async () => {
    const stored = async () =>
      (await extensionPage.evaluate(() => chrome.storage.local.get(null))) as Record<
        string,
        unknown
      >;
    const siteKey = `referenceOnly:${new URL(chat.url).hostname}`;
    // Bound to the sent text by the request above: two digests, no longer pending.
    await expect
      .poll(
        async () => {
          const site = (await stored())[siteKey] as
            { conversations: Record<string, { marks: unknown[] }> } | undefined;
          return Object.values(site?.conversations ?? {}).flatMap((c) => c.marks);
        },
        { timeout: 5_000 },
      )
      .toEqual([
        {
          position: 1,
          pending: false,
          digests: [
            expect.stringMatching(/^[0-9a-f]{32}$/),
            expect.stringMatching(/^[0-9a-f]{32}$/),
          ],
        },
      ]);
    const all = JSON.stringify(await stored());
    for (const text of ['Rugosa', 'hardiest', REFERENCE_CHAT[0].content, REFERENCE_CHAT_ID]) {
      expect(all).not.toContain(text);
    }
  });

  it('after a reload the mark still applies, and the popup shows it', async () => {
    await page.reload({ waitUntil: 'load' });
    await openSavedChat();
    const popup = await openPopup();
    await popup.waitForSelector(`${TOGGLE}[data-index="1"][aria-pressed="true"]`);
    expect(await pressedStates(popup)).toEqual(['false', 'true']);
    await popup.close();

    const count = chat.received().length;
    expect(await ask(page, 'What about lilies?')).toBe('true');
    expect(messagesSentSince(count)).toEqual([
      { role: 'user', content: REFERENCE_CHAT[0].content },
      { role: 'user', content: 'What about lilies?' },
    ]);
    const shown = await page.$eval('.msg[data-role="assistant"]', (el) => el.textContent ?? '');
    expect(shown).toContain('Rugosa roses are the hardiest');
  });

  it('unmarking from the popup sends the answer again', async () => {
    await page.reload({ waitUntil: 'load' });
    await openSavedChat();
    const popup = await openPopup();
    await popup.waitForSelector(`${TOGGLE}[data-index="1"][aria-pressed="true"]`);
    await popup.click(`${TOGGLE}[data-index="1"]`);
    await popup.waitForSelector(`${TOGGLE}[data-index="1"][aria-pressed="false"]`);
    await popup.close();

    const count = chat.received().length;
    expect(await ask(page, 'And peonies?')).toBe('true');
    expect(messagesSentSince(count)).toEqual([
      { role: 'user', content: REFERENCE_CHAT[0].content },
      { role: 'assistant', content: ANSWER },
      { role: 'user', content: 'And peonies?' },
    ]);
  });
});
