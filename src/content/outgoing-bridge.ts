/**
 * The bridge's part in outgoing protection (issue 5), for the two messages of
 * the MAIN world's send hook (src/page/outgoing-hook.ts):
 *
 * - `outgoing-lookup`: answers which remembered pasted spans occur in the
 *   request's new texts (pasted-spans.ts) and which history messages are
 *   reference-only (reference-only-marks.ts; digests computed here with a key
 *   that never enters the page). The texts are matched and dropped.
 * - `confirm-send`: asks the person (confirm-send-dialog.ts) and answers
 *   `send-decision`. "Send anyway" is logged to the background as
 *   `send-anyway` (the background keeps a keyed digest, never the text);
 *   cancel shows a notice saying the message was not sent. An integrity-bound
 *   request (`bound`, issue 20) can also be answered "edit": not sent, and the
 *   notice asks the person to change the message and send it again.
 *
 * Kept free of extension APIs (injected) so it can be tested with fakes.
 */
import type { GuardAnswer, GuardReport } from '../protocol/guard-reports.ts';
import type { ContentToBackground } from '../protocol/runtime-messages.ts';
import type { ConfirmAnswer, ConfirmFinding } from './confirm-send-dialog.ts';
import type { PastedSpans } from './pasted-spans.ts';
import type { ReferenceOnlyMarks } from './reference-only-marks.ts';

export interface OutgoingBridgeDeps {
  spans: PastedSpans;
  marks: ReferenceOnlyMarks;
  conversation(): string;
  ask(findings: readonly ConfirmFinding[], bound: boolean): Promise<ConfirmAnswer>;
  toPage(message: GuardAnswer): void;
  report(message: ContentToBackground): void;
  cancelledNotice(requestId: string): void;
  /** The person chose to edit an integrity-bound message instead of sending it. */
  editNotice(requestId: string): void;
}

/** Handles the outgoing messages; false for any other message (left to the report handler). */
export function handleOutgoingMessage(message: GuardReport, deps: OutgoingBridgeDeps): boolean {
  if (message.type === 'outgoing-lookup') {
    const { requestId } = message;
    const pasted = deps.spans.found(message.texts);
    void deps.marks
      .lookup(deps.conversation(), message.history)
      .catch(() => [] as number[])
      .then((referenceOnly) => {
        deps.toPage({ v: 1, type: 'outgoing-lookup-result', requestId, pasted, referenceOnly });
      });
    return true;
  }
  if (message.type === 'confirm-send') {
    const { requestId, findings } = message;
    void deps
      .ask(findings, message.bound === true)
      .catch(() => 'cancel' as const)
      .then((decision) => {
        if (decision === 'send') {
          deps.report({ to: 'background', type: 'send-anyway', findings });
        } else if (decision === 'edit') {
          deps.editNotice(requestId);
        } else {
          deps.cancelledNotice(requestId);
        }
        deps.toPage({ v: 1, type: 'send-decision', requestId, decision });
      });
    return true;
  }
  return false;
}
