/**
 * ISOLATED-world entry (document_start, every frame of a guarded site): the bridge
 * between the MAIN world (src/page) and the background.
 *
 * Message flow:
 *   MAIN world ──(private MessagePort, PageToBridge)──▶ bridge: parsePageMessage
 *     re-validates every field; valid messages are forwarded to the background as
 *     ContentToBackground (`guard-events`, `holding`, `stream-end`, `wire-issue`) and
 *     drive the in-page notices (closed shadow root, page-notices.ts).
 *   bridge ──(`page-config`)──▶ background ──(PageConfigAnswer)──▶ bridge
 *   bridge ──(`page-pack`)────▶ background ──(PagePackAnswer: the compiled packs)──▶ bridge
 *     ──(BridgeToPage `config`)──▶ MAIN world, which applies it to new streams.
 *   notice button ──(`open-popup`)──▶ background ──(OpenPopupAnswer)──▶ bridge.
 *
 * The port is handed over by page-channel-handshake.ts before any page script runs;
 * the page never sees it, and nothing the page posts to `window` reaches this code.
 * Once the channel is up, the document is marked `data-csg-channel="open"` (tests).
 */
import browser, { type Runtime } from 'webextension-polyfill';
import type { CompiledPageRules, PageConfig } from '../protocol/settings-schema.ts';
import { type ContentToBackground, isBackgroundToContent } from '../protocol/runtime-messages.ts';
import { t } from '../ui/i18n.ts';
import { createBackgroundLink } from './background-link.ts';
import { HoldingDisplay } from './holding-display.ts';
import { browserHandshakeDeps, startHandshake } from './page-channel-handshake.ts';
import { handlePageMessage } from './page-report-handler.ts';
import { PageNotices, REDACTION_NOTICE_MS } from './page-notices.ts';
import { parsePageMessage } from './parse-page-message.ts';
import { installOutgoing } from './install-outgoing.ts';

function onDocumentElement(mark: (root: Element) => void): void {
  if (document.documentElement) {
    mark(document.documentElement);
    return;
  }
  const observer = new MutationObserver(() => {
    if (!document.documentElement) return;
    observer.disconnect();
    mark(document.documentElement);
  });
  observer.observe(document, { childList: true });
}

const link = createBackgroundLink((message: ContentToBackground) =>
  browser.runtime.sendMessage(message),
);

const notices = new PageNotices({
  doc: document,
  strings: {
    regionLabel: t('notice_region_label'),
    holding: t('notice_holding'),
    openPopup: t('notice_open_popup'),
    openPopupFallback: t('notice_open_popup_fallback'),
    close: t('notice_close'),
  },
  openPopup: () => link.openPopup(),
  setTimeout: (callback, ms) => window.setTimeout(callback, ms),
  clearTimeout: (handle) => window.clearTimeout(handle as number),
});

const holdingDisplay = new HoldingDisplay(
  {
    set: (callback, ms) => window.setTimeout(callback, ms),
    clear: (handle) => window.clearTimeout(handle as number),
  },
  (visible) => notices.setHolding(visible),
);

let pagePort: MessagePort | undefined;
let config: PageConfig | undefined;
/** The packs compiled by the background (`page-pack`), asked for beside the config. */
let compiled: CompiledPageRules | undefined;

// Issue 5: paste tracking, reference-only controls, the confirm dialog (install-outgoing.ts).
const outgoing = installOutgoing({
  doc: document,
  win: window,
  translate: t,
  notice: (key, text, tone, ms) => notices.show(key, text, tone, ms),
  report: (m) => link.report(m),
  toPage: (m) => pagePort?.postMessage(m),
  autoMinChars: () => config?.autoEnvelopeMinChars ?? 0,
  redactionNoticeMs: REDACTION_NOTICE_MS,
});
// "Paste as untrusted" (manifest command, relayed by the background; runtime-messages.ts).
browser.runtime.onMessage.addListener((message: unknown, sender: Runtime.MessageSender) => {
  if (sender.id !== browser.runtime.id || !isBackgroundToContent(message)) return undefined;
  if (message.type === 'paste-as-untrusted') outgoing.armNextPaste();
  return undefined;
});

/** The MAIN world gets the config once both halves are here (it guards with the pack). */
function sendConfig(): void {
  if (pagePort === undefined || config === undefined || compiled === undefined) return;
  pagePort.postMessage({ v: 1, type: 'config', config: { ...config, compiled } });
}

startHandshake('bridge', browserHandshakeDeps(window), (port) => {
  pagePort = port;
  port.onmessage = (event: MessageEvent) => {
    const message = parsePageMessage(event.data);
    if (message === undefined) return;
    if (outgoing.handle(message)) return;
    handlePageMessage(
      message,
      {
        report: (m) => link.report(m),
        holding: (streamId, holding) => holdingDisplay.update(streamId, holding),
        ended: (streamId) => holdingDisplay.ended(streamId),
        notice: (key, text, tone, ms) => notices.show(key, text, tone, ms),
      },
      t,
      REDACTION_NOTICE_MS,
    );
  };
  onDocumentElement((root) => root.setAttribute('data-csg-channel', 'open'));
  sendConfig();
});

void link.pageConfig().then((answer) => {
  if (answer === undefined) return;
  config = answer.config;
  sendConfig();
});
void link.pagePack().then((answer) => {
  if (answer === undefined) return;
  compiled = answer.compiled;
  sendConfig();
});

onDocumentElement((root) => root.setAttribute('data-csg-bridge', 'on'));

export {};
