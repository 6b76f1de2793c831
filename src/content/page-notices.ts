/**
 * In-page notices (issue 4): a small "holding…" indicator and notices about
 * redactions, blocks and guard failures, with a button that opens the popup.
 *
 * They live in a CLOSED shadow root on a host element appended to
 * `document.documentElement`, never inside the page's own DOM around the chat:
 * the page's scripts cannot reach into the shadow root, and its styles cannot
 * leak in (the host resets everything with `all: initial`). The list is a
 * polite live region (role=status), so screen readers announce a notice
 * without interrupting; colours follow `prefers-color-scheme`. Redaction
 * notices dismiss themselves after a few seconds; blocks and failures stay
 * until the person closes them.
 *
 * Only the newest notice is shown whole: an older redaction notice folds to one line
 * (its text cut with an ellipsis, no buttons but close) that opens again on a click or
 * Enter. Three whole cards stacked in the corner covered the top of the answer they were
 * about (the demo's first screenshot, stop 27). Warnings and errors never fold: a block
 * or a failure must be read.
 */

export const NOTICE_HOST_TAG = 'chat-stream-guard-notices';
export const REDACTION_NOTICE_MS = 8_000;
/** At most this many notices at once; the oldest goes first. */
const MAX_NOTICES = 4;

export type NoticeTone = 'info' | 'warning' | 'error';

export interface NoticeStrings {
  regionLabel: string;
  holding: string;
  openPopup: string;
  /** Said instead when the popup cannot be opened from the page. */
  openPopupFallback: string;
  close: string;
}

export interface PageNoticesDeps {
  doc: Document;
  strings: NoticeStrings;
  /** Asks the background to open the popup; resolves false when it could not. */
  openPopup(): Promise<boolean>;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const STYLE = `
:host { all: initial !important; }
.root {
  /* Top end corner: chat composers and their Send buttons sit at the bottom, and a
     notice must never cover the control the person is about to use. Only the cards
     take pointer events, never the gaps between them. */
  position: fixed; inset-block-start: 12px; inset-inline-end: 16px; z-index: 2147483647;
  display: flex; flex-direction: column; gap: 8px; align-items: flex-end;
  pointer-events: none;
  max-inline-size: min(420px, calc(100vw - 32px));
  font: 13px/1.4 system-ui, -apple-system, "Segoe UI", "Noto Sans", "PingFang SC", sans-serif;
  --bg: #ffffff; --fg: #1d2330; --muted: #5b6472; --border: #d5d9e0;
  --info: #2458c6; --warning: #a15c00; --error: #b42318;
}
@media (prefers-color-scheme: dark) {
  .root {
    --bg: #1f2430; --fg: #e8ebf1; --muted: #a9b1bf; --border: #3a4254;
    --info: #8fb3ff; --warning: #f0b45a; --error: #ff8a80;
  }
}
.notice, .holding {
  pointer-events: auto; box-sizing: border-box; background: var(--bg); color: var(--fg);
  border: 1px solid var(--border); border-inline-start: 4px solid var(--info);
  border-radius: 8px; padding: 8px 10px; box-shadow: 0 2px 10px rgb(0 0 0 / 0.18);
}
.notice { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 4px 8px; inline-size: 100%; }
.notice[data-tone="warning"] { border-inline-start-color: var(--warning); }
.notice[data-tone="error"] { border-inline-start-color: var(--error); }
.holding { color: var(--muted); padding: 4px 10px; font-size: 12px; }
.holding[hidden] { display: none; }
.text { margin: 0; }
.actions { grid-column: 1 / -1; display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.hint { margin: 0; color: var(--muted); font-size: 12px; }
.notice[data-folded] { padding: 3px 10px; }
.notice[data-folded] .text {
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; cursor: pointer;
}
.notice[data-folded] .text:focus-visible { outline: 2px solid var(--info); outline-offset: 1px; }
.notice[data-folded] .actions { display: none; }
button {
  font: inherit; color: var(--info); background: transparent; cursor: pointer;
  border: 1px solid var(--border); border-radius: 6px; padding: 2px 8px;
}
button.close { border: none; color: var(--muted); padding: 0 4px; font-size: 16px; line-height: 1; }
button:focus-visible { outline: 2px solid var(--info); outline-offset: 1px; }
@media (prefers-reduced-motion: no-preference) {
  .notice { animation: csg-in 120ms ease-out; }
  @keyframes csg-in { from { opacity: 0; transform: translateY(-4px); } }
}
`;

export class PageNotices {
  private host: HTMLElement | undefined;
  private list: HTMLElement | undefined;
  private holdingLine: HTMLElement | undefined;
  private readonly keys = new Map<string, HTMLElement>();

  constructor(private readonly deps: PageNoticesDeps) {}

  /** Shows or hides the holding indicator. */
  setHolding(visible: boolean): void {
    if (!visible && this.holdingLine === undefined) return;
    const line = this.ensure().holdingLine as HTMLElement;
    line.hidden = !visible;
  }

  /**
   * Shows a notice; a notice with the same `key` already shown is not repeated.
   * `autoDismissMs` undefined: it stays until closed.
   */
  show(key: string, text: string, tone: NoticeTone, autoDismissMs?: number): void {
    if (this.keys.has(key)) return;
    const { doc, strings } = this.deps;
    const list = this.ensure().list as HTMLElement;
    while (list.children.length >= MAX_NOTICES && list.firstElementChild) {
      this.remove(list.firstElementChild as HTMLElement);
    }

    const notice = doc.createElement('div');
    notice.className = 'notice';
    notice.dataset.tone = tone;
    notice.dataset.key = key;
    const paragraph = doc.createElement('p');
    paragraph.className = 'text';
    paragraph.textContent = text;
    const close = doc.createElement('button');
    close.type = 'button';
    close.className = 'close';
    close.textContent = '×';
    close.setAttribute('aria-label', strings.close);
    close.addEventListener('click', () => this.remove(notice));
    const actions = doc.createElement('div');
    actions.className = 'actions';
    const open = doc.createElement('button');
    open.type = 'button';
    open.textContent = strings.openPopup;
    open.addEventListener('click', () => {
      void this.deps
        .openPopup()
        .catch(() => false)
        .then((opened) => {
          if (opened || actions.querySelector('.hint')) return;
          const hint = doc.createElement('p');
          hint.className = 'hint';
          hint.textContent = strings.openPopupFallback;
          actions.append(hint);
        });
    });
    actions.append(open);
    notice.append(paragraph, close, actions);
    for (const older of this.keys.values()) fold(older);
    list.append(notice);
    this.keys.set(key, notice);

    if (autoDismissMs !== undefined) {
      const timer = this.deps.setTimeout(() => this.remove(notice), autoDismissMs);
      // Someone reading or about to click: keep it while hovered or focused.
      const keep = () => this.deps.clearTimeout(timer);
      notice.addEventListener('mouseenter', keep, { once: true });
      notice.addEventListener('focusin', keep, { once: true });
    }
  }

  /** Removes every notice whose key starts with `prefix` (a stream's notices). */
  dismiss(prefix: string): void {
    for (const [key, notice] of [...this.keys]) {
      if (key.startsWith(prefix)) this.remove(notice);
    }
  }

  /** Texts of the notices shown now (for tests and the holding state). */
  get shown(): string[] {
    return Array.from(this.keys.values(), (n) => n.querySelector('.text')?.textContent ?? '');
  }

  private remove(notice: HTMLElement): void {
    const key = notice.dataset.key;
    if (key !== undefined) this.keys.delete(key);
    notice.remove();
  }

  /** Keys of the notices shown folded to one line now (for tests). */
  get folded(): string[] {
    return [...this.keys].filter(([, n]) => n.dataset.folded !== undefined).map(([k]) => k);
  }

  /** Builds the host and its closed shadow root on first use. */
  private ensure(): { list: HTMLElement; holdingLine: HTMLElement } {
    if (this.list && this.holdingLine && this.host?.isConnected) {
      return { list: this.list, holdingLine: this.holdingLine };
    }
    const { doc, strings } = this.deps;
    const host = this.host ?? doc.createElement(NOTICE_HOST_TAG);
    if (this.host === undefined) {
      // Inline !important beats any page stylesheet rule aimed at the host.
      host.setAttribute(
        'style',
        'all: initial !important; position: fixed !important; z-index: 2147483647 !important;' +
          ' display: block !important; inset: auto !important; inline-size: 0 !important;' +
          ' block-size: 0 !important;',
      );
      const shadow = host.attachShadow({ mode: 'closed' });
      const style = doc.createElement('style');
      style.textContent = STYLE;
      const root = doc.createElement('div');
      root.className = 'root';
      root.setAttribute('role', 'region');
      root.setAttribute('aria-label', strings.regionLabel);
      const list = doc.createElement('div');
      list.className = 'list';
      list.setAttribute('role', 'status');
      list.setAttribute('aria-live', 'polite');
      const holdingLine = doc.createElement('div');
      holdingLine.className = 'holding';
      holdingLine.setAttribute('role', 'status');
      holdingLine.setAttribute('aria-live', 'polite');
      holdingLine.textContent = strings.holding;
      holdingLine.hidden = true;
      root.append(list, holdingLine);
      shadow.append(style, root);
      this.host = host;
      this.list = list;
      this.holdingLine = holdingLine;
    }
    // Re-attached if the page replaced <html>'s children or removed the host.
    (doc.documentElement ?? doc).append(host);
    return { list: this.list as HTMLElement, holdingLine: this.holdingLine as HTMLElement };
  }
}

/**
 * Folds an info notice to one line. Its text becomes the control that opens it again (a
 * click, or Enter/Space with focus), so the close button is never nested in another control.
 * Warnings and errors stay whole.
 */
function fold(notice: HTMLElement): void {
  const text = notice.querySelector<HTMLElement>('.text');
  if (notice.dataset.tone !== 'info' || notice.dataset.folded !== undefined || text === null) {
    return;
  }
  notice.dataset.folded = '';
  text.tabIndex = 0;
  text.setAttribute('role', 'button');
  text.setAttribute('aria-expanded', 'false');
  const unfold = (): void => {
    delete notice.dataset.folded;
    text.removeAttribute('tabindex');
    text.removeAttribute('role');
    text.removeAttribute('aria-expanded');
    text.removeEventListener('click', unfold);
    text.removeEventListener('keydown', onKey);
  };
  const onKey = (event: KeyboardEvent): void => {
    if (event.key !== 'Enter' && event.key !== ' ') return;
    event.preventDefault();
    unfold();
  };
  text.addEventListener('click', unfold);
  text.addEventListener('keydown', onKey);
}
