/**
 * The popup and the options page as real extension pages in Chromium and Firefox ESR
 * (issue 4 "Popup and options"): they render from the background's answers, the site
 * toggle sends `set-site` and shows what the background answered, option changes are
 * stored and survive a reload, a broken pack shows the `csg rules check` messages,
 * the audit export is a local blob, clearing the log asks first, and the keyboard
 * reaches every control.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ElementHandle, Page } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockChat, type MockChat } from '../mock-chat/server.ts';
import {
  launchChromium,
  launchFirefox,
  openExtensionPage,
  OPTIONS_PATH,
  POPUP_PATH,
  tabIdOf,
  type ExtensionBrowser,
} from './launch.ts';

interface StoredSettings {
  sites: Record<string, { enabled: boolean }>;
  policy: { incoming: Record<string, string>; outgoing: Record<string, string> };
  allowedImageHosts: string[];
  packs: { disabledRules: string[]; custom: { name: string }[] };
  audit: { maxRecords: number; maxAgeDays: number };
}

/** The settings as stored, read from an extension page. */
async function storedSettings(page: Page): Promise<StoredSettings> {
  return page.evaluate(async () => {
    const { settings } = await chrome.storage.local.get('settings');
    return settings as StoredSettings;
  });
}

/** Waits until `check` holds for the stored settings (saves are asynchronous). */
async function waitForStored(
  page: Page,
  check: (settings: StoredSettings) => boolean,
): Promise<StoredSettings> {
  let last: StoredSettings | undefined;
  for (let i = 0; i < 50; i++) {
    last = await storedSettings(page);
    if (last && check(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`stored settings never matched: ${JSON.stringify(last)}`);
}

/** A short description of the focused element, or null when focus left the document. */
function focusedControl(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    const active = document.activeElement;
    if (!active || active === document.body) return null;
    return active.getAttribute('data-csg-key');
  });
}

/**
 * Opens every `<details>`, marks every enabled control with a key, then presses Tab until focus has cycled,
 * and returns the keys never focused. Empty means the keyboard reaches everything.
 */
async function controlsTabCannotReach(page: Page): Promise<string[]> {
  const keys = await page.evaluate(() => {
    // Collapsed rule lists open with their summary; count their controls too.
    document.querySelectorAll('details').forEach((details) => (details.open = true));
    const controls = document.querySelectorAll<HTMLElement>(
      'button, select, input, a[href], summary, textarea',
    );
    const all: string[] = [];
    controls.forEach((control, index) => {
      if ((control as HTMLButtonElement).disabled) return;
      const key = `${control.tagName.toLowerCase()}#${index}:${(control.textContent ?? control.getAttribute('aria-label') ?? '').trim().slice(0, 30)}`;
      control.setAttribute('data-csg-key', key);
      all.push(key);
    });
    (document.activeElement as HTMLElement | null)?.blur();
    return all;
  });
  const reached = new Set<string>();
  for (let i = 0; i < keys.length * 2 + 10; i++) {
    await page.keyboard.press('Tab');
    const key = await focusedControl(page);
    if (key !== null) reached.add(key);
    if (reached.size === keys.length) break;
  }
  return keys.filter((key) => !reached.has(key));
}

/**
 * Tabs to the control and reports whether it then shows a focus indicator (outline or
 * box shadow): keyboard focus must be visible (WCAG 2.4.7).
 */
async function focusIsVisible(page: Page, selector: string): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    await page.keyboard.press('Tab');
    const here = await page.evaluate(
      (wanted: string) => document.activeElement?.matches(wanted) === true,
      selector,
    );
    if (here) break;
  }
  return page.$eval(selector, (node) => {
    if (document.activeElement !== node) return false;
    if (node.matches(':focus-visible')) {
      const style = getComputedStyle(node);
      return (
        (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) ||
        style.boxShadow !== 'none'
      );
    }
    // Headless Firefox does not treat synthesized Tab presses as keyboard modality, so
    // :focus-visible does not match there; then the page's own :focus-visible rule must
    // draw an outline on this element.
    const rules = [...document.styleSheets].flatMap((sheet) => [...sheet.cssRules]);
    return rules.some(
      (rule) =>
        rule instanceof CSSStyleRule &&
        rule.selectorText.includes(':focus-visible') &&
        rule.style.outlineStyle === 'solid' &&
        parseFloat(rule.style.outlineWidth) > 0 &&
        node.matches(rule.selectorText.replace(/:focus-visible/g, '') || '*'),
    );
  });
}

/** Captures what the page hands to `URL.createObjectURL` (the download path). */
async function captureBlobs(page: Page): Promise<void> {
  await page.evaluate(() => {
    const captured: { text: Promise<string>; type: string }[] = [];
    (window as unknown as { __csgBlobs: typeof captured }).__csgBlobs = captured;
    const original = URL.createObjectURL.bind(URL);
    URL.createObjectURL = (object: Blob | MediaSource) => {
      if (object instanceof Blob) captured.push({ text: object.text(), type: object.type });
      return original(object);
    };
  });
}

async function capturedBlob(page: Page, index: number): Promise<{ text: string; type: string }> {
  await page.waitForFunction(
    (i: number) => (window as unknown as { __csgBlobs: unknown[] }).__csgBlobs.length > i,
    { timeout: 5_000 },
    index,
  );
  return page.evaluate(async (i: number) => {
    const blob = (window as unknown as { __csgBlobs: { text: Promise<string>; type: string }[] })
      .__csgBlobs[i]!;
    return { text: await blob.text, type: blob.type };
  }, index);
}

describe.each([
  { name: 'chromium', launch: launchChromium },
  { name: 'firefox', launch: launchFirefox },
])('popup and options pages in $name', ({ launch }) => {
  let chat: MockChat;
  let target: ExtensionBrowser;
  let chatPage: Page;
  let tabId: number;
  let site: string;
  let scratch: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'csg-ui-'));
    chat = await startMockChat({ chunkDelayMs: 5 });
    target = await launch();
    chatPage = await target.browser.newPage();
    await chatPage.goto(`${chat.url}/`, { waitUntil: 'load' });
    site = new URL(chat.url).hostname;
    const probe = await openExtensionPage(target, POPUP_PATH, '#csg-popup h1');
    tabId = await tabIdOf(probe, chat.url);
    await probe.close();
  });

  afterAll(async () => {
    await target?.close();
    await chat?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('popup shows the chat site, and its toggle sends set-site and shows the answer', async () => {
    const popup = await openExtensionPage(
      target,
      `${POPUP_PATH}?tab=${tabId}`,
      '[data-testid="site-toggle"]',
    );
    const host = await popup.$eval('[data-testid="host"]', (node) => node.textContent);
    expect(host).toBe(new URL(chat.url).host);
    const before = await popup.$eval('[data-testid="site-toggle"]', (node) =>
      node.getAttribute('aria-checked'),
    );
    expect(before).toBe('true');
    // Switching off needs no permission: the background stores it and answers.
    await popup.click('[data-testid="site-toggle"]');
    await popup.waitForSelector(
      '[data-testid="site-toggle"][aria-checked="false"]:not([disabled])',
    );
    expect(
      await popup.$eval('[data-testid="status"]', (node) => (node as HTMLElement).dataset.state),
    ).toBe('inactive');
    await waitForStored(popup, (settings) => settings.sites[site]?.enabled === false);
    // And back on: 127.0.0.1 is a default host, so no permission prompt.
    await popup.click('[data-testid="site-toggle"]');
    await popup.waitForSelector('[data-testid="site-toggle"][aria-checked="true"]:not([disabled])');
    await waitForStored(popup, (settings) => settings.sites[site]?.enabled === true);
    const status = await popup.$eval('[data-testid="status"]', (node) => ({
      state: (node as HTMLElement).dataset.state,
      text: node.textContent ?? '',
    }));
    expect(status.state).toBe('active');
    expect(status.text).toContain(site);
    expect(await popup.$eval('[data-testid="notice"]', (node) => node.textContent)).toContain(
      'Reload',
    );
    await popup.close();
  });

  it('popup lists live events, counters and the filtered log of a redacted answer', async () => {
    // The previous test switched the site off and on: the popup asks for a reload then.
    await chatPage.reload({ waitUntil: 'load' });
    const popup = await openExtensionPage(
      target,
      `${POPUP_PATH}?tab=${tabId}`,
      '[data-testid="counter-tab"]',
    );
    const counterBefore = Number(
      await popup.$eval('[data-testid="counter-tab"]', (node) => node.textContent),
    );
    await chatPage.bringToFront();
    await chatPage.type('#prompt', 'show me the secret');
    await chatPage.click('#send');
    await popup.bringToFront();
    await popup.waitForSelector('[data-testid="live-events"] [data-rule="github-pat"]', {
      timeout: 10_000,
    });
    const row = await popup.$eval(
      '[data-testid="live-events"] [data-rule="github-pat"]',
      (node) => node.textContent,
    );
    expect(row).toContain('Redacted');
    expect(row).toContain('GitHub token');
    await popup.waitForFunction(
      (before: number) =>
        Number(document.querySelector('[data-testid="counter-tab"]')?.textContent) > before,
      { timeout: 5_000 },
      counterBefore,
    );
    await popup.waitForSelector('[data-testid="recent-log"] [data-rule="github-pat"]');
    // A filter that excludes it empties the list; back to all shows it again.
    await popup.select('[data-testid="filter-action"]', 'block');
    await popup.waitForSelector('[data-testid="log-empty"]');
    await popup.select('[data-testid="filter-action"]', 'all');
    await popup.waitForSelector('[data-testid="recent-log"] [data-rule="github-pat"]');
    await popup.close();
  });

  it('popup: the keyboard reaches every control, with a visible focus ring', async () => {
    const popup = await openExtensionPage(
      target,
      `${POPUP_PATH}?tab=${tabId}`,
      '[data-testid="site-toggle"]',
    );
    await popup.bringToFront();
    expect(await controlsTabCannotReach(popup)).toEqual([]);
    expect(await focusIsVisible(popup, '[data-testid="site-toggle"]')).toBe(true);
    await popup.close();
  });

  it('options: changes are stored and shown again after a reload', async () => {
    const options = await openExtensionPage(target, OPTIONS_PATH, '[data-testid="policy"]');
    await options.select('[data-testid="policy-in-pii"]', 'flag');
    await options.select('[data-testid="policy-out-secret"]', 'warn');
    await options.type('[data-testid="image-host-input"]', 'https://Images.Example.org/cat.png');
    await options.click('[data-testid="image-host-add"]');
    await options.click('[data-pack="secrets"] summary');
    await options.click('[data-pack="secrets"] [data-rule="jwt"] [data-testid="rule-enabled"]');
    const retention = '[data-testid="retention-maxAgeDays"]';
    await options.click(retention, { count: 3 });
    await options.type(retention, '45');
    await options.keyboard.press('Enter');
    const stored = await waitForStored(
      options,
      (s) =>
        s.policy.incoming.pii === 'flag' &&
        s.policy.outgoing.secret === 'warn' &&
        s.allowedImageHosts.includes('images.example.org') &&
        s.packs.disabledRules.includes('jwt') &&
        s.audit.maxAgeDays === 45,
    );
    expect(stored.allowedImageHosts).toContain('images.example.org');

    await openExtensionPage(target, OPTIONS_PATH, '[data-testid="policy"]', options);
    expect(
      await options.$eval('[data-testid="policy-in-pii"]', (n) => (n as HTMLSelectElement).value),
    ).toBe('flag');
    expect(
      await options.$eval(
        '[data-testid="policy-out-secret"]',
        (n) => (n as HTMLSelectElement).value,
      ),
    ).toBe('warn');
    expect(await options.$eval(retention, (n) => (n as HTMLInputElement).value)).toBe('45');
    expect(await options.$eval('[data-host="images.example.org"]', (n) => n.textContent)).toContain(
      'images.example.org',
    );
    expect(
      await options.$eval(
        '[data-pack="secrets"] [data-rule="jwt"] [data-testid="rule-enabled"]',
        (n) => (n as HTMLInputElement).checked,
      ),
    ).toBe(false);
    await options.close();
  });

  it('options: sites are switched, refused when not a host, and removed', async () => {
    const options = await openExtensionPage(target, OPTIONS_PATH, '[data-testid="sites"]');
    // A site the person added earlier (not a default one) can be removed.
    await options.evaluate(async () => {
      const { settings } = await chrome.storage.local.get('settings');
      const next = settings as { sites: Record<string, { enabled: boolean }> };
      next.sites['chat.example.net'] = { enabled: false };
      await chrome.storage.local.set({ settings: next });
    });
    await openExtensionPage(target, OPTIONS_PATH, '[data-site="chat.example.net"]', options);
    await options.click('[data-site="chat.example.net"] [data-testid="site-remove"]');
    await waitForStored(options, (s) => s.sites['chat.example.net'] === undefined);
    await options.waitForFunction(() => !document.querySelector('[data-site="chat.example.net"]'));
    // Default sites can be switched off and on, not removed.
    expect(await options.$('[data-site="claude.ai"] [data-testid="site-remove"]')).toBeNull();
    await options.click('[data-site="claude.ai"] [data-testid="site-enabled"]');
    await waitForStored(options, (s) => s.sites['claude.ai']?.enabled === false);
    // Typing a default host (with scheme, port and path) switches it back on, no prompt.
    await options.type('[data-testid="site-input"]', 'https://Claude.ai:443/chat/1');
    await options.click('[data-testid="site-add"]');
    await waitForStored(options, (s) => s.sites['claude.ai']?.enabled === true);
    await options.waitForSelector('[data-site="claude.ai"] [data-testid="site-enabled"]:checked');
    // Not a host: refused with a message, nothing stored.
    await options.type('[data-testid="site-input"]', 'not a host');
    await options.click('[data-testid="site-add"]');
    await options.waitForSelector('#csg-site-error');
    await options.close();
  });

  it('options: a broken pack shows the csg rules check messages; a good one is added and exported', async () => {
    const options = await openExtensionPage(target, OPTIONS_PATH, '[data-testid="pack-import"]');
    const broken = join(scratch, 'broken.json');
    writeFileSync(
      broken,
      JSON.stringify({
        name: 'mine',
        version: '1',
        rules: [
          {
            id: 'Bad Id',
            kind: 'secret',
            pattern: 'x',
            action: 'redact',
            examples: { match: [], noMatch: [] },
          },
        ],
      }),
    );
    const input = (await options.$(
      '[data-testid="pack-import"]',
    )) as ElementHandle<HTMLInputElement>;
    await input.uploadFile(broken);
    await options.waitForSelector('[data-testid="pack-import-errors"] li');
    const problems = await options.$$eval('[data-testid="pack-import-errors"] li', (nodes) =>
      nodes.map((node) => node.textContent),
    );
    expect(problems[0]).toMatch(/^rule "Bad Id": field "id": /);

    const good = join(scratch, 'good.json');
    writeFileSync(
      good,
      JSON.stringify({
        name: 'team-words',
        version: '2.0.0',
        rules: [
          {
            id: 'project-codename',
            kind: 'custom',
            description: 'Internal project codename',
            pattern: 'BLUEFALCON-[0-9]{3}',
            keywords: ['BLUEFALCON-'],
            action: 'redact',
            examples: { match: ['see BLUEFALCON-123 now'], noMatch: ['BLUEFALCON'] },
          },
        ],
      }),
    );
    const input2 = (await options.$(
      '[data-testid="pack-import"]',
    )) as ElementHandle<HTMLInputElement>;
    await input2.uploadFile(good);
    await options.waitForSelector('[data-testid="pack-import-ok"]');
    await waitForStored(options, (s) => s.packs.custom.some((pack) => pack.name === 'team-words'));
    await options.waitForSelector('[data-pack="team-words"]');

    await captureBlobs(options);
    await options.click('[data-pack="team-words"] [data-testid="pack-export"]');
    const exported = await capturedBlob(options, 0);
    expect(exported.type).toBe('application/json');
    expect(JSON.parse(exported.text)).toMatchObject({ name: 'team-words', version: '2.0.0' });
    await options.close();
  });

  it('options: the audit log exports through a local blob and clears only after confirming', async () => {
    const options = await openExtensionPage(target, OPTIONS_PATH, '[data-testid="audit-clear"]');
    await captureBlobs(options);
    await options.click('[data-testid="audit-export-csv"]');
    const csv = await capturedBlob(options, 0);
    expect(csv.type).toMatch(/^text\/csv/);
    // A header row and the records of the earlier tests (docs/audit-log.md "Export").
    const rows = csv.text.split(/\r?\n/).filter((line) => line !== '');
    expect(rows[0]).toMatch(/^id,time,/);
    expect(rows.length).toBeGreaterThan(1);

    await options.click('[data-testid="audit-clear"]');
    await options.waitForSelector('[data-testid="audit-clear-confirm"]');
    // The safe choice has the focus as soon as the question shows; cancelling keeps the log.
    expect(await options.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(
      'audit-clear-cancel',
    );
    await options.click('[data-testid="audit-clear-cancel"]');
    await options.waitForSelector('[data-testid="audit-clear"]');
    await options.click('[data-testid="audit-clear"]');
    await options.click('[data-testid="audit-clear-confirm"]');
    await options.waitForFunction(
      () => /\d/.test(document.querySelector('[data-testid="notice"]')?.textContent ?? ''),
      { timeout: 5_000 },
    );
    const json = await (async () => {
      await options.click('[data-testid="audit-export-json"]');
      return capturedBlob(options, 1);
    })();
    expect((JSON.parse(json.text) as { records: unknown[] }).records).toEqual([]);
    await options.close();
  });

  it('options: the keyboard reaches every control, with a visible focus ring', async () => {
    const options = await openExtensionPage(target, OPTIONS_PATH, '[data-testid="policy"]');
    await options.bringToFront();
    expect(await controlsTabCannotReach(options)).toEqual([]);
    expect(await focusIsVisible(options, '[data-testid="policy-in-secret"]')).toBe(true);
    await options.close();
  });
});

/**
 * Dark mode through prefers-color-scheme emulation, which puppeteer offers over CDP
 * only (Firefox's WebDriver BiDi has no media emulation): Chromium.
 */
describe('popup and options pages in dark mode (chromium)', () => {
  let target: ExtensionBrowser;

  beforeAll(async () => {
    target = await launchChromium();
  });

  afterAll(async () => {
    await target?.close();
  });

  it('both pages are readable in dark mode (text contrast at least 4.5:1)', async () => {
    for (const [path, ready] of [
      [POPUP_PATH, '[data-testid="status"]'],
      [OPTIONS_PATH, '[data-testid="policy"]'],
    ] as const) {
      const page = await target.browser.newPage();
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
      await openExtensionPage(target, path, ready, page);
      const contrast = await page.evaluate(() => {
        const rgb = (color: string) => (color.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
        const luminance = (color: string) => {
          const [r = 0, g = 0, b = 0] = rgb(color).map((v) => {
            const c = v / 255;
            return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
          });
          return 0.2126 * r + 0.7152 * g + 0.0722 * b;
        };
        const ratio = (a: string, b: string) => {
          const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
          return (hi + 0.05) / (lo + 0.05);
        };
        const background = getComputedStyle(document.body).backgroundColor;
        const texts = [...document.querySelectorAll('h1, h2, p, label, button, .csg-muted')];
        return {
          dark: matchMedia('(prefers-color-scheme: dark)').matches,
          backgroundLuminance: luminance(background),
          worst: Math.min(...texts.map((node) => ratio(getComputedStyle(node).color, background))),
        };
      });
      expect(contrast.dark).toBe(true);
      expect(contrast.backgroundLuminance).toBeLessThan(0.05);
      expect(contrast.worst).toBeGreaterThanOrEqual(4.5);
      await page.close();
    }
  });
});
