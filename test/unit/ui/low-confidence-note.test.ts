// @vitest-environment happy-dom
/**
 * The popup's note on a site whose wire format has LOW confidence (issue 20 §2,
 * WIRE-FORMATS-2.md §3.2 Qianwen, §4.4 Le Chat): shown there, nowhere else.
 */
import { cleanup, render, screen } from '@testing-library/preact';
import { h } from 'preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from './fake-browser.ts';

vi.mock('webextension-polyfill', async () => ({
  default: (await import('./fake-browser.ts')).fakeBrowser,
}));

const { LowConfidenceNote } = await import('../../../src/ui/popup/low-confidence-note.tsx');
const english = (await import('../../../_locales/en/messages.json', {
  with: { type: 'json' },
})) as { default: Record<string, { message: string }> };

afterEach(() => cleanup());

describe('LowConfidenceNote', () => {
  it('says so on a LOW-confidence site and nowhere else', () => {
    fakeBrowser.i18n.getMessage.mockImplementation(
      (key: string) => english.default[key]?.message ?? '',
    );
    render(h(LowConfidenceNote, { host: 'www.qianwen.com' }));
    expect(screen.getByTestId('low-confidence').textContent).toMatch(/single public source/);
    cleanup();
    for (const host of [
      'www.kimi.com',
      'www.doubao.com',
      'chat.qwen.ai',
      'constructor',
      undefined,
    ]) {
      render(h(LowConfidenceNote, { host }));
      expect(screen.queryByTestId('low-confidence'), String(host)).toBeNull();
      cleanup();
    }
  });
});
