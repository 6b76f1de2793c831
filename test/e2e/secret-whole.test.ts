/**
 * E2E (issue 17, DESIGN.md §3.10) in real Chromium and Firefox ESR with the built
 * extension: the mock chat streams a `.env` whose OpenAI project key is longer than
 * the generic assignment rule's bound, and a GitHub token with a zero-width space
 * inside it, split across chunks. The page shows the names with the values redacted
 * whole (`OPENAI_API_KEY=[redacted:openai-api-key]`), no 8-unit fragment of either
 * secret, and the audit log names the specific rules.
 */

import type { Page } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockChat, type MockChat } from '../mock-chat/server.ts';
import { fakeGithubToken, fakeOpenAiKey } from '../mock-chat/scripted-answers.ts';
import { type LoggedRecord, readAuditStore } from './audit-store.ts';
import {
  askMockChat,
  launchChromium,
  launchFirefox,
  openExtensionPage,
  OPTIONS_PATH,
  type ExtensionBrowser,
} from './launch.ts';

/** Every 8-unit piece of `secret` that `text` shows. */
function fragments(text: string, secret: string): string[] {
  const found: string[] = [];
  for (let i = 0; i + 8 <= secret.length; i++) {
    const piece = secret.slice(i, i + 8);
    if (text.includes(piece)) found.push(piece);
  }
  return found;
}

describe.each([
  { name: 'chromium', launch: launchChromium },
  { name: 'firefox', launch: launchFirefox },
])('a secret redacted whole in $name', ({ launch }) => {
  let chat: MockChat;
  let target: ExtensionBrowser;
  let page: Page;
  let extensionPage: Page;

  beforeAll(async () => {
    chat = await startMockChat({ chunkDelayMs: 2 });
    target = await launch();
    extensionPage = await openExtensionPage(target, OPTIONS_PATH, 'body');
    page = await target.browser.newPage();
    await page.goto(`${chat.url}/`, { waitUntil: 'load' });
  });

  afterAll(async () => {
    await target?.close();
    await chat?.close();
  });

  it('keeps the names, redacts the values whole and names the specific rules', async () => {
    const key = fakeOpenAiKey();
    const token = fakeGithubToken(77);
    const text = await askMockChat(page, 'write the env file');
    expect(text).toContain('OPENAI_API_KEY=[redacted:openai-api-key]');
    expect(text).toContain('GITHUB_TOKEN=[redacted:github-pat]');
    expect(text).toContain('Keep it out of git.');
    expect(fragments(text, key)).toEqual([]);
    expect(fragments(text.replaceAll('\u200b', ''), token)).toEqual([]);

    let records: LoggedRecord[] = [];
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      records = (await readAuditStore(extensionPage)) ?? [];
      if (records.some((r) => r.rule === 'github-pat')) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const rules = records.map((r) => r.rule);
    expect(rules).toContain('openai-api-key');
    expect(rules).toContain('github-pat');
    expect(rules).not.toContain('password-assignment');
    // The generic assignment rule the key's redaction merged is listed beside it, by id.
    const openai = records.find((r) => r.rule === 'openai-api-key');
    expect(openai?.also?.length ?? 0).toBeGreaterThan(0);
    expect(openai?.also).not.toContain('openai-api-key');
    expect(JSON.stringify(records)).not.toContain(key.slice(8, 40));
  });
});
