/**
 * Issue 21 §1 and §3 in Chromium and Firefox ESR, with an organisation's policy
 * applied through each browser's own enterprise policy (managed-launch.ts says
 * how, and why no other test can see it): the options page and the popup show
 * each locked control as "Set by your organisation" and disabled; the background
 * keeps the forced sites registered (and the forced-off one not); a request to
 * weaken a managed value changes nothing; a malformed value is ignored with a
 * visible warning and an audit record; in Chromium a changed policy applies live.
 */
import type { Page } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockChat, type MockChat } from '../mock-chat/server.ts';
import { OPTIONS_PATH, POPUP_PATH, openExtensionPage, tabIdOf } from './launch.ts';
import {
  launchChromiumWithPolicy,
  launchFirefoxWithPolicy,
  type ManagedBrowser,
} from './managed-launch.ts';

const LOCKED = 'Set by your organisation';

const ORG_PACK = {
  name: 'org-e2e',
  version: '1.0.0',
  rules: [
    {
      id: 'org-project-code',
      kind: 'custom',
      description: 'an internal project code name',
      pattern: 'PRJ-[0-9]{4}',
      keywords: ['PRJ-'],
      action: 'redact',
      examples: { match: ['PRJ-1234'], noMatch: ['PRJ-12'] },
    },
  ],
};

/** The policy as an administrator would write it, with one malformed value (`pii`). */
const POLICY = {
  sites: { '127.0.0.1': true, localhost: false },
  allowSiteSwitchOff: false,
  incomingPolicy: { secret: 'block', pii: 'blok' },
  auditRetention: { maxAgeDays: 90 },
  ruleSwitches: { 'aws-access-key-id': true },
  customPacks: [JSON.stringify(ORG_PACK)],
};

/** Sends a UI message to the background from an extension page. */
function ask<T>(page: Page, message: Record<string, unknown>): Promise<T> {
  return page.evaluate(
    (body) => chrome.runtime.sendMessage({ to: 'background', ...body }) as Promise<T>,
    message,
  );
}

async function registeredMatches(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const scripts = await chrome.scripting.getRegisteredContentScripts({ ids: ['csg-bridge'] });
    return scripts[0]?.matches ?? [];
  });
}

async function controlState(page: Page, selector: string) {
  return page.$eval(selector, (element) => {
    const control = element as HTMLInputElement | HTMLSelectElement;
    const holder = control.closest('li, td, .csg-field') ?? control.parentElement;
    return {
      disabled: control.disabled,
      value: control.value,
      checked: (control as HTMLInputElement).checked,
      badge: holder?.querySelector('[data-testid="locked"]')?.textContent ?? null,
    };
  });
}

const browsers = [
  ['chromium', launchChromiumWithPolicy],
  ['firefox', launchFirefoxWithPolicy],
] as const;

describe.each(browsers)('managed policy in %s', (name, launch) => {
  let target: ManagedBrowser;
  let chat: MockChat;
  let options: Page;

  beforeAll(async () => {
    chat = await startMockChat({ chunkDelayMs: 5 });
    target = await launch(POLICY);
    options = await openExtensionPage(target, OPTIONS_PATH, '[data-testid="policy"]');
    // Chromium hands the policy to a newly installed extension a few seconds later.
    await options.waitForSelector('[data-testid="managed-notice"]', { timeout: 20_000 });
  });

  afterAll(async () => {
    await target?.close();
    await chat?.close();
  });

  it('shows each locked control disabled and marked, the others free', async () => {
    await options.waitForFunction(
      () => document.querySelector<HTMLSelectElement>('[data-testid="policy-in-secret"]')?.disabled,
      { timeout: 10_000 },
    );
    expect(await controlState(options, '[data-testid="policy-in-secret"]')).toMatchObject({
      disabled: true,
      value: 'block',
      badge: LOCKED,
    });
    // The malformed pii value was ignored: the person's (default) setting applies and stays free.
    expect(await controlState(options, '[data-testid="policy-in-pii"]')).toMatchObject({
      disabled: false,
      value: 'flag',
      badge: null,
    });
    expect(
      await controlState(options, '[data-site="localhost"] [data-testid="site-enabled"]'),
    ).toMatchObject({ disabled: true, checked: false, badge: LOCKED });
    expect(
      await controlState(options, '[data-site="claude.ai"] [data-testid="site-enabled"]'),
    ).toMatchObject({ disabled: true, checked: true, badge: LOCKED });
    expect(await controlState(options, '[data-testid="retention-maxAgeDays"]')).toMatchObject({
      disabled: true,
      value: '90',
      badge: LOCKED,
    });
    expect(await controlState(options, '[data-testid="retention-maxRecords"]')).toMatchObject({
      disabled: false,
      badge: null,
    });
    expect(
      await controlState(options, '[data-pack="org-e2e"] [data-testid="pack-enabled"]'),
    ).toMatchObject({ disabled: true });
    expect(await options.$('[data-pack="org-e2e"] [data-testid="pack-remove"]')).toBeNull();
  });

  it('warns about the malformed value and logs it, without its content', async () => {
    const warning = await options.$eval(
      '[data-testid="managed-issues"]',
      (element) => element.textContent ?? '',
    );
    expect(warning).toContain('incomingPolicy.pii');
    expect(warning).not.toContain('blok');
    const records = await ask<{ rule: string; kind: string; pack: string }[]>(options, {
      type: 'audit-query',
      query: {},
    });
    expect(records).toContainEqual(
      expect.objectContaining({
        rule: 'managed-policy/incomingPolicy.pii',
        kind: 'error',
        pack: 'unknown-action',
      }),
    );
    expect(JSON.stringify(records)).not.toContain('blok');
  });

  it('keeps forced sites registered and a forced-off site not', async () => {
    await options.waitForFunction(
      async () => {
        const [bridge] = await chrome.scripting.getRegisteredContentScripts({
          ids: ['csg-bridge'],
        });
        return bridge !== undefined && !bridge.matches?.includes('http://localhost/*');
      },
      { timeout: 10_000, polling: 100 },
    );
    const matches = await registeredMatches(options);
    expect(matches).toContain('http://127.0.0.1/*');
    expect(matches).toContain('https://claude.ai/*');
    expect(matches).not.toContain('http://localhost/*');
  });

  it('refuses to weaken a managed value, whatever the page sends', async () => {
    const current = await ask<{ policy: { incoming: Record<string, string> } }>(options, {
      type: 'get-settings',
    });
    const weakened = structuredClone(current) as {
      policy: { incoming: Record<string, string> };
      sites: Record<string, { enabled: boolean }>;
    };
    weakened.policy.incoming.secret = 'off';
    weakened.sites['127.0.0.1'] = { enabled: false };
    const answer = await ask<typeof weakened>(options, {
      type: 'put-settings',
      settings: weakened,
    });
    expect(answer.policy.incoming.secret).toBe('block');
    expect(answer.sites['127.0.0.1']).toEqual({ enabled: true });
    const switched = await ask<{ enabled: boolean }>(options, {
      type: 'set-site',
      site: '127.0.0.1',
      enabled: false,
    });
    expect(switched).toBeDefined();
    const state = await ask<{ sites: Record<string, { enabled: boolean }> }>(options, {
      type: 'get-settings',
    });
    expect(state.sites['127.0.0.1']).toEqual({ enabled: true });
  });

  it('locks the popup switch of a forced site', async () => {
    const page = await target.browser.newPage();
    await page.goto(`${chat.url}/chat`);
    const tabId = await tabIdOf(options, chat.url);
    const popup = await openExtensionPage(
      target,
      `${POPUP_PATH}?tab=${tabId}`,
      '[data-testid="site-toggle"]',
    );
    await popup.waitForFunction(
      () => document.querySelector<HTMLButtonElement>('[data-testid="site-toggle"]')?.disabled,
      { timeout: 10_000 },
    );
    const toggle = await popup.$eval('[data-testid="site-toggle"]', (button) => ({
      checked: button.getAttribute('aria-checked'),
      describedBy: button.getAttribute('aria-describedby'),
    }));
    expect(toggle).toEqual({ checked: 'true', describedBy: 'csg-site-locked' });
    expect(await popup.$eval('[data-testid="locked"]', (badge) => badge.textContent)).toBe(LOCKED);
    await popup.close();
    await page.close();
  });

  if (name === 'chromium') {
    it('applies a changed policy live (Chromium re-reads its policy files)', async () => {
      target.setPolicy({ ...POLICY, incomingPolicy: { secret: 'flag' } });
      await options.waitForFunction(
        () =>
          document.querySelector<HTMLSelectElement>('[data-testid="policy-in-secret"]')?.value ===
            'flag' && document.querySelector('[data-testid="managed-issues"]') === null,
        { timeout: 45_000, polling: 250 },
      );
      const settings = await ask<{ policy: { incoming: Record<string, string> } }>(options, {
        type: 'get-settings',
      });
      expect(settings.policy.incoming.secret).toBe('flag');
    }, 60_000);
  }
});
