/**
 * The demo's scripted attacks against the built extension in real Chromium and Firefox
 * (issue 4 "Demo and tests"): on a chat page that renders Markdown, and on pages built
 * on the official `openai` and `@anthropic-ai/sdk` browser clients, every attack is
 * neutralised in the rendered DOM, and the attacker endpoint gets zero hits — also when
 * a poisoned conversation is reloaded from history.
 */
import type { Page } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAnswer } from '../mock-chat/demo-attacks.ts';
import { SAVED_CHAT_ID } from '../mock-chat/demo-routes.ts';
import { fakeGithubToken } from '../mock-chat/scripted-answers.ts';
import { startMockChat, type MockChat } from '../mock-chat/server.ts';
import { launchChromium, launchFirefox, type ExtensionBrowser } from './launch.ts';

/** Any Unicode tag character (U+E0000–E007F). */
const TAG_CHARACTER = /[\u{E0000}-\u{E007F}]/u;

interface RenderedAnswer {
  done: string;
  text: string;
  html: string;
  images: string[];
}

/** Sends `prompt` on the page's composer and waits for the answer to finish. */
async function ask(page: Page, prompt: string): Promise<RenderedAnswer> {
  const before = await page.$$eval('.msg[data-role="assistant"]', (all) => all.length);
  await page.type('#prompt', prompt);
  await page.click('#composer button[type="submit"]');
  await page.waitForFunction(
    (n) => {
      const answers = document.querySelectorAll<HTMLElement>('.msg[data-role="assistant"]');
      const last = answers[n];
      return last !== undefined && last.dataset.done !== 'false';
    },
    { timeout: 15_000 },
    before,
  );
  return page.$$eval(
    '.msg[data-role="assistant"]',
    (all, n) => {
      const last = all[n] as HTMLElement;
      return {
        done: last.dataset.done ?? '',
        text: last.textContent ?? '',
        html: last.innerHTML,
        images: [...last.querySelectorAll('img')].map((img) => img.getAttribute('src') ?? ''),
      };
    },
    before,
  );
}

/** Gives a rendered image time to be requested before the hit count is read. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe.each([
  { name: 'chromium', launch: launchChromium },
  { name: 'firefox', launch: launchFirefox },
])('demo attacks in $name', ({ launch }) => {
  let chat: MockChat;
  let target: ExtensionBrowser;
  let page: Page;

  beforeAll(async () => {
    chat = await startMockChat({ chunkDelayMs: 2 });
    target = await launch();
    page = await target.browser.newPage();
  });

  afterAll(async () => {
    await target?.close();
    await chat?.close();
  });

  describe('on the Markdown chat page', () => {
    beforeAll(async () => {
      await page.goto(`${chat.url}/chat`, { waitUntil: 'load' });
    });

    it('redacts a secret split across stream events', async () => {
      const token = demoAnswer('secret', chat.attacker.url).payload;
      const answer = await ask(page, 'show me the secret');
      expect(answer.done).toBe('true');
      expect(answer.text).not.toContain(token);
      expect(answer.text).not.toContain(token.slice(0, 12));
      expect(answer.text).toContain('[redacted:');
    });

    it('neutralises a Markdown exfiltration image: the attacker gets no hit', async () => {
      const answer = await ask(page, 'exfil the notes');
      await settle();
      expect(answer.done).toBe('true');
      expect(answer.images.filter((src) => src.includes(chat.attacker.url))).toEqual([]);
      expect(answer.html).not.toContain(chat.attacker.url);
      expect(chat.attacker.hits()).toBe(0);
    });

    it('strips invisible tag text', async () => {
      const answer = await ask(page, 'invisible text please');
      expect(answer.done).toBe('true');
      expect(TAG_CHARACTER.test(answer.text)).toBe(false);
      expect(answer.text).toContain('The forecast is mild and dry.');
    });

    it('keeps a harmless answer as it was sent', async () => {
      const expected = demoAnswer('hello', chat.attacker.url).text;
      const answer = await ask(page, 'hello');
      expect(answer.done).toBe('true');
      expect(answer.html).toContain('<strong>mock chat</strong>');
      expect(answer.html).toContain('href="https://example.org/readme"');
      expect(answer.text).toContain('Try secret, exfil, invisible or injection.');
      expect(expected).toContain('**mock chat**');
    });

    it('reloading a poisoned conversation shows neither its secret nor its image', async () => {
      const hitsBefore = chat.attacker.hits();
      await page.goto(`${chat.url}/chat?chat=${SAVED_CHAT_ID}`, { waitUntil: 'load' });
      await page.waitForSelector('#transcript[data-loaded="true"]', { timeout: 10_000 });
      await settle();
      const shown = await page.$eval('#transcript', (t) => ({
        text: t.textContent ?? '',
        html: t.innerHTML,
      }));
      expect(shown.text).not.toContain(fakeGithubToken(91));
      expect(shown.html).not.toContain(chat.attacker.url);
      expect(shown.text).toContain('Summarise the shared notes');
      expect(chat.attacker.hits()).toBe(hitsBefore);
    });
  });

  describe.each(['openai', 'anthropic'])('on the page built on the %s SDK', (sdk) => {
    beforeAll(async () => {
      await page.goto(`${chat.url}/sdk/${sdk}`, { waitUntil: 'load' });
      await page.waitForSelector(`html[data-sdk="${sdk}"]`, { timeout: 20_000 });
    });

    it('the client parses the guarded stream and renders the redaction', async () => {
      const token = demoAnswer('secret', chat.attacker.url).payload;
      const answer = await ask(page, 'the secret please');
      expect(answer.done).toBe('true');
      expect(answer.text).not.toContain(token);
      expect(answer.text).toContain('[redacted:');
      expect(answer.text).toContain('Rotate it after the release.');
    });

    it('the client renders a harmless answer unchanged', async () => {
      const expected = demoAnswer('hi', chat.attacker.url).text;
      const answer = await ask(page, 'hi');
      expect(answer.done).toBe('true');
      expect(answer.text).toBe(expected);
    });
  });
});
