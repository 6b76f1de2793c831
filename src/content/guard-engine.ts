/**
 * ISOLATED-world entry at document_end, in every frame of a guarded site: the
 * guard engine. It docks onto the bridge (bridge.ts, document_start), which has
 * held the private port and the page's messages since before any page script ran
 * (engine-dock.ts explains why the two are separate scripts).
 *
 * The guard runs here, not in the page's world: the MAIN world's hooks hand over
 * the bytes of each chat response (and each chat request) they recognise, and
 * get the guarded bytes (or the verdict) back.
 *
 * Message flow:
 *   MAIN world ──(private MessagePort, PageToBridge)──▶ bridge: parsePageMessage
 *     re-validates every field ──▶ engine dock ──▶ here: stream messages go to the
 *     guard host (guard-host.ts), requests to the request host (request-host.ts),
 *     and their answers go back as BridgeToPage.
 *   guard ──(GuardReport)──▶ page-report-handler.ts: forwarded to the background as
 *     ContentToBackground (`guard-events`, `holding`, `stream-end`, `wire-issue`) and
 *     shown as in-page notices (closed shadow root, page-notices.ts).
 *   engine ──(`page-config`)──▶ background ──(PageConfigAnswer)──▶ engine
 *   engine ──(`page-pack`)────▶ background ──(PagePackAnswer: the compiled packs)──▶ engine
 *     ──▶ the guard's setup (page-guard-config.ts), for streams that start afterwards.
 *   notice button ──(`open-popup`)──▶ background ──(OpenPopupAnswer)──▶ engine.
 *
 * Nothing the page posts to `window` reaches this code. Once docked, the document
 * is marked `data-csg-bridge="on"` (tests).
 */
import browser, { type Runtime } from 'webextension-polyfill';
import { adapterById } from '../core/wire/adapter-registry.ts';
import { socketRecognisers } from '../core/wire/wire-recognisers.ts';
import type { BridgeToPage, PageToBridge } from '../protocol/page-channel.ts';
import type { GuardReport } from '../protocol/guard-reports.ts';
import { randomId } from '../protocol/random-id.ts';
import type { CompiledPageRules, PageConfig } from '../protocol/settings-schema.ts';
import { type ContentToBackground, isBackgroundToContent } from '../protocol/runtime-messages.ts';
import { t } from '../ui/i18n.ts';
import { createBackgroundLink } from './background-link.ts';
import { HoldingDisplay } from './holding-display.ts';
import { lazyStrings } from './lazy-strings.ts';
import { handlePageMessage } from './page-report-handler.ts';
import { PageNotices, REDACTION_NOTICE_MS } from './page-notices.ts';
import type { EarlyAnswers } from './engine-dock.ts';
import { type DockEngine, takeEngineSlot } from './engine-slot.ts';
import { onDocumentElement } from './on-document-element.ts';
import { installOutgoing } from './install-outgoing.ts';
import { createGuardHost } from './guard-host.ts';
import { createGuardPipelines } from './guard-pipelines.ts';
import { createGuardReporter } from './guard-reporter.ts';
import { createOutgoingSettings } from './outgoing-setup.ts';
import { createPageGuardConfig } from './page-guard-config.ts';
import { createRequestHost } from './request-host.ts';
import { createRewriteRefusalMemory } from './rewrite-refusal-memory.ts';
import { createRewriteRefusals } from './rewrite-refusals.ts';
import { recogniseRequest } from '../core/wire/requests/request-recognisers.ts';
import { createTaskPacer } from './task-pacer.ts';
import { watchServiceWorker } from './service-worker-watch.ts';
import { type UnguardedReport, unguardedReport } from './unguarded-reports.ts';

/**
 * The guard's share of a task before it yields to the page (task-pacer.ts). A task
 * can still run one step past it, so slice plus largest step must stay well under
 * the 50 ms of a long task, on slow machines too (measured with `npm run bench`).
 */
const PACE_SLICE_MS = 10;

function startEngine(dockEngine: DockEngine): void {
  const link = createBackgroundLink((message: ContentToBackground) =>
    browser.runtime.sendMessage(message),
  );

  const notices = new PageNotices({
    doc: document,
    // Looked up when a notice is first shown (lazy-strings.ts): most pages never show one.
    strings: lazyStrings(t, {
      regionLabel: 'notice_region_label',
      holding: 'notice_holding',
      openPopup: 'notice_open_popup',
      openPopupFallback: 'notice_open_popup_fallback',
      close: 'notice_close',
    }),
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

  let config: PageConfig | undefined;
  /** The packs compiled by the background (`page-pack`), asked for beside the config. */
  let compiled: CompiledPageRules | undefined;

  /** Answers to the page, once docked (see `dock` below). */
  // Set by the dock below; the guard may answer while the dock hands over what waited.
  let answerPage: ((message: BridgeToPage) => void) | undefined = undefined;
  const toPage = (message: BridgeToPage) => answerPage?.(message);
  /** The background's answers the bridge asked for at document_start, if it did. */
  let early = undefined as EarlyAnswers | undefined;
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
  // One pacer for all the guard's work on this thread (setup and streams alike), so
  // together they never hold a task longer than its slice plus one step.
  // A zero-delay timer, not a posted message: in `npm run bench` runs a message channel
  // (no 4 ms clamp) got the first token out no sooner, and its render ratios (1.066,
  // 1.068) were within the timers' spread (1.005 to 1.086), so the page keeps the gaps.
  const pace = createTaskPacer(
    {
      now: () => performance.now(),
      newTask: (callback) => {
        window.setTimeout(callback, 0);
      },
    },
    PACE_SLICE_MS,
  );
  /** A stream stopped before or outside a guard: the failure notice and an audit record. */
  const reportFailure = (format: string, reason: string) => {
    const stream = reporter.openStream('in', format);
    stream.guardEvents([{ type: 'error', message: reason.slice(0, 200), at: 0, pack: 'page' }]);
    stream.end('failed');
  };
  /**
   * Issue 18: something a hook could not guard but let through (unguarded-reports.ts):
   * the notice that says so and an audit record; nothing was stopped.
   */
  const reportUnguarded = (report: UnguardedReport) => {
    const stream = reporter.openStream('in', report.format);
    const { rule, message } = report;
    stream.guardEvents([{ type: 'error', rule, message, at: 0, pack: 'page' }]);
    stream.end('complete');
  };
  const guardHost = createGuardHost({
    pipelines: createGuardPipelines(reporter),
    reportFailure,
    ready: () => guardConfig.ready(),
    adapterById,
    socketRecognisers,
    post: toPage,
    pace,
  });
  // Issue 20: a site that refused a rewritten request is asked about from then on.
  const refusalMemory = createRewriteRefusalMemory(
    browser.storage.local,
    window.location.hostname.toLowerCase(),
  );
  const refusals = createRewriteRefusals({
    report: (m) => link.report(m),
    notice: (key, text, tone) => notices.show(key, text, tone),
    translate: t,
    remember: (record) => refusalMemory.remember(record),
    newId,
    now: () => Date.now(),
  });
  const requestHost = createRequestHost({
    rewritesRefused: () => refusalMemory.refuses(),
    setup: () => outgoingSettings.current(),
    ready: () => guardConfig.readyLoadedForRequests(),
    warm: () => guardConfig.readyForRequests(),
    report: onReport,
    ask: onReport,
    newId,
    setTimeout: (callback, ms) => window.setTimeout(callback, ms),
    pace,
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

  /**
   * Whether this frame sets the guard up now (issue 19 §4: the page pays almost
   * nothing, in every frame): the top frame at once, so its first answer does not
   * wait for it; any other frame (ads, embeds, widgets: most never send a chat
   * request) only once the page hands it something to guard. Until then streams and
   * requests wait for the setup (page-guard-config.ts `ready`), as in the top frame.
   */
  let setupWanted = window === window.top;
  let setupStarted = false;

  /** The guard gets its setup once both halves are here (the config and the compiled pack). */
  function applyConfig(): void {
    if (config === undefined || compiled === undefined) return;
    const full = { ...config, compiled };
    outgoingSettings.apply(full);
    if (!setupWanted) return;
    setupStarted = true;
    // In steps, paced across tasks: loading ~0.5 MB of rules at once would be a long task.
    // From a new task: the answers may already be here while the engine starts, and the
    // pacer only measures the time its own steps take in a task.
    window.setTimeout(() => void guardConfig.applyInSteps(full, pace), 0);
  }

  /** A frame that deferred its setup: the page's first message to guard starts it. */
  function wantSetup(): void {
    if (setupWanted) return;
    setupWanted = true;
    if (!setupStarted) applyConfig();
  }

  /** One validated message from the page (the bridge parsed it: parse-page-message.ts). */
  function receive(message: PageToBridge): void {
    wantSetup();
    // Issue 18 §4: a hook in the page stopped a response itself.
    if (message.type === 'hook-failed') {
      const unguarded = unguardedReport(message.hook, message.reason);
      if (unguarded !== undefined) reportUnguarded(unguarded);
      else reportFailure(message.hook, `hook ${message.reason}`);
    }
    if (message.type === 'request-answered') {
      refusals.answered(message.requestId, message.status);
      return;
    }
    if (guardHost.handle(message) || message.type !== 'request-guard') return;
    const { requestId } = message;
    void requestHost.guard(message.request, message.body).then((outcome) => {
      if (outcome.send) {
        const format = recogniseRequest(message.request)?.name ?? 'unrecognised';
        refusals.sent(requestId, format, message.body, outcome.body);
      }
      toPage(
        outcome.send
          ? { v: 1, type: 'request-verdict', requestId, send: true, body: outcome.body }
          : { v: 1, type: 'request-verdict', requestId, send: false },
      );
    });
  }

  const docked = dockEngine({
    start: (answer, asked) => {
      answerPage = answer;
      early = asked;
    },
    receive,
  });
  // The dock expired (this script came too late) or another engine docked first: the
  // page's streams are not ours, so this copy asks for no setup and marks nothing.
  if (docked === undefined) return;

  // No answer from the background (it failed, or the extension was reloaded): the guard
  // can never get its setup, so waiting streams and sends fail closed, with a notice.
  const whenAnswered = <T>(asked: Promise<T | undefined>, what: string, use: (a: T) => void) =>
    void asked.then((answer) => {
      if (answer === undefined) {
        guardConfig.fail(`the background sent no ${what}`);
        return;
      }
      use(answer);
      applyConfig();
    });
  whenAnswered(early?.pageConfig ?? link.pageConfig(), 'page config', (a) => (config = a.config));
  whenAnswered(early?.pagePack ?? link.pagePack(), 'compiled pack', (a) => (compiled = a.compiled));

  // Issue 18 §2: a service worker is out of every hook's reach: told once per page.
  // Only Firefox answers `ready` in this world (service-worker-watch.ts): Chromium is not asked.
  const answersReady = browser.runtime.getURL('').startsWith('moz-extension:');
  watchServiceWorker(
    navigator,
    () => {
      const report = unguardedReport('service-worker', 'active');
      if (report !== undefined) reportUnguarded(report);
    },
    answersReady,
  );

  onDocumentElement(document, (root) => root.setAttribute('data-csg-bridge', 'on'));
}

// Without the bridge (it did not run in this frame) there is no port and nothing to guard.
// Started from a new task: this task already compiled and initialised the engine's
// modules, and starting it (notices, outgoing protection, the first messages) in the
// same task would make one long task of the two (issue 4, bench/long-task-attribution.ts).
const dockEngine = takeEngineSlot(globalThis);
if (dockEngine !== undefined) window.setTimeout(() => startEngine(dockEngine), 0);

export {};
