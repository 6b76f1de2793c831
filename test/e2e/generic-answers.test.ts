/**
 * E2E (issue 18 §1): answers no adapter claims by URL or content type, in real Chromium
 * and Firefox ESR with the built extension, on the mock chat's `/generic` page
 * (test/mock-chat/generic-routes.ts). The page posts a chat request with `fetch`:
 *
 * - to `POST /api/stream`, an OpenAI-compatible proxy answering as `text/plain` with
 *   2 KB of comment padding, a `{"status":"connected"}` first event and the secret split
 *   across `choices[].delta` chunks: the page never reads the secret (neither in the
 *   bytes it read nor in what it rendered), and the audit log has the redaction;
 * - to `POST /api/stream-binary`, a binary answer: the page gets none of it, the
 *   "could not be decoded" notice shows, and the audit log has the typed error;
 * - to `POST /api/stream-generic`, an SSE answer in no known shape: the generic adapter
 *   guards it, and the popup counts the site's answers: 2 guarded (OpenAI chat 1,
 *   generic 1), 1 could not be decoded (issue 18, "Done when").
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { genericRouteSecret } from '../mock-chat/generic-routes.ts';
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
const UNDECODABLE_NOTICE = MESSAGES.notice_undecodable!.message;

interface Asked {
  text: string;
  bytes: number;
  done: string;
  views: string[];
}

async function ask(page: Page, path: string): Promise<Asked> {
  const answer = await page.evaluate(
    (p: string) =>
      (
        window as unknown as {
          askGeneric(p: string): Promise<{ text: string; bytes: number; done: string }>;
        }
      ).askGeneric(p),
    path,
  );
  const views = await page.evaluate(() =>
    (window as unknown as { __views: string[] }).__views.splice(0),
  );
  return { ...answer, views };
}

describe.each([
  { name: 'chromium', launch: launchChromium },
  { name: 'firefox', launch: launchFirefox },
])('answers in no known format, in $name', ({ launch }) => {
  const secret = genericRouteSecret();
  let chat: MockChat;
  let target: ExtensionBrowser;
  let page: Page;
  let extensionPage: Page;
  let tabId: number;

  beforeAll(async () => {
    chat = await startMockChat({ chunkDelayMs: 5 });
    target = await launch();
    page = await target.browser.newPage();
    await page.goto(`${chat.url}/generic`, { waitUntil: 'load' });
    extensionPage = await openExtensionPage(target, POPUP_PATH, 'body');
    tabId = await tabIdOf(extensionPage, chat.url);
  });

  afterAll(async () => {
    await target?.close();
    await chat?.close();
  });

  it('an OpenAI-compatible proxy at POST /api/stream, as text/plain: the page never sees the secret', async () => {
    const answer = await ask(page, '/api/stream');
    expect(answer.done).toBe('true');
    expect(answer.text).toBe(
      'Sure. The deploy token is [redacted:github-pat]. Rotate it after the release.',
    );
    expect(answer.views.length).toBeGreaterThan(3);
    for (const view of answer.views) expect(view).not.toContain(secret.slice(4, 14));

    const records = await waitFor(
      async () => (await readAuditStore(extensionPage)) ?? [],
      (all) => all.some((r) => r.rule === 'github-pat'),
    );
    expect(records).toContainEqual(
      expect.objectContaining({ rule: 'github-pat', action: 'redact', format: 'openai-chat' }),
    );
  });

  it('a binary answer to a chat request: none of it reaches the page, and the person is told', async () => {
    const answer = await ask(page, '/api/stream-binary');
    expect(answer.bytes).toBe(0);
    for (const view of answer.views) expect(view).not.toContain(secret.slice(4, 14));

    const notices = await waitFor(
      () => noticesOf(extensionPage, tabId),
      (shown) => shown.includes(UNDECODABLE_NOTICE),
    );
    expect(notices).toContain(UNDECODABLE_NOTICE);
    const records = await waitFor(
      async () => (await readAuditStore(extensionPage)) ?? [],
      (all) => all.some((r: LoggedRecord) => r.rule === 'wire-undecodable'),
    );
    expect(records).toContainEqual(
      expect.objectContaining({
        rule: 'wire-undecodable',
        kind: 'error',
        action: 'error',
        format: 'generic',
      }),
    );
  });

  it('an answer in no known shape is guarded as generic, and the popup counts the answers by how', async () => {
    const answer = await ask(page, '/api/stream-generic');
    expect(answer.done).toBe('true');
    expect(answer.bytes).toBeGreaterThan(0);

    const popup = await openExtensionPage(
      target,
      `${POPUP_PATH}?tab=${tabId}`,
      '[data-testid="answers-guarded"]',
    );
    await popup.waitForFunction(
      () =>
        document.querySelector('[data-testid="answers-guarded"]')?.textContent === '2' &&
        document.querySelector('[data-testid="answers-undecodable"]')?.textContent === '1',
      { timeout: 10_000 },
    );
    const formats = await popup.$$eval('[data-testid="answers-format"]', (nodes) =>
      nodes.map((node) => [(node as HTMLElement).dataset.format, node.textContent]),
    );
    expect(formats).toEqual([
      ['openai-chat', 'OpenAI chat 1'],
      ['generic', ', generic 1'],
    ]);
    const summary = await popup.$eval('.csg-answers-summary', (node) => node.textContent);
    expect(summary).toBe(
      'Answers guarded on this site: 2 (OpenAI chat 1, generic 1) · could not be decoded: 1',
    );
    const note = await popup.$eval('[data-testid="answers-generic-note"]', (n) => n.textContent);
    expect(note).toBe(MESSAGES.popup_answers_generic_note!.message);
    await popup.close();
  });
});
