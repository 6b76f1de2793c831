/**
 * E2E (issue 18 §2, every context): an answer read from a frame the page made or from a
 * worker, in real Chromium and Firefox ESR with the built extension, on the mock chat's
 * `/contexts` page (contexts.html). Each context asks the mock OpenAI endpoint for the
 * scripted secret, split across stream events, and reads the stream itself: what it read
 * shows the redaction, and no text it could read while the answer streamed holds any
 * 8-character piece of the secret.
 */

import type { Page } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockChat, type MockChat } from '../mock-chat/server.ts';
import { fakeGithubToken } from '../mock-chat/scripted-answers.ts';
import { launchChromium, launchFirefox, type ExtensionBrowser } from './launch.ts';

interface Read {
  text: string;
  views: string[];
  error: string;
}

function askIn(page: Page, kind: string): Promise<Read> {
  return page.evaluate(
    (k: string) =>
      (window as unknown as { askIn(k: string, p: string): Promise<Read> }).askIn(
        k,
        'show me the secret',
      ),
    kind,
  );
}

/** Every 8-unit piece of `secret` (DESIGN.md §3.10: no fragment survives). */
function pieces(secret: string): string[] {
  const out: string[] = [];
  for (let at = 0; at + 8 <= secret.length; at++) out.push(secret.slice(at, at + 8));
  return out;
}

describe.each([
  { name: 'chromium', launch: launchChromium },
  { name: 'firefox', launch: launchFirefox },
])('answers read from frames in $name', ({ launch }) => {
  const token = fakeGithubToken();
  let chat: MockChat;
  let target: ExtensionBrowser;
  let page: Page;

  beforeAll(async () => {
    chat = await startMockChat({ chunkDelayMs: 5 });
    target = await launch();
    page = await target.browser.newPage();
    await page.goto(`${chat.url}/contexts`, { waitUntil: 'load' });
  });

  afterAll(async () => {
    await target?.close();
    await chat?.close();
  });

  it.each(['frame-sync', 'frame-indexed', 'frame-srcdoc', 'frame-blob'])(
    'redacts a secret split across events, read in a %s',
    async (kind) => {
      const read = await askIn(page, kind);
      expect(read.error).toBe('');
      expect(read.text).toContain('[redacted:github-pat]');
      expect(read.text).toContain('Remember to rotate it');
      expect(read.views.length).toBeGreaterThan(3);
      for (const view of [read.text, ...read.views]) {
        for (const piece of pieces(token)) expect(view).not.toContain(piece);
      }
    },
  );
});
