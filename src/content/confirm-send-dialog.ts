/**
 * The in-page "send anyway?" dialog (issue 5 §1, warn policy): a modal dialog
 * in a CLOSED shadow root on a host appended to `document.documentElement`, so
 * page scripts can neither read what it shows nor click it, and page styles
 * cannot reach it (the host resets everything, like page-notices.ts).
 *
 * Keyboard: focus starts on "Cancel" (the safe choice), Tab and Shift+Tab
 * cycle through the buttons, Escape cancels, Enter/Space press the focused
 * button. Focus returns to where it was when the dialog closes. One dialog at
 * a time: a second request waits for the first to be answered.
 *
 * An integrity-bound request (issue 20: Z.ai signs the person's text, so the
 * guard may not change it) asks with its own words and three answers: send it
 * as typed, edit it (not sent; focus goes back to the message), or cancel.
 *
 * What it shows: the kinds and rule ids found, never the matched text (the
 * person typed it; repeating it on screen helps a shoulder-surfer, not them).
 */

export const CONFIRM_HOST_TAG = 'chat-stream-guard-confirm';

export interface ConfirmStrings {
  title: string;
  body: string;
  sendAnyway: string;
  cancel: string;
  /** The line shown per finding, from its kind and rule id. */
  finding(kind: string, rule: string): string;
  /** The words of the integrity-bound dialog (`cancel` and `finding` are shared). */
  bound: { title: string; body: string; sendAsTyped: string; edit: string };
}

export type ConfirmAnswer = 'send' | 'edit' | 'cancel';

export interface ConfirmFinding {
  rule: string;
  kind: string;
}

const STYLE = `
:host { all: initial !important; }
.backdrop {
  position: fixed; inset: 0; z-index: 2147483647; display: grid; place-items: center;
  background: rgb(0 0 0 / 0.35);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "Noto Sans", "PingFang SC", sans-serif;
  --bg: #ffffff; --fg: #1d2330; --muted: #5b6472; --border: #d5d9e0; --accent: #a15c00;
}
@media (prefers-color-scheme: dark) {
  .backdrop { --bg: #1f2430; --fg: #e8ebf1; --muted: #a9b1bf; --border: #3a4254; --accent: #f0b45a; }
}
.dialog {
  box-sizing: border-box; max-inline-size: min(460px, calc(100vw - 32px));
  background: var(--bg); color: var(--fg); border: 1px solid var(--border);
  border-block-start: 4px solid var(--accent); border-radius: 10px; padding: 16px 18px;
  box-shadow: 0 8px 30px rgb(0 0 0 / 0.3);
}
h2 { font-size: 16px; margin: 0 0 8px; }
p { margin: 0 0 8px; }
ul { margin: 0 0 12px; padding-inline-start: 20px; color: var(--muted); }
.actions { display: flex; gap: 8px; justify-content: flex-end; }
button {
  font: inherit; color: var(--fg); background: transparent; cursor: pointer;
  border: 1px solid var(--border); border-radius: 6px; padding: 4px 12px;
}
button.send { border-color: var(--accent); color: var(--accent); }
button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
`;

export class ConfirmSendDialog {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly doc: Document,
    private readonly strings: ConfirmStrings,
  ) {}

  /**
   * Shows the dialog (after any open one is answered); resolves with the person's
   * answer. `bound`: the integrity-bound dialog, which can also answer "edit".
   */
  ask(findings: readonly ConfirmFinding[], bound = false): Promise<ConfirmAnswer> {
    const answer = this.queue.then(() => this.open(findings, bound));
    this.queue = answer.catch(() => undefined);
    return answer.catch(() => 'cancel' as const);
  }

  private open(findings: readonly ConfirmFinding[], bound: boolean): Promise<ConfirmAnswer> {
    const { doc, strings } = this;
    const previous = doc.activeElement as HTMLElement | null;
    const host = doc.createElement(CONFIRM_HOST_TAG);
    host.setAttribute(
      'style',
      'all: initial !important; position: fixed !important; z-index: 2147483647 !important;' +
        ' display: block !important; inset: 0 !important;',
    );
    const shadow = host.attachShadow({ mode: 'closed' });
    const style = doc.createElement('style');
    style.textContent = STYLE;
    const backdrop = doc.createElement('div');
    backdrop.className = 'backdrop';
    const dialog = doc.createElement('div');
    dialog.className = 'dialog';
    dialog.setAttribute('role', 'alertdialog');
    dialog.setAttribute('aria-modal', 'true');
    const title = doc.createElement('h2');
    title.id = 'title';
    title.textContent = bound ? strings.bound.title : strings.title;
    const body = doc.createElement('p');
    body.id = 'body';
    body.textContent = bound ? strings.bound.body : strings.body;
    dialog.setAttribute('aria-labelledby', 'title');
    dialog.setAttribute('aria-describedby', 'body');
    const list = doc.createElement('ul');
    const seen = new Set<string>();
    for (const f of findings) {
      const line = strings.finding(f.kind, f.rule);
      if (seen.has(line)) continue;
      seen.add(line);
      const item = doc.createElement('li');
      item.textContent = line;
      list.append(item);
    }
    const actions = doc.createElement('div');
    actions.className = 'actions';
    const cancel = doc.createElement('button');
    cancel.type = 'button';
    cancel.className = 'cancel';
    cancel.textContent = strings.cancel;
    const send = doc.createElement('button');
    send.type = 'button';
    send.className = 'send';
    send.textContent = bound ? strings.bound.sendAsTyped : strings.sendAnyway;
    const edit = doc.createElement('button');
    edit.type = 'button';
    edit.className = 'edit';
    edit.textContent = strings.bound.edit;
    const buttons = bound ? [send, edit, cancel] : [send, cancel];
    actions.append(...buttons);
    dialog.append(title, body, list, actions);
    backdrop.append(dialog);
    shadow.append(style, backdrop);
    (doc.documentElement ?? doc).append(host);

    return new Promise((resolve) => {
      const close = (answer: ConfirmAnswer) => {
        host.remove();
        previous?.focus?.();
        resolve(answer);
      };
      send.addEventListener('click', () => close('send'));
      cancel.addEventListener('click', () => close('cancel'));
      edit.addEventListener('click', () => close('edit'));
      dialog.addEventListener('keydown', (event: KeyboardEvent) => {
        if (event.key === 'Escape') {
          event.preventDefault();
          close('cancel');
        } else if (event.key === 'Tab') {
          // Focus stays in the dialog: Tab and Shift+Tab cycle through its buttons.
          event.preventDefault();
          const at = buttons.indexOf(shadow.activeElement as HTMLButtonElement);
          const step = event.shiftKey ? -1 : 1;
          buttons[(at + step + buttons.length) % buttons.length]?.focus();
        }
        // Keys never reach the page while the dialog is open.
        event.stopPropagation();
      });
      cancel.focus();
    });
  }
}
