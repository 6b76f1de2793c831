// @vitest-environment happy-dom
/**
 * The popup against a programmable background: the site toggle asks for host
 * permission inside the click when the site is not permitted, sends set-site only
 * when granted, says so when denied, shows live events in plain words, and says
 * "not reachable" when the background does not answer.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { h } from 'preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TabState, UiToBackground } from '../../../src/protocol/runtime-messages.ts';
import { fakeBrowser, ports, resetFakeBrowser } from './fake-browser.ts';

vi.mock('webextension-polyfill', async () => ({
  default: (await import('./fake-browser.ts')).fakeBrowser,
}));

const { Popup } = await import('../../../src/ui/popup/popup.tsx');

function tabState(overrides: Partial<TabState> = {}): TabState {
  return {
    tabId: 7,
    site: 'chat.example.com',
    enabled: false,
    permitted: false,
    counters: { tab: 0, today: 3 },
    recent: [],
    holding: false,
    ...overrides,
  };
}

/** Background double: answers per message type; records what was sent. */
function answerWith(state: TabState, setSite?: (enabled: boolean) => unknown) {
  const sent: UiToBackground[] = [];
  fakeBrowser.runtime.sendMessage.mockImplementation(async (message) => {
    const request = message as UiToBackground;
    sent.push(request);
    switch (request.type) {
      case 'tab-state':
        return state;
      case 'set-site':
        return setSite?.(request.enabled);
      case 'audit-query':
        return [];
      default:
        return undefined;
    }
  });
  return sent;
}

beforeEach(() => {
  resetFakeBrowser();
  location.search = '';
});
afterEach(() => cleanup());

describe('popup', () => {
  it('asks for permission in the click, then sends set-site and shows the answer', async () => {
    const sent = answerWith(tabState(), (enabled) => ({
      site: 'chat.example.com',
      enabled,
      permitted: true,
      registered: true,
    }));
    let resolvePermission: (granted: boolean) => void = () => undefined;
    fakeBrowser.permissions.request.mockImplementation(
      () => new Promise<boolean>((resolve) => (resolvePermission = resolve)),
    );
    render(h(Popup, {}));
    const toggle = await screen.findByRole('switch');
    expect(toggle.getAttribute('aria-checked')).toBe('false');
    fireEvent.click(toggle);
    // Synchronously inside the click handler (the user gesture), before any message.
    expect(fakeBrowser.permissions.request).toHaveBeenCalledWith({
      origins: ['*://chat.example.com/*'],
    });
    expect(sent.some((message) => message.type === 'set-site')).toBe(false);
    resolvePermission(true);
    await waitFor(() => expect(toggle.getAttribute('aria-checked')).toBe('true'));
    expect(sent).toContainEqual({
      to: 'background',
      type: 'set-site',
      site: 'chat.example.com',
      enabled: true,
    });
  });

  it('says so and sends nothing when the permission is denied', async () => {
    const sent = answerWith(tabState());
    fakeBrowser.permissions.request.mockResolvedValue(false);
    render(h(Popup, {}));
    fireEvent.click(await screen.findByRole('switch'));
    const notice = await screen.findByRole('alert');
    expect(notice.textContent).toContain('Permission was not granted');
    expect(sent.some((message) => message.type === 'set-site')).toBe(false);
    expect(screen.getByRole('switch').getAttribute('aria-checked')).toBe('false');
  });

  it('switches a permitted site off without asking for permission', async () => {
    answerWith(tabState({ enabled: true, permitted: true }), (enabled) => ({
      site: 'chat.example.com',
      enabled,
      permitted: true,
      registered: false,
    }));
    render(h(Popup, {}));
    const toggle = await screen.findByRole('switch');
    fireEvent.click(toggle);
    await waitFor(() => expect(toggle.getAttribute('aria-checked')).toBe('false'));
    expect(fakeBrowser.permissions.request).not.toHaveBeenCalled();
  });

  it('shows live events of the tab in plain words, and the counters', async () => {
    answerWith(tabState({ enabled: true, permitted: true }));
    render(h(Popup, {}));
    await screen.findByRole('switch');
    const live = ports.find((port) => port.name === 'csg-live');
    expect(live?.posted).toEqual([{ tabId: 7 }]);
    live?.deliver({
      type: 'event',
      record: {
        id: 1,
        time: Date.UTC(2026, 10, 29, 12),
        site: 'chat.example.com',
        tabId: 7,
        conversationId: '',
        turnId: '',
        streamId: 's',
        direction: 'in',
        format: 'openai-chat',
        rule: 'aws-access-key-id',
        kind: 'secret',
        action: 'redact',
        start: 0,
        end: 20,
        length: 20,
        digest: 'ab',
        pack: 'secrets',
      },
    });
    live?.deliver({ type: 'counters', tab: 1, today: 4 });
    live?.deliver({ type: 'holding', holding: true });
    live?.deliver({ type: 'event', record: { bogus: true } });
    const liveList = await screen.findByTestId('live-events');
    const row = within(liveList).getByText('AWS access key');
    expect(row.closest('li')?.textContent).toContain('Redacted');
    // The same record also joins the (unfiltered) recent log.
    expect(within(screen.getByTestId('recent-log')).getByText('AWS access key')).toBeTruthy();
    expect(screen.getByTestId('counter-tab').textContent).toBe('1');
    expect(screen.getByTestId('counter-today').textContent).toBe('4');
    expect(screen.getByTestId('holding')).toBeTruthy();
    // The malformed event was dropped.
    expect(within(liveList).getAllByTestId('event')).toHaveLength(1);
  });

  it('shows the answers guarded on the site by adapter, generic and not decodable (issue 18)', async () => {
    answerWith(
      tabState({
        enabled: true,
        permitted: true,
        answers: { adapters: { 'openai-chat': 10 }, generic: 2, undecodable: 1 },
      }),
    );
    render(h(Popup, {}));
    const panel = await screen.findByTestId('answers');
    const summary = () => panel.querySelector('.csg-answers-summary')?.textContent;
    expect(summary()).toBe(
      'Answers guarded on this site: 12 (OpenAI chat 10, generic 2) · could not be decoded: 1',
    );
    expect(screen.getByTestId('answers-generic-note').textContent).toContain(
      'every text field in it is guarded',
    );
    const live = ports.find((port) => port.name === 'csg-live');
    // Another site's answers (a frame of the tab) and a malformed message change nothing.
    live?.deliver({
      type: 'answers',
      site: 'frame.example.net',
      answers: { adapters: {}, generic: 9, undecodable: 9 },
    });
    live?.deliver({ type: 'answers', site: 'chat.example.com', answers: { generic: 1 } });
    live?.deliver({
      type: 'answers',
      site: 'chat.example.com',
      answers: {
        adapters: { 'openai-chat': 10, anthropic: 11, 'plain-text': 1, 'some-new-format': 1 },
        generic: 2,
        undecodable: 3,
      },
    });
    await waitFor(() => expect(screen.getByTestId('answers-guarded').textContent).toBe('25'));
    expect(screen.getAllByTestId('answers-format').map((node) => node.dataset.format)).toEqual([
      'anthropic',
      'openai-chat',
      'plain-text',
      'some-new-format',
      'generic',
    ]);
    expect(summary()).toBe(
      'Answers guarded on this site: 25 (Anthropic 11, OpenAI chat 10, plain text 1, ' +
        'Some new format 1, generic 2) · could not be decoded: 3',
    );
    expect(screen.getByTestId('answers-undecodable').textContent).toBe('3');
  });

  it('shows zero answers on a guarded site, in Simplified Chinese too', async () => {
    const chinese = (await import('../../../_locales/zh_CN/messages.json', {
      with: { type: 'json' },
    })) as { default: Record<string, { message: string }> };
    fakeBrowser.i18n.getMessage.mockImplementation(
      (key: string) => chinese.default[key]?.message ?? '',
    );
    answerWith(
      tabState({
        enabled: true,
        permitted: true,
        answers: { adapters: { 'openai-chat': 1 }, generic: 1, undecodable: 0 },
      }),
    );
    render(h(Popup, {}));
    const panel = await screen.findByTestId('answers');
    expect(panel.querySelector('.csg-answers-summary')?.textContent).toBe(
      '本站已防护的回答： 2 （OpenAI 对话 1，通用 1） · 无法解码： 0',
    );
  });

  it('names an engine error by its kind when it names no rule', async () => {
    answerWith(
      tabState({
        enabled: true,
        permitted: true,
        recent: [
          {
            time: 1,
            site: 'chat.example.com',
            tabId: 7,
            conversationId: '',
            turnId: '',
            streamId: 's',
            direction: 'out',
            format: 'openai-chat',
            rule: '',
            kind: 'error',
            action: 'error',
            start: 0,
            end: 0,
            length: 0,
            digest: '',
            pack: '',
          },
        ],
      }),
    );
    render(h(Popup, {}));
    const row = within(await screen.findByTestId('live-events')).getByTestId('event');
    expect(row.querySelector('.csg-event-action')?.textContent).toBe('Failed closed');
    expect(row.querySelector('.csg-event-rule')?.textContent).toBe('Guard error');
  });

  it('says the background is not reachable when it does not answer', async () => {
    fakeBrowser.runtime.sendMessage.mockRejectedValue(
      new Error('Could not establish connection. Receiving end does not exist.'),
    );
    render(h(Popup, {}));
    const status = await screen.findByTestId('status');
    expect(status.dataset.state).toBe('unreachable');
    expect(status.textContent).toContain('not reachable');
    expect(screen.queryByRole('switch')).toBeNull();
  });
});
