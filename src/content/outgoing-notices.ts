/**
 * Reports and notices for the send side (issue 5): the MAIN world reports a
 * guarded request as a stream with direction `out`. Its events go to the
 * background like any guard events (so the popup and audit log show what was
 * changed in what the person sent), but the in-page notice speaks of "your
 * message", not "the answer". Kept free of DOM and extension APIs.
 */
import type { GuardReport } from '../protocol/guard-reports.ts';
import type { Translate } from '../ui/i18n.ts';
import { ruleName } from '../ui/rule-names.ts';
import { kindPhrase } from './notice-text.ts';
import type { ReportSinks } from './page-report-handler.ts';

export const OUT_NOTICE_KEYS = {
  redacted: 'notice_out_redacted',
  blocked: 'notice_out_blocked',
  failed: 'notice_out_failed',
  cancelled: 'notice_out_cancelled',
  edit: 'notice_out_edit',
} as const;

export class OutgoingReports {
  /** Request streams seen (their `stream-end` is handled here too). */
  private readonly outStreams = new Set<string>();

  constructor(
    private readonly sinks: Pick<ReportSinks, 'report' | 'notice'>,
    private readonly translate: Translate,
    private readonly redactionNoticeMs: number,
  ) {}

  /** Handles `guard-events` and `stream-end` of request streams; false for anything else. */
  handle(message: GuardReport): boolean {
    const { sinks, translate } = this;
    if (message.type === 'guard-events' && message.stream.direction === 'out') {
      const id = message.stream.streamId;
      this.outStreams.add(id);
      sinks.report({
        to: 'background',
        type: 'guard-events',
        stream: message.stream,
        events: message.events,
      });
      for (const event of message.events) {
        if (event.type === 'error') {
          sinks.notice(`${id}:failed`, translate(OUT_NOTICE_KEYS.failed), 'error');
          continue;
        }
        const words = [kindPhrase(event.kind, translate), ruleName(event.rule, translate)];
        if (event.action === 'redact') {
          const text = translate(OUT_NOTICE_KEYS.redacted, words);
          sinks.notice(`${id}:redact:${event.rule}`, text, 'info', this.redactionNoticeMs);
        } else if (event.action === 'block') {
          sinks.notice(`${id}:block`, translate(OUT_NOTICE_KEYS.blocked, words), 'warning');
        }
      }
      return true;
    }
    if (message.type === 'stream-end' && this.outStreams.has(message.streamId)) {
      this.outStreams.delete(message.streamId);
      sinks.report({
        to: 'background',
        type: 'stream-end',
        streamId: message.streamId,
        outcome: message.outcome,
      });
      return true;
    }
    return false;
  }

  cancelled(requestId: string): void {
    this.sinks.notice(`${requestId}:cancelled`, this.translate(OUT_NOTICE_KEYS.cancelled), 'info');
  }

  /** Issue 20: an integrity-bound message left unsent for the person to edit. */
  edit(requestId: string): void {
    this.sinks.notice(`${requestId}:edit`, this.translate(OUT_NOTICE_KEYS.edit), 'info');
  }
}
