/**
 * Z.ai's integrity-bound send end to end (issue 20 §1; WIRE-FORMATS-2.md §0.2,
 * §3.5), in real Chromium and Firefox with the built extension, against the
 * mock Z.ai (test/mock-chat/zai-routes.ts): its page signs each message with
 * WebCrypto as the site does, and its endpoint rejects a request whose
 * signature does not match its text.
 *
 * - a benign message goes out untouched, is accepted, and the answer (the
 *   token split across answer deltas) is rendered redacted;
 * - a secret asks instead of redacting: nothing leaves until the person
 *   answers, "Send as typed" sends exactly what was signed (accepted);
 * - "Edit message" sends nothing, the page's fetch fails like a network error,
 *   and the typed text is still in the input, focused, to edit.
 * No request the endpoint rejected is ever seen.
 */
import type { Page } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeGithubToken } from '../mock-chat/scripted-answers.ts';
import { startMockChat, type MockChat } from '../mock-chat/server.ts';
import type { ZaiReceived } from '../mock-chat/zai-routes.ts';
import { launchChromium, launchFirefox, type ExtensionBrowser } from './launch.ts';

const CONFIRM_HOST = 'chat-stream-guard-confirm';

/** Types `prompt`, submits, runs `whileAsked`, and waits for the answer's end. */
async function ask(page: Page, prompt: string, whileAsked?: () => Promise<void>) {
  const before = await page.$$eval('.msg[data-role="assistant"]', (all) => all.length);
  await page.type('#prompt', prompt);
  // Enter sends from the input, as on the site (focus stays there).
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
])('Z.ai integrity-bound send in $name', ({ launch }) => {
  let chat: MockChat;
  let target: ExtensionBrowser;
  let page: Page;
  const received = async () => (await (await fetch(`${chat.url}/zai/log`)).json()) as ZaiReceived[];

  beforeAll(async () => {
    chat = await startMockChat({ chunkDelayMs: 1 });
    target = await launch();
    page = await target.browser.newPage();
  });

  afterAll(async () => {
    await target?.close();
    await chat?.close();
  });

  it('a benign message leaves untouched and is accepted; the answer is guarded', async () => {
    await page.goto(`${chat.url}/zai`, { waitUntil: 'load' });
    const count = (await received()).length;
    const answer = await ask(page, 'hello “friend”, 数据 ✓');
    expect(answer.done).toBe('true');
    const sent = (await received()).slice(count);
    expect(sent.map((r) => r.accepted)).toEqual([true]);
    const token = fakeGithubToken();
    expect(answer.text).toContain('[redacted:github-pat]');
    expect(answer.text).not.toContain(token.slice(4, 16));
    expect(answer.text).toContain('(rotate it soon).');
  });

  it('a secret asks first; "Send as typed" sends exactly what was signed, accepted', async () => {
    await page.goto(`${chat.url}/zai`, { waitUntil: 'load' });
    const token = fakeGithubToken(4242);
    const count = (await received()).length;
    const prompt = `deploy with ${token} now`;
    const answer = await ask(page, prompt, async () => {
      await page.waitForSelector(CONFIRM_HOST, { timeout: 10_000 });
      expect((await received()).slice(count)).toHaveLength(0);
      // Focus starts on "Don't send"; Tab reaches "Send as typed" (the buttons cycle).
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
    });
    expect(answer.done).toBe('true');
    const sent = (await received()).slice(count);
    expect(sent.map((r) => r.accepted)).toEqual([true]);
    const body = JSON.parse((sent[0] as ZaiReceived).body) as {
      messages: { content: string }[];
      signature_prompt: string;
    };
    expect(body.signature_prompt).toBe(prompt);
    expect(body.messages.at(-1)?.content).toBe(prompt);
    expect(await page.$(CONFIRM_HOST)).toBeNull();
  });

  it('"Edit message" sends nothing; the text stays in the input, focused', async () => {
    await page.goto(`${chat.url}/zai`, { waitUntil: 'load' });
    const token = fakeGithubToken(777);
    const count = (await received()).length;
    const prompt = `my key ${token}`;
    const answer = await ask(page, prompt, async () => {
      await page.waitForSelector(CONFIRM_HOST, { timeout: 10_000 });
      // From "Don't send", Shift+Tab reaches "Edit message".
      await page.keyboard.down('Shift');
      await page.keyboard.press('Tab');
      await page.keyboard.up('Shift');
      await page.keyboard.press('Enter');
    });
    expect(answer.done).toBe('error');
    expect(answer.error).toMatch(/TypeError/);
    expect((await received()).slice(count)).toHaveLength(0);
    const input = await page.evaluate(() => {
      const node = document.getElementById('prompt') as HTMLTextAreaElement;
      return { value: node.value, focused: document.activeElement === node };
    });
    expect(input).toEqual({ value: prompt, focused: true });
  });

  it('the endpoint never saw a request it had to reject', async () => {
    expect((await received()).filter((r) => !r.accepted)).toEqual([]);
  });
});
