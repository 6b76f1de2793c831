/**
 * Issue 20 §1, "any other site where rewriting fails is handled the same way and
 * reported in the popup", end to end in real Chromium and Firefox with the built
 * extension, against the mock sites of test/mock-chat/rewrite-refusal-routes.ts:
 *
 * - a site that answers 400 to a request the guard did NOT rewrite teaches nothing
 *   (no notice, no record, nothing stored, nothing in the popup);
 * - a generic integrity-bound site not flagged in advance (its server checks a digest
 *   of the text the page sent in a header): the first send with a secret is
 *   redacted, refused (403), and the guard says so in the page, writes a
 *   `send-rewrite-refused` audit record, remembers the site and the popup says so;
 * - the second send is asked about first (nothing leaves before the answer): "Send
 *   as typed" gets an answer; "Don't send" sends nothing;
 * - the popup's reset forgets the site.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeGithubToken } from '../mock-chat/scripted-answers.ts';
import type { RefusalReceived } from '../mock-chat/rewrite-refusal-routes.ts';
import { startMockChat, type MockChat } from '../mock-chat/server.ts';
import { type LoggedRecord, readAuditStore } from './audit-store.ts';
import {
  launchChromium,
  launchFirefox,
  openExtensionPage,
  POPUP_PATH,
  ROOT,
  tabIdOf,
  type ExtensionBrowser,
} from './launch.ts';
import { noticesOf, waitFor } from './page-notices.ts';

const MESSAGES = JSON.parse(
  readFileSync(join(ROOT, '_locales', 'en', 'messages.json'), 'utf8'),
) as Record<string, { message: string }>;
const REFUSED_NOTICE = MESSAGES.notice_rewrite_refused!.message;
const RULE = 'send-rewrite-refused';
const CONFIRM_HOST = 'chat-stream-guard-confirm';

/** Types `prompt`, submits, runs `whileAsked`, and waits for the answer's end. */
async function send(page: Page, prompt: string, whileAsked?: () => Promise<void>) {
  const before = await page.$$eval('.msg[data-role="assistant"]', (all) => all.length);
  await page.type('#prompt', prompt);
  await page.keyboard.press('Enter');
  await whileAsked?.();
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
    (all, n) => {
      const node = all[n] as HTMLElement;
      return { done: node.dataset.done, text: node.textContent ?? '', error: node.dataset.error };
    },
    before,
  );
}

describe.each([
  { name: 'chromium', launch: launchChromium },
  { name: 'firefox', launch: launchFirefox },
])('a site that refuses rewritten requests, in $name', ({ launch }) => {
  let chat: MockChat;
  let target: ExtensionBrowser;
  let page: Page;
  let extensionPage: Page;
  const log = async (site: 'bound' | 'picky') =>
    (await (await fetch(`${chat.url}/${site}/log`)).json()) as RefusalReceived[];
  const stored = () =>
    extensionPage.evaluate(async () => {
      const all = await chrome.storage.local.get('rewriteRefusals');
      return (all.rewriteRefusals ?? {}) as Record<string, { format: string; status: number }>;
    });
  const refusedRecords = async () =>
    ((await readAuditStore(extensionPage)) ?? []).filter((r: LoggedRecord) => r.rule === RULE);
  const popup = async () => {
    const tabId = await tabIdOf(extensionPage, chat.url);
    return openExtensionPage(
      target,
      `${POPUP_PATH}?tab=${String(tabId)}`,
      '[data-testid="status"]',
    );
  };
  const site = () => new URL(chat.url).hostname;

  beforeAll(async () => {
    chat = await startMockChat({ chunkDelayMs: 1 });
    target = await launch();
    extensionPage = await openExtensionPage(target, POPUP_PATH, 'body');
    page = await target.browser.newPage();
  });

  afterAll(async () => {
    await target?.close();
    await chat?.close();
  });

  it('a 400 for another reason, on a request the guard did not rewrite, teaches nothing', async () => {
    await page.goto(`${chat.url}/picky-chat`, { waitUntil: 'load' });
    const answer = await send(page, 'what is the weather like');
    expect(answer).toMatchObject({ done: 'error', error: 'HTTP 400' });
    const sent = await log('picky');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toContain('what is the weather like');
    // Give a wrongly learned refusal time to arrive before looking for none.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await stored()).toEqual({});
    expect(await refusedRecords()).toEqual([]);
    const tabId = await tabIdOf(extensionPage, chat.url);
    expect(await noticesOf(extensionPage, tabId)).not.toContain(REFUSED_NOTICE);
    const view = await popup();
    expect(await view.$('[data-testid="rewrite-refused"]')).toBeNull();
    await view.close();
  });

  it('the first protected send is refused: notice, audit record, the site remembered, the popup says so', async () => {
    await page.goto(`${chat.url}/bound-chat`, { waitUntil: 'load' });
    await page.waitForFunction(() => document.documentElement.dataset.csgBridge === 'on');
    const token = fakeGithubToken(5150);
    const answer = await send(page, `deploy with ${token} now`);
    expect(answer).toMatchObject({ done: 'error', error: 'HTTP 403' });
    const sent = await log('bound');
    expect(sent.map((r) => r.accepted)).toEqual([false]);
    // The guard did rewrite it (that is why it was refused): the token never left.
    expect(sent[0]?.body).not.toContain(token.slice(4, 20));

    const tabId = await tabIdOf(extensionPage, chat.url);
    const notices = await waitFor(
      () => noticesOf(extensionPage, tabId),
      (all) => all.includes(REFUSED_NOTICE),
    );
    expect(notices).toContain(REFUSED_NOTICE);
    const records = await waitFor(refusedRecords, (all) => all.length > 0);
    expect(records).toEqual([
      expect.objectContaining({ rule: RULE, action: 'error', format: 'openai-chat', digest: '' }),
    ]);
    expect(await stored()).toEqual({
      [site()]: expect.objectContaining({ format: 'openai-chat', status: 403 }),
    });
    const view = await popup();
    await view.waitForSelector('[data-testid="rewrite-refused"]', { timeout: 5_000 });
    await view.close();
  });

  it('the next send is asked about first; "Send as typed" gets an answer', async () => {
    await page.goto(`${chat.url}/bound-chat`, { waitUntil: 'load' });
    const token = fakeGithubToken(6160);
    const prompt = `use ${token} please`;
    const count = (await log('bound')).length;
    const answer = await send(page, prompt, async () => {
      await page.waitForSelector(CONFIRM_HOST, { timeout: 10_000 });
      expect((await log('bound')).slice(count)).toHaveLength(0);
      // Focus starts on "Don't send"; Tab reaches "Send as typed" (the buttons cycle).
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
    });
    expect(answer.done).toBe('true');
    expect(answer.text.length).toBeGreaterThan(0);
    const sent = (await log('bound')).slice(count);
    expect(sent.map((r) => r.accepted)).toEqual([true]);
    const body = JSON.parse(sent[0]!.body) as { messages: { content: string }[] };
    expect(body.messages.at(-1)?.content).toBe(prompt);
    // Sent as the person chose: nothing was refused, so nothing more was recorded.
    expect(await refusedRecords()).toHaveLength(1);
  });

  it('"Don\'t send" sends nothing', async () => {
    await page.goto(`${chat.url}/bound-chat`, { waitUntil: 'load' });
    const count = (await log('bound')).length;
    const answer = await send(page, `key ${fakeGithubToken(7170)}`, async () => {
      await page.waitForSelector(CONFIRM_HOST, { timeout: 10_000 });
      await page.keyboard.press('Enter');
    });
    expect(answer.done).toBe('error');
    expect((await log('bound')).slice(count)).toHaveLength(0);
  });

  it('the popup forgets the site: the next protected send is rewritten again', async () => {
    const view = await popup();
    await view.waitForSelector('[data-testid="rewrite-refused-reset"]', { timeout: 5_000 });
    await view.click('[data-testid="rewrite-refused-reset"]');
    await view.waitForFunction(
      () => document.querySelector('[data-testid="rewrite-refused"]') === null,
    );
    await view.close();
    expect(await stored()).toEqual({});

    await page.goto(`${chat.url}/bound-chat`, { waitUntil: 'load' });
    const count = (await log('bound')).length;
    const token = fakeGithubToken(8180);
    const answer = await send(page, `again ${token}`);
    expect(answer).toMatchObject({ done: 'error', error: 'HTTP 403' });
    const sent = (await log('bound')).slice(count);
    expect(sent.map((r) => r.accepted)).toEqual([false]);
    expect(sent[0]?.body).not.toContain(token.slice(4, 20));
    await waitFor(stored, (all) => Object.keys(all).length > 0);
    expect(Object.keys(await stored())).toEqual([site()]);
  });
});
