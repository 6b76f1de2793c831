/**
 * The AI SDK's own client and server as oracles, in the browser (issue 20 §4):
 * pages built on the SDK's clients (test/mock-chat/sdk/ai-sdk-*-page.ts: ai@6
 * `AbstractChat` + `DefaultChatTransport`, the same on ai@5.0.216 with strict
 * chunk schemas, ai@6 `TextStreamChatTransport`, and SDK 4's `callChatApi`)
 * talk to a loopback server built on the SDK's stream helpers (`streamText`
 * with the SDK's mock model → `toUIMessageStreamResponse()` /
 * `toTextStreamResponse()`, and `formatDataStreamPart` for SDK 4's data stream;
 * test/mock-chat/ai-sdk-server.ts). The model splits a GitHub token across
 * deltas and streams a Markdown image to an attacker on another loopback port.
 *
 * With the built extension in Chromium and Firefox, on 127.0.0.1 (a site on by
 * default, src/protocol/settings-schema.ts), each page renders the answer with
 * the token redacted whole (no 8-unit fragment), the image neutralised and the
 * text after it kept, the attacker gets no hit, the SDK client reports no error
 * and the console shows none, and the audit log names the AI SDK format that
 * guarded it, also when the server drops the SDK's marker headers or cuts its
 * writes into 5-byte pieces. A harmless answer renders exactly as sent. With
 * exfiltration set to block, each client shows the answer up to the image and
 * ends it without error (the adapters' `blockEnding`, as the SDK's server ends
 * a refused answer). The same pages in
 * Chromium without the extension show the token and fetch the image, so the
 * checks above can fail.
 */
import type { Browser, Page } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AI_SDK_CLIENTS,
  AI_SDK_TOKEN,
  type AiSdkClient,
  startAiSdkServer,
  type AiSdkServer,
} from '../mock-chat/ai-sdk-server.ts';
import type { AiSdkTurn } from '../mock-chat/sdk/ai-sdk-shell.ts';
import { readAuditStore } from './audit-store.ts';
import {
  launchChromium,
  launchFirefox,
  launchPlainChromium,
  openExtensionPage,
  POPUP_PATH,
  type ExtensionBrowser,
} from './launch.ts';

/** The wire format (src/core/wire/wire-recognisers.ts) that should guard each client's answer. */
const FORMAT_OF: Record<AiSdkClient, string> = {
  ui: 'ai-sdk-ui',
  v5: 'ai-sdk-ui',
  v4: 'ai-sdk-data',
  text: 'ai-sdk-text',
};

/** The harmless answer as the page's Markdown renders it. */
const HARMLESS_TEXT = 'The forecast is mild and dry — à bientôt, 数据 😀, see the notes.';

/** Every 8-unit piece of `secret` that `text` shows (DESIGN.md §3.10's fragment size). */
function fragments(text: string, secret: string): string[] {
  const found: string[] = [];
  for (let i = 0; i + 8 <= secret.length; i++) {
    const piece = secret.slice(i, i + 8);
    if (text.includes(piece)) found.push(piece);
  }
  return found;
}

/** Opens a client's page and collects its console errors and uncaught exceptions. */
async function openClientPage(browser: Browser, url: string, client: AiSdkClient, query = '') {
  const page = await browser.newPage();
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(String(error)));
  await page.goto(`${url}/ai-sdk/${client}${query}`, { waitUntil: 'load' });
  await page.waitForSelector(`html[data-sdk="ai-${client}"]`, { timeout: 30_000 });
  return { page, consoleErrors };
}

function ask(page: Page, prompt: string): Promise<AiSdkTurn> {
  return page.evaluate(
    (p: string) => (window as unknown as { askAiSdk(p: string): Promise<AiSdkTurn> }).askAiSdk(p),
    prompt,
  );
}

/** The audit records of `format` that name the token's rule. */
async function tokenRecords(extensionPage: Page, format: string): Promise<number> {
  const records = (await readAuditStore(extensionPage)) ?? [];
  return records.filter((r) => r.rule === 'github-pat' && r.format === format).length;
}

/**
 * Each client's page as the SDK serves it; with `?bare`, without the SDK's marker
 * headers (the text stream has none), so the guard knows the stream by the
 * request's shape and the body alone (WIRE-FORMATS-2.md §1, "Detection
 * pitfall"); with `?split=5`, every write cut into 5-byte pieces, so events,
 * lines and UTF-8 characters arrive cut (ai-sdk-server.ts `WireOptions`).
 */
const PAGES = [
  ...AI_SDK_CLIENTS.map((client) => ({ client, query: '' })),
  ...AI_SDK_CLIENTS.filter((client) => client !== 'text').map((client) => ({
    client,
    query: '?bare',
  })),
  ...AI_SDK_CLIENTS.map((client) => ({ client, query: '?split=5' })),
];

/** Sets the answers' policy for exfiltration (settings-schema.ts `policy.incoming`). */
async function setIncomingExfil(extensionPage: Page, action: 'block' | 'redact'): Promise<void> {
  await extensionPage.evaluate(async (a: string) => {
    const { settings } = await chrome.storage.local.get('settings');
    const next = settings as { policy: { incoming: Record<string, string> } };
    next.policy.incoming.exfil = a;
    await chrome.storage.local.set({ settings: next });
  }, action);
}

/** Gives a rendered image time to be requested before the hit count is read. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

describe.each([
  { name: 'chromium', launch: launchChromium },
  { name: 'firefox', launch: launchFirefox },
])('pages on the AI SDK clients in $name, with the extension', ({ launch }) => {
  let server: AiSdkServer;
  let target: ExtensionBrowser;
  let extensionPage: Page;

  beforeAll(async () => {
    server = await startAiSdkServer();
    target = await launch();
    extensionPage = await openExtensionPage(target, POPUP_PATH, 'body');
  });

  afterAll(async () => {
    await target?.close();
    await server?.close();
  });

  describe.each(PAGES)('the $client client$query', ({ client, query }) => {
    let page: Page;
    let consoleErrors: string[];

    beforeAll(async () => {
      ({ page, consoleErrors } = await openClientPage(target.browser, server.url, client, query));
    });

    afterAll(async () => {
      await page?.close();
    });

    it('renders the answer with the token redacted whole and the image neutralised, without error', async () => {
      const recordsBefore = await tokenRecords(extensionPage, FORMAT_OF[client]);
      const turn = await ask(page, 'show me the secret from my notes');
      await settle();
      expect(turn.errors).toEqual([]);
      expect(consoleErrors).toEqual([]);
      expect(server.refused()).toEqual([]);
      expect(fragments(turn.text, AI_SDK_TOKEN)).toEqual([]);
      expect(fragments(turn.html, AI_SDK_TOKEN)).toEqual([]);
      expect(turn.text).toContain(
        'Sure. The deploy token from your notes is [redacted:github-pat]',
      );
      expect(turn.images).toEqual([]);
      expect(turn.html).not.toContain(server.attacker.url);
      expect(turn.text).toContain('Rotate it after the release.');
      expect(server.attacker.hits()).toBe(0);

      // The AI SDK adapter guarded it (not the generic one): the audit log names its format.
      let records = await tokenRecords(extensionPage, FORMAT_OF[client]);
      for (let tries = 0; tries < 50 && records === recordsBefore; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        records = await tokenRecords(extensionPage, FORMAT_OF[client]);
      }
      expect(records).toBeGreaterThan(recordsBefore);
    });

    it('renders a harmless answer exactly as sent', async () => {
      const turn = await ask(page, 'what is the weather like');
      expect(turn.errors).toEqual([]);
      expect(consoleErrors).toEqual([]);
      expect(turn.text.trim()).toBe(HARMLESS_TEXT);
      expect(turn.html).toContain('<strong>mild</strong>');
      expect(turn.html).toContain('href="https://example.org/notes"');
    });
  });

  // Last: it changes the settings. A block ends the answer as the SDK's server ends a
  // refused one (the adapters' `blockEnding`), which the SDK's client reads without error.
  describe('with exfiltration set to block', () => {
    beforeAll(async () => {
      await setIncomingExfil(extensionPage, 'block');
    });

    afterAll(async () => {
      await setIncomingExfil(extensionPage, 'redact');
    });

    it.each(AI_SDK_CLIENTS)(
      'the %s client shows the answer up to the image and ends it without error',
      async (client) => {
        const { page, consoleErrors } = await openClientPage(target.browser, server.url, client);
        const turn = await ask(page, 'show me the secret from my notes');
        await settle();
        expect(turn.errors).toEqual([]);
        expect(consoleErrors).toEqual([]);
        expect(fragments(turn.html, AI_SDK_TOKEN)).toEqual([]);
        expect(turn.text).toContain(
          'Sure. The deploy token from your notes is [redacted:github-pat]',
        );
        expect(turn.text).not.toContain('Rotate it after the release.');
        expect(turn.images).toEqual([]);
        expect(server.attacker.hits()).toBe(0);
        await page.close();
      },
    );
  });
});

describe('the same pages in Chromium without the extension (the oracle sees what the guard prevents)', () => {
  let server: AiSdkServer;
  let browser: Awaited<ReturnType<typeof launchPlainChromium>>;

  beforeAll(async () => {
    server = await startAiSdkServer();
    browser = await launchPlainChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it.each(AI_SDK_CLIENTS)('the %s client shows the token and fetches the image', async (client) => {
    const { page, consoleErrors } = await openClientPage(browser.browser, server.url, client);
    const before = server.attacker.hits();
    const turn = await ask(page, 'show me the secret from my notes');
    await settle();
    expect(turn.errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(turn.text).toContain(AI_SDK_TOKEN);
    expect(turn.images).toEqual([expect.stringContaining(server.attacker.url)]);
    expect(server.attacker.hits()).toBe(before + 1);
    await page.close();
  });
});
