/**
 * Smoke test of the built extension in real Chromium and Firefox ESR: the MAIN-world
 * hook runs before page scripts and looks native, the streamed answer of the local
 * mock chat reaches the page guarded (plain text, and the provider wire formats of
 * wire-format-cases.ts), other traffic passes through untouched, and the extension
 * pages render. Each browser is launched once for all of it.
 */

import type { Page } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSettings } from '../../src/background/default-settings.ts';
import { startMockChat, type MockChat } from '../mock-chat/server.ts';
import { fakeGithubToken, scriptedAnswer } from '../mock-chat/scripted-answers.ts';
import {
  askMockChat,
  launchChromium,
  launchFirefox,
  openExtensionPage,
  OPTIONS_PATH,
  POPUP_PATH,
  tabIdOf,
  type ExtensionBrowser,
} from './launch.ts';
import { describeWireFormats } from './wire-format-cases.ts';

interface PageProbe {
  guardMarker: string | null;
  fetchSource: string;
  fetchName: string;
  fetchLength: number;
}

describe.each([
  { name: 'chromium', launch: launchChromium },
  { name: 'firefox', launch: launchFirefox },
])('extension shell in $name', ({ launch }) => {
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

  it('runs the MAIN-world script before the first page script, with a native-looking fetch', async () => {
    const probe = await page.evaluate(
      () => (window as unknown as { __csgProbe: PageProbe }).__csgProbe,
    );
    expect(probe.guardMarker).toBe('on');
    expect(probe.fetchName).toBe('fetch');
    expect(probe.fetchLength).toBe(1);
    expect(probe.fetchSource).toMatch(/^function fetch\(\) \{\s*\[native code\]\s*\}$/);
    // toString itself still looks native after the patch.
    const toStringSource = await page.evaluate(() =>
      Function.prototype.toString.call(Function.prototype.toString),
    );
    expect(toStringSource).toMatch(/^function toString\(\) \{\s*\[native code\]\s*\}$/);
  });

  it('runs the ISOLATED-world bridge', async () => {
    await page.waitForSelector('html[data-csg-bridge="on"]', { timeout: 5_000 });
  });

  it('passes other requests through untouched', async () => {
    const expected = scriptedAnswer('secret').text;
    // Not a chat request (a bare word: no prompt, no messages), on a path no adapter knows.
    const unguarded = await page.evaluate(async () => {
      const res = await fetch('/api/echo', { method: 'POST', body: 'secret' });
      return res.text();
    });
    expect(unguarded).toBe(expected);
    const html = await page.evaluate(async () => (await fetch('/')).status);
    expect(html).toBe(200);
  });

  it('guards the answer to a chat request on a path no adapter knows (issue 18 §1)', async () => {
    const guarded = await page.evaluate(async () => {
      const res = await fetch('/api/echo', {
        method: 'POST',
        body: JSON.stringify({ prompt: 'secret' }),
      });
      return res.text();
    });
    expect(guarded).toContain('[redacted:github-pat]');
    expect(guarded).not.toContain(fakeGithubToken().slice(4, 14));
  });

  it('keeps status, headers, url and redirected on a guarded response', async () => {
    const meta = await page.evaluate(async () => {
      const res = await fetch('/api/chat', {
        method: 'POST',
        body: JSON.stringify({ prompt: 'hello there' }),
      });
      const text = await res.text();
      return {
        text,
        status: res.status,
        ok: res.ok,
        url: res.url,
        redirected: res.redirected,
        type: res.headers.get('content-type'),
        attack: res.headers.get('x-mock-attack'),
        length: res.headers.get('content-length'),
        origin: location.origin,
      };
    });
    expect(meta.status).toBe(200);
    expect(meta.ok).toBe(true);
    expect(meta.url).toBe(`${meta.origin}/api/chat`);
    expect(meta.redirected).toBe(false);
    expect(meta.type).toBe('text/plain; charset=utf-8');
    expect(meta.attack).toBe('plain');
    expect(meta.length).toBeNull();
    // Nothing in a harmless answer matches a rule: the text arrives unchanged.
    expect(meta.text).toBe(scriptedAnswer('hello there').text);
  });

  it('redacts a secret streamed across chunks before the page sees it', async () => {
    const token = fakeGithubToken();
    const text = await askMockChat(page, 'show me the secret');
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.slice(4, 16));
    expect(text).toContain('[redacted:github-pat]');
    expect(text).toContain('Remember to rotate it');
  });

  it('neutralises a Markdown image that would carry data to another host', async () => {
    const { payload } = scriptedAnswer('image');
    const text = await askMockChat(page, 'image');
    expect(text).toContain('Here is the summary you asked for.');
    expect(text).not.toContain(payload);
    expect(text).not.toContain('](https://');
  });

  it('strips Unicode tag characters from a streamed answer', async () => {
    const text = await askMockChat(page, 'tags');
    expect(text).toContain('The weather today is mild.');
    expect(text).toContain('Enjoy your day!');
    expect(text).not.toMatch(/[\u{E0000}-\u{E007F}]/u);
  });

  it('renders the popup for the chat tab', async () => {
    const popup = await openExtensionPage(target, POPUP_PATH, '#csg-popup h1');
    expect(await popup.$eval('#csg-popup h1', (node) => node.textContent)).toContain(
      'Chat Stream Guard',
    );
    const tabId = await tabIdOf(popup, chat.url);
    await openExtensionPage(target, `${POPUP_PATH}?tab=${tabId}`, '[data-testid="status"]', popup);
    const host = await popup.$eval('[data-testid="host"]', (node) => node.textContent);
    const status = await popup.$eval('[data-testid="status"]', (node) => ({
      state: (node as HTMLElement).dataset.state,
      text: node.textContent,
    }));
    expect(host).toBe(new URL(chat.url).host);
    expect(status.state).toBe('active');
    expect(status.text).toContain('active');
    await popup.close();
  });

  it('wrote the default settings on install', async () => {
    const popup = await openExtensionPage(target, OPTIONS_PATH, '[data-testid="version"]');
    expect(await popup.$eval('[data-testid="version"]', (node) => node.textContent)).toBe('0.1.0');
    const stored = await popup.evaluate(async () => {
      for (let i = 0; i < 50; i++) {
        const { settings } = await chrome.storage.local.get('settings');
        if (settings) return settings as unknown;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return null;
    });
    // Issue 4: the full settings schema, defaults on for the known chat sites (docs/settings.md).
    expect(stored).toEqual(defaultSettings());
    await popup.close();
  });

  describeWireFormats(() => ({ chat, page, target }));
});
