// @vitest-environment happy-dom
/**
 * The popup's note on a chat site without an adapter (issue 20 §1,
 * WIRE-FORMATS-2.md §4.5 Poe: no current protocol found): shown there, nowhere else.
 */
import { cleanup, render, screen } from '@testing-library/preact';
import { h } from 'preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from './fake-browser.ts';

vi.mock('webextension-polyfill', async () => ({
  default: (await import('./fake-browser.ts')).fakeBrowser,
}));

const { UnguardedSiteNote } = await import('../../../src/ui/popup/unguarded-site-note.tsx');
const english = (await import('../../../_locales/en/messages.json', {
  with: { type: 'json' },
})) as { default: Record<string, { message: string }> };

afterEach(() => cleanup());

describe('UnguardedSiteNote', () => {
  it('says Poe is not guarded, and says nothing on a guarded site', () => {
    fakeBrowser.i18n.getMessage.mockImplementation((key: string, sub?: string | string[]) =>
      (english.default[key]?.message ?? '').replace('$SITE$', String(sub)),
    );
    render(h(UnguardedSiteNote, { host: 'poe.com' }));
    expect(screen.getByTestId('unguarded-site').textContent).toMatch(
      /^Answers on poe\.com are not guarded/,
    );
    cleanup();
    for (const host of ['copilot.microsoft.com', 'chatgpt.com', 'poe.com.example', undefined]) {
      render(h(UnguardedSiteNote, { host }));
      expect(screen.queryByTestId('unguarded-site'), String(host)).toBeNull();
      cleanup();
    }
  });
});
