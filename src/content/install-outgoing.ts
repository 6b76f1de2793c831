/**
 * Sets up the bridge's outgoing protection on this page (issue 5): paste
 * tracking, the reference-only controls and marks, the confirm dialog, and
 * the handler for the MAIN world's `outgoing-lookup` / `confirm-send` and
 * request-stream reports. bridge.ts calls `installOutgoing` once and routes
 * every validated page message through `handle` first.
 */
import type { GuardAnswer, GuardReport } from '../protocol/guard-reports.ts';
import type {
  BackgroundToContent,
  ContentToBackground,
  ReferenceOnlyList,
} from '../protocol/runtime-messages.ts';
import type { Translate } from '../ui/i18n.ts';
import { ruleName } from '../ui/rule-names.ts';
import { ConfirmSendDialog } from './confirm-send-dialog.ts';
import { lazyStrings } from './lazy-strings.ts';
import { kindPhrase } from './notice-text.ts';
import { handleOutgoingMessage } from './outgoing-bridge.ts';
import { OutgoingReports } from './outgoing-notices.ts';
import type { NoticeTone } from './page-notices.ts';
import { trackPastes } from './paste-tracker.ts';
import { PastedSpans } from './pasted-spans.ts';
import { createReferenceOnly } from './reference-only-session.ts';

export interface InstallOutgoingDeps {
  doc: Document;
  win: Window;
  translate: Translate;
  notice(key: string, text: string, tone: NoticeTone, autoDismissMs?: number): void;
  report(message: ContentToBackground): void;
  /** `runtime.sendMessage` with its answer (reference-only marks: load and save). */
  request(message: ContentToBackground): Promise<unknown>;
  toPage(message: GuardAnswer): void;
  autoMinChars(): number;
  redactionNoticeMs: number;
}

export interface OutgoingBridge {
  /** True when the message was an outgoing one and is handled. */
  handle(message: GuardReport): boolean;
  /** "Paste as untrusted": the next paste is wrapped whatever its length. */
  armNextPaste(): void;
  /** Issue 5 §3: the popup's reference-only requests (relayed by the background); the answer. */
  referenceOnly(message: BackgroundToContent): Promise<ReferenceOnlyList> | undefined;
}

export function installOutgoing(deps: InstallOutgoingDeps): OutgoingBridge {
  const { doc, win, translate: t } = deps;
  const spans = new PastedSpans();
  const conversation = () => win.location.pathname + win.location.search;
  const referenceOnly = createReferenceOnly({
    doc,
    win,
    translate: t,
    conversation,
    request: deps.request,
  });
  const marks = referenceOnly.marks;
  const tracker = trackPastes({
    doc,
    spans,
    autoMinChars: deps.autoMinChars,
    remembered: (_length, armed) => {
      if (armed) deps.notice('paste-untrusted', t('notice_paste_untrusted'), 'info', 5_000);
    },
  });
  const reports = new OutgoingReports(deps, t, deps.redactionNoticeMs);
  // Looked up when the dialog is first shown (lazy-strings.ts): most pages never show it.
  // (Object.assign, not a spread: a spread would read every getter now.)
  const sendStrings = lazyStrings(t, {
    title: 'confirm_send_title',
    body: 'confirm_send_body',
    sendAnyway: 'confirm_send_anyway',
    cancel: 'confirm_send_cancel',
  });
  const dialog = new ConfirmSendDialog(
    doc,
    Object.assign(sendStrings, {
      bound: lazyStrings(t, {
        title: 'confirm_bound_title',
        body: 'confirm_bound_body',
        sendAsTyped: 'confirm_bound_send_as_typed',
        edit: 'confirm_bound_edit',
      }),
      finding: (kind: string, rule: string) =>
        t('confirm_send_finding', [
          kindPhrase(kind as Parameters<typeof kindPhrase>[0], t),
          ruleName(rule, t),
        ]),
    }),
  );
  const start = () => referenceOnly.start();
  if (doc.readyState === 'loading') doc.addEventListener('DOMContentLoaded', start, { once: true });
  else start();

  return {
    handle(message) {
      if (reports.handle(message)) return true;
      return handleOutgoingMessage(message, {
        spans,
        marks,
        conversation,
        ask: (findings, bound) => dialog.ask(findings, bound),
        toPage: deps.toPage,
        report: deps.report,
        cancelledNotice: (requestId) => reports.cancelled(requestId),
        editNotice: (requestId) => reports.edit(requestId),
      });
    },
    armNextPaste: () => tracker.armNextPaste(),
    referenceOnly: (message) => referenceOnly.answer(message),
  };
}
