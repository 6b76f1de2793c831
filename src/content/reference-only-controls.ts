/**
 * The "reference only" control next to each past message (issue 5 §3), on
 * pages whose messages the bridge can recognise (MESSAGE_SELECTOR: the mock
 * chat and chat UIs that mark messages with a role and an index).
 *
 * Why an overlay: the controls live in ONE closed shadow root on a host
 * appended to `document.documentElement`, positioned over the top inline-end
 * corner of each message, instead of elements inserted into the chat's DOM.
 * Chat pages re-render a message's HTML on every streamed delta and walk their
 * transcript's children; anything inserted there would be wiped or would
 * confuse the page. The overlay changes nothing in the page's DOM but one host
 * element, and the page cannot read or click into it. It lets clicks through
 * everywhere but on the buttons (pointer-events), follows scrolling, resizing
 * and DOM changes, and each button is a real, focusable toggle
 * (`aria-pressed`) with a label naming the message.
 */

export const CONTROLS_HOST_TAG = 'chat-stream-guard-reference-only';
/**
 * Messages with a role and an index (test/mock-chat/chat.html). A message's position
 * is its place among them in document order, not its `data-index` value: pages number
 * differently (the mock numbers user turns from 1 and answers from 0), while the
 * order of the shown messages is the order the page sends them in.
 */
export const MESSAGE_SELECTOR = '[data-role][data-index]';

export interface ReferenceOnlyStrings {
  /** Label of the toggle of message number `n` (1-based) with role `role`. */
  label(n: number, role: string): string;
  /** Tooltip. */
  title: string;
}

export interface ReferenceOnlyControlsDeps {
  doc: Document;
  win: Window;
  strings: ReferenceOnlyStrings;
  isMarked(index: number): boolean;
  /** The person toggled message `index`, whose shown text is `shown`. */
  toggle(index: number, shown: string, marked: boolean): void;
}

const SIZE = 22;

const STYLE = `
:host { all: initial !important; }
.layer { position: absolute; inset-block-start: 0; inset-inline-start: 0; inline-size: 0; block-size: 0; pointer-events: none; }
button {
  position: absolute; box-sizing: border-box; inline-size: ${SIZE}px; block-size: ${SIZE}px;
  pointer-events: auto; cursor: pointer; padding: 0; border-radius: 50%;
  border: 1px solid #9aa3b2; background: #ffffffd9; color: #5b6472;
  font: 12px/1 system-ui, sans-serif; opacity: 0.55;
}
button:hover, button:focus-visible { opacity: 1; }
button[aria-pressed="true"] { opacity: 1; background: #a15c00; border-color: #a15c00; color: #fff; }
button:focus-visible { outline: 2px solid #2458c6; outline-offset: 1px; }
`;

/**
 * The overlay: its host (not yet in the document), closed shadow root, style and the
 * layer the buttons go in.
 */
function createOverlay(doc: Document): { host: HTMLElement; layer: HTMLDivElement } {
  const host = doc.createElement(CONTROLS_HOST_TAG);
  host.setAttribute(
    'style',
    'all: initial !important; position: absolute !important; inset: 0 auto auto 0 !important;' +
      ' display: block !important; inline-size: 0 !important; block-size: 0 !important;' +
      ' z-index: 2147483646 !important;',
  );
  const shadow = host.attachShadow({ mode: 'closed' });
  const style = doc.createElement('style');
  style.textContent = STYLE;
  const layer = doc.createElement('div');
  layer.className = 'layer';
  shadow.append(style, layer);
  return { host, layer };
}

export function installReferenceOnlyControls(deps: ReferenceOnlyControlsDeps): { refresh(): void } {
  const { doc, win } = deps;
  /**
   * Made when a message is first shown, not at install (issue 19 §4): most guarded pages
   * show none for a while or ever (a page that only loads, a site whose messages lack
   * MESSAGE_SELECTOR's marks), and the host, its closed shadow root and its style were
   * about 2 ms of every page's set-up in Chromium traces (docs/page-setup.md).
   */
  let overlay: { host: HTMLElement; layer: HTMLDivElement } | undefined;
  const buttons = new Map<number, HTMLButtonElement>();
  /** Position → the message element it was last seen on. */
  let shownAt: HTMLElement[] = [];

  const buttonFor = (layer: HTMLDivElement, index: number): HTMLButtonElement => {
    let button = buttons.get(index);
    if (button === undefined) {
      const made = doc.createElement('button');
      made.type = 'button';
      made.textContent = '⊘';
      made.title = deps.strings.title;
      made.dataset.index = String(index);
      made.addEventListener('click', () => {
        const message = shownAt[index];
        const marked = made.getAttribute('aria-pressed') !== 'true';
        made.setAttribute('aria-pressed', String(marked));
        deps.toggle(index, message?.textContent ?? '', marked);
      });
      buttons.set(index, made);
      layer.append(made);
      button = made;
    }
    return button;
  };

  const refresh = () => {
    shownAt = [...doc.querySelectorAll<HTMLElement>(MESSAGE_SELECTOR)];
    if (overlay === undefined && shownAt.length === 0) return;
    overlay ??= createOverlay(doc);
    const { host, layer } = overlay;
    if (!host.isConnected) (doc.documentElement ?? doc).append(host);
    const seen = new Set<number>();
    for (const [index, message] of shownAt.entries()) {
      seen.add(index);
      const rect = message.getBoundingClientRect();
      const button = buttonFor(layer, index);
      button.style.left = `${String(rect.right + win.scrollX - SIZE - 2)}px`;
      button.style.top = `${String(rect.top + win.scrollY + 2)}px`;
      button.setAttribute('aria-pressed', String(deps.isMarked(index)));
      button.setAttribute('aria-label', deps.strings.label(index + 1, message.dataset.role ?? ''));
    }
    for (const [index, button] of buttons) {
      if (seen.has(index)) continue;
      button.remove();
      buttons.delete(index);
    }
  };

  let scheduled = false;
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    win.requestAnimationFrame(() => {
      scheduled = false;
      refresh();
    });
  };
  // Not `characterData`: a streaming answer grows its text node on every token, and each
  // change would queue a record and run `schedule` inside the page's own task (seen in
  // the traces of `npm run bench`). The controls move when messages come or go (childList,
  // which also sees frameworks that re-render text by replacing nodes), on resize and on
  // scroll.
  new MutationObserver(schedule).observe(doc, { childList: true, subtree: true });
  win.addEventListener('resize', schedule, { passive: true });
  win.addEventListener('scroll', schedule, { passive: true, capture: true });
  schedule();
  return { refresh };
}
