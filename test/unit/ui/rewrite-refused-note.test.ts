// @vitest-environment happy-dom
/**
 * The popup's site status on a site that refused a rewritten request (issue 20 §1,
 * content/rewrite-refusals.ts): it says the site's sends are asked about, and its
 * button forgets the site (storage.local `rewriteRefusals`); nothing on other sites.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { h } from 'preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REWRITE_REFUSALS_KEY } from '../../../src/protocol/rewrite-refusals.ts';
import { localArea, resetFakeBrowser } from './fake-browser.ts';

vi.mock('webextension-polyfill', async () => ({
  default: (await import('./fake-browser.ts')).fakeBrowser,
}));

const { RewriteRefusedNote, siteKeyOfHost } =
  await import('../../../src/ui/popup/rewrite-refused-note.tsx');

const refusal = { format: 'openai-chat', status: 403, at: 1 };

beforeEach(() => resetFakeBrowser());
afterEach(() => cleanup());

describe('RewriteRefusedNote', () => {
  it('keys a popup host (with its port) the way the page does (no port, lower case)', () => {
    expect(siteKeyOfHost('127.0.0.1:8123')).toBe('127.0.0.1');
    expect(siteKeyOfHost('Chat.Example')).toBe('chat.example');
    expect(siteKeyOfHost(undefined)).toBeUndefined();
  });

  it('says so on a remembered site, and its button forgets that site only', async () => {
    localArea[REWRITE_REFUSALS_KEY] = { '127.0.0.1': refusal, 'other.example': refusal };
    render(h(RewriteRefusedNote, { host: '127.0.0.1:8123' }));
    const note = await screen.findByTestId('rewrite-refused');
    expect(note.textContent).toMatch(/send as typed, edit, or cancel/);
    fireEvent.click(screen.getByTestId('rewrite-refused-reset'));
    await waitFor(() => expect(screen.queryByTestId('rewrite-refused')).toBeNull());
    expect(localArea[REWRITE_REFUSALS_KEY]).toEqual({ 'other.example': refusal });
  });

  it('shows nothing on a site that was not remembered', async () => {
    localArea[REWRITE_REFUSALS_KEY] = { 'other.example': refusal };
    render(h(RewriteRefusedNote, { host: 'chat.example' }));
    // Let the storage read settle before looking for nothing.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(screen.queryByTestId('rewrite-refused')).toBeNull();
  });
});
