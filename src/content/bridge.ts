/**
 * ISOLATED-world entry (document_start, every frame of a guarded site): the bridge
 * between the MAIN world (src/page) and the background.
 *
 * The guard runs here, not in the page's world: the MAIN world's hooks hand over
 * the bytes of each chat response (and each chat request) they recognise, and
 * get the guarded bytes (or the verdict) back.
 *
 * Message flow:
 *   MAIN world ──(private MessagePort, PageToBridge)──▶ bridge: parsePageMessage
 *     re-validates every field; stream messages go to the guard host
 *     (guard-host.ts), requests to the request host (request-host.ts), and their
 *     answers go back as BridgeToPage.
 *   guard ──(GuardReport)──▶ page-report-handler.ts: forwarded to the background as
 *     ContentToBackground (`guard-events`, `holding`, `stream-end`, `wire-issue`) and
 *     shown as in-page notices (closed shadow root, page-notices.ts).
 *   bridge ──(`page-config`)──▶ background ──(PageConfigAnswer)──▶ bridge
 *   bridge ──(`page-pack`)────▶ background ──(PagePackAnswer: the compiled packs)──▶ bridge
 *     ──▶ the guard's setup (page-guard-config.ts), for streams that start afterwards.
 *   notice button ──(`open-popup`)──▶ background ──(OpenPopupAnswer)──▶ bridge.
 *
 * The port is handed over by page-channel-handshake.ts before any page script runs;
 * the page never sees it, and nothing the page posts to `window` reaches this code.
 * Once the channel is up, the document is marked `data-csg-channel="open"` (tests).
 */
import browser, { type Runtime } from 'webextension-polyfill';
import { adapterById } from '../core/wire/adapter-registry.ts';
import { recognisers } from '../core/wire/wire-recognisers.ts';
import type { BridgeToPage } from '../protocol/page-channel.ts';
import type { GuardReport } from '../protocol/guard-reports.ts';
import { randomId } from '../protocol/random-id.ts';
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
import { createGuardHost } from './guard-host.ts';
import { createGuardPipelines } from './guard-pipelines.ts';
import { createGuardReporter } from './guard-reporter.ts';
import { createOutgoingSettings } from './outgoing-setup.ts';
import { createPageGuardConfig } from './page-guard-config.ts';
import { createRequestHost } from './request-host.ts';
import { createTaskPacer } from './task-pacer.ts';

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

const toPage = (message: BridgeToPage) => pagePort?.postMessage(message);
const newId = () => randomId((bytes) => crypto.getRandomValues(bytes));
const guardConfig = createPageGuardConfig();
const outgoingSettings = createOutgoingSettings(guardConfig);

/** What the guard reports: notices in the page, events to the background. */
function onReport(message: GuardReport): void {
  if (outgoing.handle(message)) return;
  handlePageMessage(
    message,
    {
      report: (m) => link.report(m),
      holding: (streamId, holding) => holdingDisplay.update(streamId, holding),
      ended: (streamId) => holdingDisplay.ended(streamId),
      notice: (key, text, tone, ms) => notices.show(key, text, tone, ms),
      dismiss: (prefix) => notices.dismiss(prefix),
    },
    t,
    REDACTION_NOTICE_MS,
  );
}

const reporter = createGuardReporter(onReport, newId);
const guardHost = createGuardHost({
  pipelines: createGuardPipelines(reporter),
  reportFailure: (format, reason) => {
    const stream = reporter.openStream('in', format);
    stream.guardEvents([{ type: 'error', message: reason.slice(0, 200), at: 0, pack: 'page' }]);
    stream.end('failed');
  },
  ready: () => guardConfig.ready(),
  adapterById,
  socketRecogniser: recognisers.openWebUiSocket,
  post: toPage,
  pace: createTaskPacer({
    now: () => performance.now(),
    setTimeout: (callback, ms) => window.setTimeout(callback, ms),
  }),
});
const requestHost = createRequestHost({
  setup: () => outgoingSettings.current(),
  ready: () => guardConfig.ready(),
  report: onReport,
  ask: onReport,
  newId,
  setTimeout: (callback, ms) => window.setTimeout(callback, ms),
});

// Issue 5: paste tracking, reference-only controls, the confirm dialog (install-outgoing.ts).
const outgoing = installOutgoing({
  doc: document,
  win: window,
  translate: t,
  notice: (key, text, tone, ms) => notices.show(key, text, tone, ms),
  report: (m) => link.report(m),
  request: (m) => browser.runtime.sendMessage(m),
  toPage: (answer) => requestHost.receive(answer),
  autoMinChars: () => config?.autoEnvelopeMinChars ?? 0,
  redactionNoticeMs: REDACTION_NOTICE_MS,
});
// "Paste as untrusted" (manifest command, relayed by the background; runtime-messages.ts).
browser.runtime.onMessage.addListener((message: unknown, sender: Runtime.MessageSender) => {
  if (sender.id !== browser.runtime.id || !isBackgroundToContent(message)) return undefined;
  if (message.type === 'paste-as-untrusted') {
    outgoing.armNextPaste();
    return undefined;
  }
  // Issue 5 §3: the popup's reference-only requests, relayed by the background; answered.
  return outgoing.referenceOnly(message);
});

/** A new task (timers run between; the page renders and takes input meanwhile). */
const nextTask = () => new Promise<void>((resolve) => window.setTimeout(resolve, 0));

/** The guard gets its setup once both halves are here (the config and the compiled pack). */
function applyConfig(): void {
  if (config === undefined || compiled === undefined) return;
  const full = { ...config, compiled };
  outgoingSettings.apply(full);
  // In steps, each its own task: loading ~0.5 MB of rules at once would be a long task.
  void guardConfig.applyInSteps(full, nextTask);
}

startHandshake(
  'bridge',
  browserHandshakeDeps(window),
  (port) => {
    pagePort = port;
    port.onmessage = (event: MessageEvent) => {
      const message = parsePageMessage(event.data);
      if (message === undefined || guardHost.handle(message)) return;
      if (message.type === 'request-guard') {
        const { requestId } = message;
        void requestHost.guard(message.request, message.body).then((outcome) => {
          toPage(
            outcome.send
              ? { v: 1, type: 'request-verdict', requestId, send: true, body: outcome.body }
              : { v: 1, type: 'request-verdict', requestId, send: false },
          );
        });
      }
    };
    onDocumentElement((root) => root.setAttribute('data-csg-channel', 'open'));
  },
  // No MAIN world on this page: nothing to guard here.
  () => undefined,
);

// No answer from the background (it failed, or the extension was reloaded): the guard
// can never get its setup, so waiting streams and sends fail closed, with a notice.
void link.pageConfig().then((answer) => {
  if (answer === undefined) {
    guardConfig.fail('the background sent no page config');
    return;
  }
  config = answer.config;
  applyConfig();
});
void link.pagePack().then((answer) => {
  if (answer === undefined) {
    guardConfig.fail('the background sent no compiled pack');
    return;
  }
  compiled = answer.compiled;
  applyConfig();
});

onDocumentElement((root) => root.setAttribute('data-csg-bridge', 'on'));

export {};
