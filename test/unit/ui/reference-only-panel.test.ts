// @vitest-environment happy-dom
/**
 * The popup's "reference only" list (issue 5 §3) against a programmable
 * background: shown only for a guarded tab, lists the tab's messages with their
 * previews, sends `reference-only-set` for the clicked message and shows the
 * bridge's answer, and says so when the tab cannot mark messages.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { h } from 'preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type {
  ReferenceOnlyList,
  TabState,
  UiToBackground,
} from '../../../src/protocol/runtime-messages.ts';
import { fakeBrowser, resetFakeBrowser } from './fake-browser.ts';

vi.mock('webextension-polyfill', async () => ({
  default: (await import('./fake-browser.ts')).fakeBrowser,
}));

const { Popup } = await import('../../../src/ui/popup/popup.tsx');

const state = (overrides: Partial<TabState> = {}): TabState => ({
  tabId: 7,
  site: 'chat.example.com',
  enabled: true,
  permitted: true,
  counters: { tab: 0, today: 0 },
  recent: [],
  holding: false,
  ...overrides,
});

const LIST: ReferenceOnlyList = {
  available: true,
  items: [
    { index: 0, role: 'user', preview: 'Which roses survive frost?', marked: false },
    { index: 1, role: 'assistant', preview: 'Rugosa roses are the hardiest.', marked: false },
  ],
};

function background(tab: TabState, list: (request: UiToBackground) => unknown) {
  const sent: UiToBackground[] = [];
  fakeBrowser.runtime.sendMessage.mockImplementation(async (message) => {
    const request = message as UiToBackground;
    sent.push(request);
    if (request.type === 'tab-state') return tab;
    if (request.type === 'audit-query') return [];
    if (request.type === 'reference-only-list' || request.type === 'reference-only-set') {
      return list(request);
    }
    return undefined;
  });
  return sent;
}

beforeEach(() => {
  resetFakeBrowser();
  location.search = '';
});
afterEach(() => cleanup());

describe('popup reference-only list', () => {
  it('lists the messages and marks the clicked one through the background', async () => {
    let current = LIST;
    const sent = background(state(), (request) => {
      if (request.type === 'reference-only-set') {
        current = {
          ...current,
          items: current.items.map((i) =>
            i.index === request.index ? { ...i, marked: request.marked } : i,
          ),
        };
      }
      return current;
    });
    render(h(Popup, {}));
    const list = await screen.findByTestId('reference-only-list');
    const rows = within(list).getAllByTestId('reference-only-item');
    expect(rows.map((r) => r.textContent)).toEqual([
      expect.stringContaining('Which roses survive frost?'),
      expect.stringContaining('Rugosa roses are the hardiest.'),
    ]);
    const toggles = within(list).getAllByTestId('reference-only-toggle');
    expect(toggles[1]?.getAttribute('aria-pressed')).toBe('false');
    expect(toggles[1]?.getAttribute('aria-label')).toBe('Reference only: message 2 (Assistant)');
    fireEvent.click(toggles[1] as HTMLElement);
    await waitFor(() =>
      expect(screen.getAllByTestId('reference-only-toggle')[1]?.getAttribute('aria-pressed')).toBe(
        'true',
      ),
    );
    expect(sent).toContainEqual({ to: 'background', type: 'reference-only-list', tabId: 7 });
    expect(sent).toContainEqual({
      to: 'background',
      type: 'reference-only-set',
      tabId: 7,
      index: 1,
      marked: true,
    });
    // Clicking again unmarks.
    fireEvent.click(screen.getAllByTestId('reference-only-toggle')[1] as HTMLElement);
    await waitFor(() =>
      expect(screen.getAllByTestId('reference-only-toggle')[1]?.getAttribute('aria-pressed')).toBe(
        'false',
      ),
    );
  });

  it('says when the tab cannot mark messages, or the answer is malformed', async () => {
    background(state(), () => ({ available: false, items: [] }));
    render(h(Popup, {}));
    expect(await screen.findByTestId('reference-only-unavailable')).toBeTruthy();
    cleanup();
    background(state(), () => ({ available: true, items: [{ index: 'x' }] }));
    render(h(Popup, {}));
    expect(await screen.findByTestId('reference-only-unavailable')).toBeTruthy();
  });

  it('is not shown for a site that is not guarded', async () => {
    const sent = background(state({ enabled: false }), () => LIST);
    render(h(Popup, {}));
    await screen.findByRole('switch');
    expect(screen.queryByTestId('reference-only')).toBeNull();
    expect(sent.some((m) => m.type === 'reference-only-list')).toBe(false);
  });
});
