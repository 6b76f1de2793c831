/**
 * E2E (issue 18 §1, §3): answers no adapter claims, read through XMLHttpRequest and
 * WebSocket, in real Chromium and Firefox ESR with the built extension, on the mock
 * chat's `/hooks` page:
 *
 * - a chat-shaped XHR to `POST /api/stream` (an OpenAI-compatible proxy answering as
 *   `text/plain` with comment padding: generic-routes.ts), read from `responseText` on
 *   `progress`: guarded by the generic adapter, the secret never readable;
 * - OpenAI-style JSON chunks over a WebSocket (`/ws/json/`, one text frame each, the
 *   secret split across three): redacted, frame for frame;
 * - a binary frame that is not UTF-8 on a chat socket (`/ws/undecodable/`): none of it
 *   reaches the page, the "could not be decoded" notice shows and the audit log has the
 *   typed `wire-undecodable` error.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeGithubToken } from '../mock-chat/scripted-answers.ts';
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
const ANSWER = 'Sure. The deploy token is [redacted:github-pat]. Rotate it after the release.';

interface Read {
  /** Every raw view the page had: responseText snapshots, or socket messages as text. */
  views: string[];
  /** The answer's text, from the OpenAI-style deltas the page read. */
  text: string;
  end: string;
}

/** A chat-shaped XHR to `/api/stream`, read on `progress` as DeepSeek-style pages do. */
function askByXhr(page: Page): Promise<Read> {
  return page.evaluate(
    () =>
      new Promise<Read>((resolve) => {
        const views: string[] = [];
        const xhr = new XMLHttpRequest();
        xhr.onprogress = () => views.push(xhr.responseText);
        const done = (end: string) => () => {
          views.push(xhr.responseText);
          let text = '';
          for (const line of xhr.responseText.split('\n')) {
            if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
            const event = JSON.parse(line.slice(6)) as {
              choices?: { delta?: { content?: string } }[];
            };
            text += event.choices?.[0]?.delta?.content ?? '';
          }
          resolve({ views, text, end });
        };
        xhr.onload = done('load');
        xhr.onerror = done('error');
        xhr.open('POST', '/api/stream');
        xhr.setRequestHeader('content-type', 'application/json');
        xhr.send(
          JSON.stringify({
            model: 'proxy-model',
            stream: true,
            messages: [{ role: 'user', content: 'What is the deploy token?' }],
          }),
        );
      }),
  );
}

/** Opens `/ws/<path>/`, sends a chat request, reads every message until the close. */
function askBySocket(page: Page, path: string): Promise<Read> {
  return page.evaluate(
    (p: string) =>
      new Promise<Read>((resolve) => {
        const views: string[] = [];
        let text = '';
        const socket = new WebSocket(`ws://${location.host}/ws/${p}/`);
        socket.binaryType = 'arraybuffer';
        socket.onopen = () =>
          socket.send(JSON.stringify({ messages: [{ role: 'user', content: 'The token?' }] }));
        socket.onmessage = (event: MessageEvent) => {
          const data =
            typeof event.data === 'string'
              ? event.data
              : new TextDecoder().decode(event.data as ArrayBuffer);
          views.push(data);
          try {
            const chunk = JSON.parse(data) as { choices?: { delta?: { content?: string } }[] };
            text += chunk.choices?.[0]?.delta?.content ?? '';
          } catch {
            // not an answer chunk
          }
        };
        socket.onclose = (event: CloseEvent) => resolve({ views, text, end: `${event.code}` });
      }),
    path,
  );
}

describe.each([
  { name: 'chromium', launch: launchChromium },
  { name: 'firefox', launch: launchFirefox },
])('XHR and WebSocket answers no adapter claims, in $name', ({ launch }) => {
  const secret = fakeGithubToken();
  let chat: MockChat;
  let target: ExtensionBrowser;
  let page: Page;
  let extensionPage: Page;
  let tabId: number;

  beforeAll(async () => {
    chat = await startMockChat({ chunkDelayMs: 5 });
    target = await launch();
    page = await target.browser.newPage();
    await page.goto(`${chat.url}/hooks`, { waitUntil: 'load' });
    extensionPage = await openExtensionPage(target, POPUP_PATH, 'body');
    tabId = await tabIdOf(extensionPage, chat.url);
  });

  afterAll(async () => {
    await target?.close();
    await chat?.close();
  });

  it('a chat-shaped XHR to POST /api/stream (text/plain): guarded by the generic adapter', async () => {
    const read = await askByXhr(page);
    expect(read.end).toBe('load');
    expect(read.text).toBe(ANSWER);
    expect(read.views.length).toBeGreaterThan(2);
    for (const view of read.views) expect(view).not.toContain(secret.slice(4, 12));
    const records = await waitFor(
      async () => (await readAuditStore(extensionPage)) ?? [],
      (all) => all.some((r) => r.rule === 'github-pat'),
    );
    expect(records).toContainEqual(
      expect.objectContaining({ rule: 'github-pat', action: 'redact' }),
    );
  });

  it('OpenAI-style JSON chunks over a WebSocket: redacted, frame for frame', async () => {
    const read = await askBySocket(page, 'json');
    expect(read.text).toBe(ANSWER);
    expect(read.views).toHaveLength(5);
    for (const view of read.views) expect(view).not.toContain(secret.slice(4, 12));
    expect(read.end).toBe('1000');
  });

  it('a binary frame that is not UTF-8 on a chat socket: reported, none of it read', async () => {
    const read = await askBySocket(page, 'undecodable');
    expect(read.views).toEqual([]);
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
});
