// @vitest-environment happy-dom
/**
 * The popup's note on a site whose sends are integrity-bound (issue 20 §1,
 * WIRE-FORMATS-2.md §0.2: Z.ai signs the person's text): DLP on send asks
 * there instead of rewriting, and the popup says so; nowhere else.
 */
import { cleanup, render, screen } from '@testing-library/preact';
import { h } from 'preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from './fake-browser.ts';

vi.mock('webextension-polyfill', async () => ({
  default: (await import('./fake-browser.ts')).fakeBrowser,
}));

const { SignedSendsNote } = await import('../../../src/ui/popup/signed-sends-note.tsx');
const english = (await import('../../../_locales/en/messages.json', {
  with: { type: 'json' },
})) as { default: Record<string, { message: string }> };

afterEach(() => cleanup());

describe('SignedSendsNote', () => {
  it('says so on chat.z.ai and nowhere else', () => {
    fakeBrowser.i18n.getMessage.mockImplementation(
      (key: string) => english.default[key]?.message ?? '',
    );
    render(h(SignedSendsNote, { host: 'chat.z.ai' }));
    expect(screen.getByTestId('signed-sends').textContent).toMatch(
      /send as typed, edit, or cancel/,
    );
    cleanup();
    for (const host of ['chatglm.cn', 'www.perplexity.ai', 'z.ai', 'constructor', undefined]) {
      render(h(SignedSendsNote, { host }));
      expect(screen.queryByTestId('signed-sends'), String(host)).toBeNull();
      cleanup();
    }
  });
});
