// @vitest-environment happy-dom
/**
 * The bridge's outgoing DOM pieces in a DOM: the paste tracker remembers a paste
 * only when armed or long enough (from the clipboard data, or from the field's
 * insertion when the clipboard data is unreadable), and the confirm dialog lives in
 * a closed shadow root, starts on "cancel", and answers by keyboard.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIRM_HOST_TAG, ConfirmSendDialog } from '../../../src/content/confirm-send-dialog.ts';
import { trackPastes } from '../../../src/content/paste-tracker.ts';
import { PastedSpans } from '../../../src/content/pasted-spans.ts';

afterEach(() => {
  document.body.innerHTML = '';
});

function paste(target: HTMLTextAreaElement, clipboard: string, inserted: string): void {
  const event = new Event('paste', { bubbles: true, cancelable: true }) as ClipboardEvent;
  Object.defineProperty(event, 'clipboardData', {
    value: { getData: (type: string) => (type === 'text/plain' ? clipboard : '') },
  });
  target.dispatchEvent(event);
  target.value += inserted;
  const input = new Event('input', { bubbles: true }) as InputEvent;
  Object.defineProperty(input, 'inputType', { value: 'insertFromPaste' });
  target.dispatchEvent(input);
}

describe('trackPastes', () => {
  it('remembers long pastes automatically and short ones only when armed', () => {
    const spans = new PastedSpans();
    let min = 10;
    const tracker = trackPastes({ doc: document, spans, autoMinChars: () => min });
    const field = document.createElement('textarea');
    document.body.append(field);
    paste(field, 'short', 'short');
    expect(spans.size).toBe(0);
    paste(field, 'a long enough paste', 'a long enough paste');
    expect(spans.found(['a long enough paste'])).toEqual(['a long enough paste']);
    min = 0;
    paste(field, 'another long paste here', 'another long paste here');
    expect(spans.found(['another long paste here'])).toEqual([]);
    tracker.armNextPaste();
    paste(field, 'tiny', 'tiny');
    expect(spans.found(['tiny'])).toEqual(['tiny']);
    expect(tracker.armed).toBe(false);
  });

  it('reads the insertion from the field when the clipboard data is unreadable', () => {
    const spans = new PastedSpans();
    trackPastes({ doc: document, spans, autoMinChars: () => 5 });
    const field = document.createElement('textarea');
    field.value = 'typed: ';
    document.body.append(field);
    paste(field, '', 'from the field');
    expect(spans.found(['typed: from the field'])).toEqual(['from the field']);
  });

  it('ignores pastes outside text fields', () => {
    const spans = new PastedSpans();
    trackPastes({ doc: document, spans, autoMinChars: () => 1 });
    const div = document.createElement('div');
    document.body.append(div);
    const event = new Event('paste', { bubbles: true }) as ClipboardEvent;
    Object.defineProperty(event, 'clipboardData', { value: { getData: () => 'data' } });
    div.dispatchEvent(event);
    expect(spans.size).toBe(0);
  });
});

describe('ConfirmSendDialog', () => {
  const strings = {
    title: 'Send?',
    body: 'Found personal data.',
    sendAnyway: 'Send anyway',
    cancel: 'Cancel',
    finding: (kind: string, rule: string) => `${kind}/${rule}`,
    bound: { title: 'Signed', body: 'Cannot change it.', sendAsTyped: 'As typed', edit: 'Edit' },
  };

  /** Opens the dialog, keeping a handle on its closed shadow root (as a test only can). */
  async function open(dialog: ConfirmSendDialog, bound = false) {
    let root: ShadowRoot | undefined;
    const attach = Element.prototype.attachShadow;
    Element.prototype.attachShadow = function (init: ShadowRootInit) {
      root = attach.call(this, init);
      return root;
    };
    try {
      const answer = dialog.ask([{ kind: 'pii', rule: 'email-address' }], bound);
      await new Promise((resolve) => setTimeout(resolve, 0));
      return { answer, root: root as ShadowRoot };
    } finally {
      Element.prototype.attachShadow = attach;
    }
  }

  it('opens in a closed shadow root, focus on cancel; Escape cancels', async () => {
    const { answer, root } = await open(new ConfirmSendDialog(document, strings));
    const host = document.querySelector(CONFIRM_HOST_TAG) as HTMLElement;
    expect(host.shadowRoot).toBeNull();
    expect(root.textContent).toContain('pii/email-address');
    const cancel = root.querySelector('button.cancel') as HTMLButtonElement;
    expect(root.activeElement).toBe(cancel);
    cancel.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    expect(await answer).toBe('cancel');
    expect(document.querySelector(CONFIRM_HOST_TAG)).toBeNull();
  });

  it('Tab moves to "send anyway", which answers send; a second dialog waits for the first', async () => {
    const dialog = new ConfirmSendDialog(document, strings);
    const first = await open(dialog);
    const second = dialog.ask([{ kind: 'pii', rule: 'phone-e164' }]);
    expect(document.querySelectorAll(CONFIRM_HOST_TAG)).toHaveLength(1);
    const cancel = first.root.querySelector('button.cancel') as HTMLButtonElement;
    cancel.dispatchEvent(new KeyboardEvent('keydown', { key: 'Tab', bubbles: true }));
    const send = first.root.querySelector('button.send') as HTMLButtonElement;
    expect(first.root.activeElement).toBe(send);
    send.click();
    expect(await first.answer).toBe('send');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(document.querySelectorAll(CONFIRM_HOST_TAG)).toHaveLength(1);
    (document.querySelector(CONFIRM_HOST_TAG) as HTMLElement).remove();
    void second;
  });

  it('integrity-bound: its own words, three answers; Shift+Tab from cancel reaches "edit"', async () => {
    const before = document.createElement('textarea');
    document.body.append(before);
    before.focus();
    const { answer, root } = await open(new ConfirmSendDialog(document, strings), true);
    expect(root.querySelector('h2')?.textContent).toBe('Signed');
    const labels = [...root.querySelectorAll('button')].map((b) => b.textContent);
    expect(labels).toEqual(['As typed', 'Edit', 'Cancel']);
    const cancel = root.querySelector('button.cancel') as HTMLButtonElement;
    expect(root.activeElement).toBe(cancel);
    cancel.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Tab', shiftKey: true, bubbles: true }),
    );
    const edit = root.querySelector('button.edit') as HTMLButtonElement;
    expect(root.activeElement).toBe(edit);
    edit.click();
    expect(await answer).toBe('edit');
    // Back to the message the person is to edit.
    expect(document.activeElement).toBe(before);
    before.remove();
  });

  it('the ordinary dialog has no "edit" answer', async () => {
    const { answer, root } = await open(new ConfirmSendDialog(document, strings));
    expect(root.querySelector('button.edit')).toBeNull();
    (root.querySelector('button.cancel') as HTMLButtonElement).click();
    expect(await answer).toBe('cancel');
  });
});
