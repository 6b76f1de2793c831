/**
 * E2E (issue 18, "no silent path"), in real Chromium and Firefox ESR with the built
 * extension, on the mock chat's `/no-silent/` page (test/mock-chat/no-silent-path-routes.ts):
 *
 * - an EventSource in no known format (plain-text `piece` events): guarded by the generic
 *   adapter from its first event, so the secret split across events is redacted whole,
 *   the Markdown exfil image is neutralised (the attacker gets no hit), the audit
 *   records say `generic` and the popup counts one generic answer;
 * - a binary frame that is not UTF-8 on a socket with no chat sign: it reaches the page
 *   as sent (it may be no answer), and the person is told (the "let through unchecked"
 *   notice, a `wire-undecodable-passed` audit record);
 * - a service worker registered for the page: registration works as without the
 *   extension, and the person is told (notice, `service-worker-unhooked` record).
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noSilentSecret } from '../mock-chat/no-silent-path-routes.ts';
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
const PASSED_NOTICE = MESSAGES.notice_undecodable_passed!.message;
const WORKER_NOTICE = MESSAGES.notice_service_worker!.message;

const records = (extensionPage: Page, ready: (all: LoggedRecord[]) => boolean) =>
  waitFor(async () => (await readAuditStore(extensionPage)) ?? [], ready);

describe.each([
  { name: 'chromium', launch: launchChromium },
  { name: 'firefox', launch: launchFirefox },
])('no silent path, in $name', ({ launch }) => {
  const secret = noSilentSecret();
  let chat: MockChat;
  let target: ExtensionBrowser;
  let page: Page;
  let extensionPage: Page;
  let tabId: number;

  beforeAll(async () => {
    chat = await startMockChat({ chunkDelayMs: 5 });
    target = await launch();
    page = await target.browser.newPage();
    await page.goto(`${chat.url}/no-silent/`, { waitUntil: 'load' });
    extensionPage = await openExtensionPage(target, POPUP_PATH, 'body');
    tabId = await tabIdOf(extensionPage, chat.url);
  });

  afterAll(async () => {
    await target?.close();
    await chat?.close();
  });

  it('an EventSource in no known format: the secret redacted whole, the exfil image neutralised, recorded as generic', async () => {
    const read = await page.evaluate(() =>
      (
        window as unknown as {
          readEventSource(): Promise<{
            text: string;
            html: string;
            images: string[];
            error: boolean;
          }>;
        }
      ).readEventSource(),
    );
    const views = await page.evaluate(() =>
      (window as unknown as { __views: string[] }).__views.splice(0),
    );
    expect(read.error).toBe(false);
    expect(read.text).toContain('The deploy token is [redacted:github-pat]. Rotate it.');
    expect(read.text).toContain('Anything else?');
    for (const view of [read.text, read.html, ...views]) {
      for (let at = 0; at + 8 <= secret.length; at += 4) {
        expect(view).not.toContain(secret.slice(at, at + 8));
      }
      expect(view).not.toContain(chat.attacker.url);
    }
    expect(read.images).toEqual([]);
    expect(chat.attacker.hits()).toBe(0);

    const logged = await records(extensionPage, (all) =>
      ['github-pat', 'markdown-image-exfil'].every((rule) => all.some((r) => r.rule === rule)),
    );
    expect(logged).toContainEqual(
      expect.objectContaining({ rule: 'github-pat', action: 'redact', format: 'generic' }),
    );
    expect(logged).toContainEqual(
      expect.objectContaining({ rule: 'markdown-image-exfil', kind: 'exfil', format: 'generic' }),
    );

    // Issue 18, "Done when": the popup counts the answer under the generic adapter.
    const popup = await openExtensionPage(
      target,
      `${POPUP_PATH}?tab=${tabId}`,
      '[data-testid="answers-guarded"]',
    );
    await popup.waitForFunction(
      () => document.querySelector('[data-testid="answers-guarded"]')?.textContent === '1',
      { timeout: 10_000 },
    );
    const formats = await popup.$$eval('[data-testid="answers-format"]', (nodes) =>
      nodes.map((node) => (node as HTMLElement).dataset.format),
    );
    expect(formats).toEqual(['generic']);
    await popup.close();
    // Firefox took 11 to 15 s for this case here (two cores shared with other runs).
  }, 60_000);

  it('a binary frame that is not UTF-8, on a socket with no chat sign: passed as sent, and told', async () => {
    const read = await page.evaluate(() =>
      (
        window as unknown as { readBinarySocket(): Promise<{ sizes: number[]; code: number }> }
      ).readBinarySocket(),
    );
    // page-hook-routes.ts `chatSocketFrames('undecodable')`: 3 bytes, then the token.
    expect(read).toEqual({ sizes: [3 + secret.length], code: 1000 });
    const notices = await waitFor(
      () => noticesOf(extensionPage, tabId),
      (shown) => shown.includes(PASSED_NOTICE),
    );
    expect(notices).toContain(PASSED_NOTICE);
    const logged = await records(extensionPage, (all) =>
      all.some((r) => r.rule === 'wire-undecodable-passed'),
    );
    expect(logged).toContainEqual(
      expect.objectContaining({
        rule: 'wire-undecodable-passed',
        kind: 'error',
        format: 'generic',
      }),
    );
  });

  it('a service worker: registered as without the extension, and the person is told', async () => {
    const scope = await page.evaluate(() =>
      (window as unknown as { registerWorker(): Promise<string> }).registerWorker(),
    );
    expect(scope).toBe(`${chat.url}/no-silent/`);
    const notices = await waitFor(
      () => noticesOf(extensionPage, tabId),
      (shown) => shown.includes(WORKER_NOTICE),
    );
    expect(notices).toContain(WORKER_NOTICE);
    const logged = await records(extensionPage, (all) =>
      all.some((r) => r.rule === 'service-worker-unhooked'),
    );
    expect(logged).toContainEqual(
      expect.objectContaining({ rule: 'service-worker-unhooked', format: 'service-worker' }),
    );

    // A page loaded under the worker's control is told from the start (once per page).
    await page.reload({ waitUntil: 'load' });
    const controlled = await page.evaluate(() => navigator.serviceWorker.controller !== null);
    expect(controlled).toBe(true);
    const again = await waitFor(
      () => noticesOf(extensionPage, tabId),
      (shown) => shown.includes(WORKER_NOTICE),
    );
    expect(again.filter((text) => text === WORKER_NOTICE)).toHaveLength(1);
  });
});
