// @vitest-environment happy-dom
/**
 * The options page against a programmable background: edits are sent with
 * put-settings and the stored answer is shown, a failed save restores the old
 * value, clearing the log takes a confirmation, a site outside the default hosts
 * asks for permission inside the submit, a broken pack lists its problems, and an
 * unreachable background is said plainly.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { h } from 'preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RULE_KINDS } from '../../../src/core/rules/rule.ts';
import type { UiToBackground } from '../../../src/protocol/runtime-messages.ts';
import type { Settings } from '../../../src/protocol/settings-schema.ts';
import { fakeBrowser, resetFakeBrowser } from './fake-browser.ts';

vi.mock('webextension-polyfill', async () => ({
  default: (await import('./fake-browser.ts')).fakeBrowser,
}));

const { Options } = await import('../../../src/ui/options/options.tsx');

function settings(): Settings {
  const incoming = Object.fromEntries(
    RULE_KINDS.map((k) => [k, 'redact']),
  ) as Settings['policy']['incoming'];
  const outgoing = Object.fromEntries(
    RULE_KINDS.map((k) => [k, 'off']),
  ) as Settings['policy']['outgoing'];
  return {
    version: 1,
    sites: { 'claude.ai': { enabled: true }, 'chat.example.net': { enabled: false } },
    policy: { incoming, outgoing },
    allowedImageHosts: [],
    packs: { enabled: {}, disabledRules: [], custom: [] },
    audit: { maxRecords: 10_000, maxAgeDays: 30 },
    outgoing: { envelopeRenderer: 'json', autoEnvelopeMinChars: 0 },
  };
}

/** A background that stores what put-settings sends (unless `refuse`), and logs messages. */
function background(options: { refuse?: boolean } = {}) {
  let stored = settings();
  const sent: UiToBackground[] = [];
  fakeBrowser.runtime.sendMessage.mockImplementation(async (message) => {
    const request = message as UiToBackground;
    sent.push(request);
    switch (request.type) {
      case 'get-settings':
        return stored;
      case 'put-settings':
        if (options.refuse) return { error: 'refused' };
        stored = request.settings;
        return stored;
      case 'set-site':
        stored = {
          ...stored,
          sites: { ...stored.sites, [request.site]: { enabled: request.enabled } },
        };
        return { site: request.site, enabled: request.enabled, permitted: true, registered: true };
      case 'audit-clear':
        return { cleared: 12 };
      default:
        return undefined;
    }
  });
  return { sent, stored: () => stored };
}

beforeEach(() => resetFakeBrowser());
afterEach(() => cleanup());

describe('options page', () => {
  it('sends a policy change with put-settings and shows it as stored', async () => {
    const bg = background();
    render(h(Options, {}));
    const select = (await screen.findByTestId('policy-in-pii')) as HTMLSelectElement;
    fireEvent.change(select, { target: { value: 'flag' } });
    await waitFor(() => expect(bg.stored().policy.incoming.pii).toBe('flag'));
    expect(select.value).toBe('flag');
    expect((await screen.findByTestId('notice')).textContent).toBe('Saved.');
  });

  it('restores the old value when the background refuses the save', async () => {
    background({ refuse: true });
    render(h(Options, {}));
    const select = (await screen.findByTestId('policy-out-secret')) as HTMLSelectElement;
    fireEvent.change(select, { target: { value: 'block' } });
    const notice = await screen.findByRole('alert');
    expect(notice.textContent).toContain('Not saved');
    await waitFor(() => expect(select.value).toBe('off'));
  });

  it('clears the log only after the confirmation', async () => {
    const bg = background();
    render(h(Options, {}));
    fireEvent.click(await screen.findByTestId('audit-clear'));
    expect(bg.sent.some((m) => m.type === 'audit-clear')).toBe(false);
    expect(document.activeElement).toBe(screen.getByTestId('audit-clear-cancel'));
    fireEvent.click(screen.getByTestId('audit-clear-cancel'));
    expect(bg.sent.some((m) => m.type === 'audit-clear')).toBe(false);
    fireEvent.click(screen.getByTestId('audit-clear'));
    fireEvent.click(screen.getByTestId('audit-clear-confirm'));
    expect((await screen.findByText('Cleared 12 records.')).textContent).toBeTruthy();
    expect(bg.sent.filter((m) => m.type === 'audit-clear')).toHaveLength(1);
  });

  it('asks for permission inside the submit for a site outside the default hosts', async () => {
    const bg = background();
    fakeBrowser.permissions.request.mockResolvedValue(false);
    render(h(Options, {}));
    const input = await screen.findByTestId('site-input');
    fireEvent.input(input, { target: { value: 'https://Chat.Example.org/c/1' } });
    fireEvent.submit(screen.getByTestId('site-form'));
    expect(fakeBrowser.permissions.request).toHaveBeenCalledWith({
      origins: ['*://chat.example.org/*'],
    });
    expect((await screen.findByRole('alert')).textContent).toContain('chat.example.org');
    expect(bg.sent.some((m) => m.type === 'set-site')).toBe(false);
  });

  it('adds a default host without a prompt, and offers remove only for added sites', async () => {
    const bg = background();
    render(h(Options, {}));
    const sites = await screen.findByTestId('sites');
    expect(
      within(sites.querySelector('[data-site="claude.ai"]')!).queryByTestId('site-remove'),
    ).toBeNull();
    expect(
      within(sites.querySelector('[data-site="chat.example.net"]')!).getByTestId('site-remove'),
    ).toBeTruthy();
    fireEvent.input(screen.getByTestId('site-input'), { target: { value: 'localhost:3000' } });
    fireEvent.submit(screen.getByTestId('site-form'));
    await waitFor(() => expect(bg.stored().sites.localhost).toEqual({ enabled: true }));
    expect(fakeBrowser.permissions.request).not.toHaveBeenCalled();
  });

  it('refuses a retention value that is not a whole number', async () => {
    const bg = background();
    render(h(Options, {}));
    const field = await screen.findByTestId('retention-maxAgeDays');
    fireEvent.input(field, { target: { value: '1.5' } });
    fireEvent.blur(field);
    expect((await screen.findByRole('alert')).textContent).toContain('whole number');
    expect(bg.sent.some((m) => m.type === 'put-settings')).toBe(false);
  });

  it('says the background is not reachable when it does not answer', async () => {
    fakeBrowser.runtime.sendMessage.mockResolvedValue(undefined);
    render(h(Options, {}));
    expect((await screen.findByTestId('unreachable')).textContent).toContain('not reachable');
    expect(screen.queryByTestId('policy')).toBeNull();
  });
});
