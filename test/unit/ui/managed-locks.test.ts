// @vitest-environment happy-dom
/**
 * Issue 21 §1 in the UI: every control the organisation's policy sets is disabled
 * and says "Set by your organisation"; the others stay free; ignored policy values
 * are listed as a warning; a live policy change re-applies; the popup's site
 * switch is locked for a forced site. Every problem code has words in both languages.
 */
import { readFileSync } from 'node:fs';
import { cleanup, render, screen, waitFor, within } from '@testing-library/preact';
import { h } from 'preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defaultSettings } from '../../../src/background/default-settings.ts';
import { MANAGED_PROBLEMS } from '../../../src/background/managed-policy.ts';
import type { TabState, UiToBackground } from '../../../src/protocol/runtime-messages.ts';
import { problemKey } from '../../../src/ui/options/managed-notice.tsx';
import { fakeBrowser, resetFakeBrowser, setManagedPolicy } from './fake-browser.ts';

vi.mock('webextension-polyfill', async () => ({
  default: (await import('./fake-browser.ts')).fakeBrowser,
}));

const { Options } = await import('../../../src/ui/options/options.tsx');
const { Popup } = await import('../../../src/ui/popup/popup.tsx');

const LOCKED = 'Set by your organisation';

function answerSettings() {
  const stored = defaultSettings();
  stored.sites['chat.example.org'] = { enabled: true };
  fakeBrowser.runtime.sendMessage.mockImplementation(async (message) => {
    const request = message as UiToBackground;
    if (request.type === 'get-settings') return stored;
    return undefined;
  });
}

function row(testId: string, attribute: string, value: string): HTMLElement {
  const found = screen
    .getByTestId(testId)
    .querySelector<HTMLElement>(`[${attribute}="${CSS.escape(value)}"]`);
  if (found === null) throw new Error(`no ${attribute}=${value}`);
  return found;
}

beforeEach(() => resetFakeBrowser());
afterEach(() => cleanup());

describe('options page under a managed policy', () => {
  it('disables and marks each locked control, leaves the others free', async () => {
    setManagedPolicy({
      sites: { 'claude.ai': false },
      incomingPolicy: { secret: 'block' },
      allowedImageHosts: ['images.corp.example'],
      auditRetention: { maxAgeDays: 90 },
      ruleSwitches: { 'aws-access-key-id': true },
    });
    answerSettings();
    render(h(Options, {}));
    const secret = (await screen.findByTestId('policy-in-secret')) as HTMLSelectElement;
    await waitFor(() => expect(secret.disabled).toBe(true));
    // The value in force is the organisation's, even before the background re-read it.
    expect(secret.value).toBe('block');
    expect(within(secret.closest('td')!).getByText(LOCKED)).toBeTruthy();
    const pii = screen.getByTestId('policy-in-pii') as HTMLSelectElement;
    expect(pii.disabled).toBe(false);
    expect(within(pii.closest('td')!).queryByText(LOCKED)).toBeNull();

    const claude = row('sites', 'data-site', 'claude.ai');
    const claudeBox = within(claude).getByTestId('site-enabled') as HTMLInputElement;
    expect(claudeBox.disabled).toBe(true);
    expect(claudeBox.checked).toBe(false);
    expect(within(claude).getByText(LOCKED)).toBeTruthy();
    const own = row('sites', 'data-site', 'chat.example.org');
    expect((within(own).getByTestId('site-enabled') as HTMLInputElement).disabled).toBe(false);

    expect(
      within(row('image-hosts', 'data-host', 'images.corp.example')).getByTestId(
        'image-host-remove',
      ),
    ).toHaveProperty('disabled', true);
    expect(screen.queryByTestId('image-host-form')).toBeNull();
    expect((screen.getByTestId('retention-maxAgeDays') as HTMLInputElement).disabled).toBe(true);
    expect((screen.getByTestId('retention-maxAgeDays') as HTMLInputElement).value).toBe('90');
    expect((screen.getByTestId('retention-maxRecords') as HTMLInputElement).disabled).toBe(false);
    const rule = row('packs', 'data-rule', 'aws-access-key-id');
    expect((within(rule).getByTestId('rule-enabled') as HTMLInputElement).disabled).toBe(true);
    expect(screen.getByTestId('managed-notice').textContent).toContain('Your organisation');
    expect(screen.queryByTestId('managed-issues')).toBeNull();
  });

  it('lists ignored values with where and why, and keeps the person’s setting there', async () => {
    setManagedPolicy({ incomingPolicy: { secret: 'blok' }, allowSiteSwitchOff: 'no' });
    answerSettings();
    render(h(Options, {}));
    const issues = await screen.findByTestId('managed-issues');
    expect(issues.getAttribute('role')).toBe('alert');
    expect(within(issues).getByText(/incomingPolicy\.secret: not an action/)).toBeTruthy();
    expect(within(issues).getByText(/allowSiteSwitchOff: must be true or false/)).toBeTruthy();
    // The value itself is never shown.
    expect(issues.textContent).not.toContain('blok');
    const secret = screen.getByTestId('policy-in-secret') as HTMLSelectElement;
    expect(secret.disabled).toBe(false);
    expect(secret.value).toBe('redact');
  });

  it('re-applies live when the managed area changes', async () => {
    answerSettings();
    render(h(Options, {}));
    const secret = (await screen.findByTestId('policy-in-secret')) as HTMLSelectElement;
    expect(secret.disabled).toBe(false);
    setManagedPolicy({ incomingPolicy: { secret: 'flag' } });
    await waitFor(() => expect(secret.disabled).toBe(true));
    expect(secret.value).toBe('flag');
    setManagedPolicy({});
    await waitFor(() => expect(secret.disabled).toBe(false));
  });
});

describe('popup under a managed policy', () => {
  function tabState(site: string, enabled: boolean): TabState {
    return {
      tabId: 7,
      site,
      enabled,
      permitted: true,
      counters: { tab: 0, today: 0 },
      recent: [],
      holding: false,
    };
  }

  it('locks the switch of a site the organisation forces, and only that one', async () => {
    setManagedPolicy({ sites: { 'chat.example.com': true } });
    fakeBrowser.runtime.sendMessage.mockImplementation(async (message) => {
      const request = message as UiToBackground;
      if (request.type === 'tab-state') return tabState('chat.example.com', true);
      if (request.type === 'audit-query') return [];
      return undefined;
    });
    render(h(Popup, {}));
    const toggle = (await screen.findByTestId('site-toggle')) as HTMLButtonElement;
    await waitFor(() => expect(toggle.disabled).toBe(true));
    expect(screen.getByTestId('locked').textContent).toBe(LOCKED);
    expect(toggle.getAttribute('aria-describedby')).toBe('csg-site-locked');
    setManagedPolicy({});
    await waitFor(() => expect(toggle.disabled).toBe(false));
    expect(screen.queryByTestId('locked')).toBeNull();
  });
});

describe('popup for a forced site without host permission', () => {
  it('offers to grant the permission alone, in the click, and never sends set-site', async () => {
    setManagedPolicy({ sites: { 'llm.corp.example': true } });
    const sent: UiToBackground[] = [];
    fakeBrowser.tabs.get.mockImplementation((id: number) =>
      Promise.resolve({ id, url: 'https://llm.corp.example/c/1' }),
    );
    let permitted = false;
    fakeBrowser.runtime.sendMessage.mockImplementation(async (message) => {
      const request = message as UiToBackground;
      sent.push(request);
      if (request.type === 'tab-state') {
        return {
          tabId: 7,
          site: 'llm.corp.example',
          enabled: true,
          permitted,
          counters: { tab: 0, today: 0 },
          recent: [],
          holding: false,
        } satisfies TabState;
      }
      if (request.type === 'audit-query') return [];
      return undefined;
    });
    fakeBrowser.permissions.request.mockImplementation(() => {
      permitted = true;
      return Promise.resolve(true);
    });
    location.search = '?tab=7';
    render(h(Popup, {}));
    const grant = await screen.findByTestId('site-grant');
    expect((screen.getByTestId('site-toggle') as HTMLButtonElement).disabled).toBe(true);
    grant.click();
    // Asked synchronously in the click (permissions.request needs the user gesture).
    expect(fakeBrowser.permissions.request).toHaveBeenCalledWith({
      origins: ['*://llm.corp.example/*'],
    });
    await waitFor(() => expect(screen.queryByTestId('site-grant')).toBeNull());
    expect(sent.some((request) => request.type === 'set-site')).toBe(false);
    location.search = '';
  });
});

describe('managed policy words', () => {
  it.each(['en', 'zh_CN'])('names every problem code and the lock in %s', (lang) => {
    const catalogue = JSON.parse(readFileSync(`_locales/${lang}/messages.json`, 'utf8')) as Record<
      string,
      { message: string }
    >;
    for (const problem of MANAGED_PROBLEMS) {
      expect(catalogue[problemKey(problem)]?.message).toBeTruthy();
    }
    expect(catalogue.managed_locked?.message).toBeTruthy();
  });
});
