// @vitest-environment happy-dom
/**
 * In-page notices (issue 4) in a DOM: only the newest is shown whole, older redaction
 * notices fold to one line that opens again, warnings and errors never fold, and what
 * the page's own styles or scripts do cannot reach them (closed shadow root).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NOTICE_HOST_TAG, PageNotices } from '../../../src/content/page-notices.ts';

const STRINGS = {
  regionLabel: 'Chat Stream Guard',
  holding: 'Holding…',
  openPopup: 'Open Chat Stream Guard',
  openPopupFallback: 'Click the toolbar icon',
  close: 'Close',
};

/** Notices on this document, with the closed shadow root kept for the test to read. */
function setup(): { notices: PageNotices; root: () => ShadowRoot } {
  let shadow: ShadowRoot | undefined;
  const attach = Element.prototype.attachShadow;
  vi.spyOn(Element.prototype, 'attachShadow').mockImplementation(function (
    this: Element,
    init: ShadowRootInit,
  ) {
    shadow = attach.call(this, init);
    return shadow;
  });
  const notices = new PageNotices({
    doc: document,
    strings: STRINGS,
    openPopup: () => Promise.resolve(true),
    setTimeout: () => 0,
    clearTimeout: () => undefined,
  });
  return {
    notices,
    root: () => {
      if (shadow === undefined) throw new Error('no shadow root yet');
      return shadow;
    },
  };
}

function card(root: ShadowRoot, key: string): HTMLElement {
  const found = root.querySelector<HTMLElement>(`.notice[data-key="${key}"]`);
  if (found === null) throw new Error(`no notice ${key}`);
  return found;
}

afterEach(() => {
  vi.restoreAllMocks();
  document.documentElement.querySelector(NOTICE_HOST_TAG)?.remove();
});

describe('PageNotices folding', () => {
  it('shows the newest whole and folds older redaction notices to one line', () => {
    const { notices, root } = setup();
    notices.show('s:1', 'redacted a secret', 'info');
    expect(notices.folded).toEqual([]);
    notices.show('s:2', 'redacted a link', 'info');
    notices.show('s:3', 'redacted invisible text', 'info');
    expect(notices.folded).toEqual(['s:1', 's:2']);
    // Every notice is still there to read, folded or not.
    expect(notices.shown).toEqual([
      'redacted a secret',
      'redacted a link',
      'redacted invisible text',
    ]);
    const folded = card(root(), 's:1').querySelector<HTMLElement>('.text');
    expect(folded?.getAttribute('role')).toBe('button');
    expect(folded?.getAttribute('aria-expanded')).toBe('false');
    expect(card(root(), 's:3').querySelector('.text')?.getAttribute('role')).toBeNull();
  });

  it('never folds a warning or an error', () => {
    const { notices } = setup();
    notices.show('b:1', 'blocked an answer', 'warning');
    notices.show('f:1', 'the guard failed', 'error');
    notices.show('s:1', 'redacted a secret', 'info');
    notices.show('s:2', 'redacted a link', 'info');
    expect(notices.folded).toEqual(['s:1']);
  });

  it('opens a folded notice on a click on its text or Enter, not on its close button', () => {
    const { notices, root } = setup();
    notices.show('s:1', 'redacted a secret', 'info');
    notices.show('s:2', 'redacted a link', 'info');
    notices.show('s:3', 'redacted a card number', 'info');
    const first = card(root(), 's:1');
    first.querySelector<HTMLElement>('.text')?.click();
    expect(notices.folded).toEqual(['s:2']);
    expect(first.querySelector('.text')?.hasAttribute('tabindex')).toBe(false);

    const second = card(root(), 's:2').querySelector<HTMLElement>('.text');
    second?.dispatchEvent(new KeyboardEvent('keydown', { key: 'Tab', bubbles: true }));
    expect(notices.folded).toEqual(['s:2']);
    second?.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    expect(notices.folded).toEqual([]);

    notices.show('s:4', 'redacted an e-mail address', 'info');
    expect(notices.folded).toEqual(['s:1', 's:2', 's:3']);
    card(root(), 's:3').querySelector<HTMLElement>('button.close')?.click();
    expect(notices.shown).not.toContain('redacted a card number');
    expect(notices.folded).toEqual(['s:1', 's:2']);
  });
});
