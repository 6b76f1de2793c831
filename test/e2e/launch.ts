/**
 * Launching real browsers with the built extension, exactly per ../shared/TOOLCHAIN.md.
 * Shared by the e2e tests and `npm run demo`. CHROME_PATH / FIREFOX_PATH override the
 * Debian browser paths.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CHROME_DIST = join(ROOT, 'dist', 'chrome');
export const FIREFOX_DIST = join(ROOT, 'dist', 'firefox');

export const CHROME_PATH = process.env.CHROME_PATH || '/usr/bin/chromium';
export const FIREFOX_PATH = process.env.FIREFOX_PATH || '/usr/bin/firefox-esr';

/** The manifest's gecko id and a fixed internal UUID, so moz-extension:// URLs are known. */
export const GECKO_ID = 'chat-stream-guard@example.org';
export const FIREFOX_UUID = '6f2c3a8e-4b1d-4e7a-9c55-0d8e2f1a7b3c';

export const POPUP_PATH = 'src/ui/popup/index.html';
export const OPTIONS_PATH = 'src/ui/options/index.html';

export interface ExtensionBrowser {
  name: 'chromium' | 'firefox';
  browser: Browser;
  /** Base URL of extension pages, e.g. `chrome-extension://<id>/`. */
  extensionBase: string;
  close(): Promise<void>;
}

export interface LaunchOptions {
  headless?: boolean;
  /** Window size for screenshots (default 1100×800). */
  width?: number;
  height?: number;
  /** Firefox only: preferences besides the fixed extension UUID (e.g. a short idle timeout). */
  firefoxPrefs?: Record<string, unknown>;
  /** Chromium only: the unpacked extension to load (default this tree's `dist/chrome`). */
  dist?: string;
}

/** The content-script ids the background registers (src/protocol/runtime-messages.ts). */
const REGISTERED_SCRIPT_IDS = ['csg-main-world', 'csg-bridge', 'csg-guard-engine'];

/**
 * Waits until the background has registered the content scripts (it does so on
 * install, asynchronously; the manifest has no static content_scripts), so a test
 * that navigates right after launch gets the guard. Asked from an extension page,
 * which works the same in both browsers; the page is closed afterwards.
 */
export async function waitForScriptRegistration(
  target: ExtensionBrowser,
  timeoutMs = 15_000,
): Promise<void> {
  const page = await openExtensionPage(target, POPUP_PATH, 'body');
  try {
    await page.waitForFunction(
      async (ids: string[]) => {
        const scripts = await chrome.scripting.getRegisteredContentScripts({ ids });
        return scripts.length === ids.length;
      },
      { timeout: timeoutMs, polling: 100 },
      REGISTERED_SCRIPT_IDS,
    );
  } finally {
    await page.close();
  }
}

export interface PlainBrowser {
  browser: Browser;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/**
 * Chromium as every caller here runs it, in a fresh profile; `extensions` lets it
 * load unpacked extensions.
 */
async function launchChromiumProfile(
  options: LaunchOptions,
  extensions: boolean,
): Promise<PlainBrowser> {
  const { headless = true, width = 1100, height = 800 } = options;
  const userDataDir = mkdtempSync(join(tmpdir(), 'csg-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROME_PATH,
    headless,
    pipe: true,
    enableExtensions: extensions,
    userDataDir,
    defaultViewport: headless ? { width, height } : null,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--window-size=${width},${height}`,
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The same Chromium as `launchChromium`, with the same flags, window and a fresh
 * profile, but no extension: the baseline of `npm run bench`'s browser part, so
 * the two sides differ only by the extension.
 */
export function launchPlainChromium(options: LaunchOptions = {}): Promise<PlainBrowser> {
  return launchChromiumProfile(options, false);
}

export async function launchChromium(options: LaunchOptions = {}): Promise<ExtensionBrowser> {
  const { browser, close } = await launchChromiumProfile(options, true);
  try {
    const id = await browser.installExtension(options.dist ?? CHROME_DIST);
    const target: ExtensionBrowser = {
      name: 'chromium',
      browser,
      extensionBase: `chrome-extension://${id}/`,
      close,
    };
    await waitForScriptRegistration(target);
    return target;
  } catch (error) {
    await close();
    throw error;
  }
}

export async function launchFirefox(options: LaunchOptions = {}): Promise<ExtensionBrowser> {
  const { headless = true, width = 1100, height = 800, firefoxPrefs = {} } = options;
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX_PATH,
    headless,
    defaultViewport: { width, height },
    args: ['--remote-allow-system-access'],
    extraPrefsFirefox: {
      ...firefoxPrefs,
      'extensions.webextensions.uuids': JSON.stringify({ [GECKO_ID]: FIREFOX_UUID }),
    },
  });
  try {
    await browser.installExtension(FIREFOX_DIST);
    const target: ExtensionBrowser = {
      name: 'firefox',
      browser,
      extensionBase: `moz-extension://${FIREFOX_UUID}/`,
      close: () => browser.close(),
    };
    await waitForScriptRegistration(target);
    return target;
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/**
 * Opens an extension page. Firefox never fires the load event for moz-extension://
 * pages under puppeteer, so navigation does not wait for it; `selector` says when the
 * page is ready.
 */
export async function openExtensionPage(
  target: ExtensionBrowser,
  path: string,
  selector: string,
  page?: Page,
): Promise<Page> {
  const tab = page ?? (await target.browser.newPage());
  const url = target.extensionBase + path;
  if (target.name === 'firefox') await tab.goto(url, { waitUntil: [] });
  else await tab.goto(url);
  await tab.waitForSelector(selector, { timeout: 10_000 });
  return tab;
}

/** The browser tab id of the first tab whose URL starts with `urlPrefix`, asked from an extension page. */
export async function tabIdOf(extensionPage: Page, urlPrefix: string): Promise<number> {
  const id = await extensionPage.evaluate(async (prefix: string) => {
    const tabs = await chrome.tabs.query({});
    return tabs.find((tab) => tab.url?.startsWith(prefix))?.id ?? -1;
  }, urlPrefix);
  if (id < 0) throw new Error(`no tab found for ${urlPrefix}`);
  return id;
}

/** Types a prompt into the mock chat and waits until its streamed answer is complete. */
export async function askMockChat(page: Page, prompt: string, timeoutMs = 10_000): Promise<string> {
  const before = await page.$$eval('.msg[data-role="assistant"]', (nodes) => nodes.length);
  await page.type('#prompt', prompt);
  await page.click('#send');
  await page.waitForFunction(
    (count: number) => {
      const answers = document.querySelectorAll<HTMLElement>('.msg[data-role="assistant"]');
      const last = answers[count];
      return last !== undefined && last.dataset.done !== 'false';
    },
    { timeout: timeoutMs },
    before,
  );
  return page.$$eval(
    '.msg[data-role="assistant"]',
    (nodes, index) => {
      const node = nodes[index] as HTMLElement;
      if (node.dataset.done !== 'true') throw new Error(`answer failed: ${node.dataset.error}`);
      return node.textContent ?? '';
    },
    before,
  );
}
