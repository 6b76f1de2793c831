/**
 * What the bridge does with each report of the guard (guard-reporter.ts,
 * request-host.ts): forwards it to the background (ContentToBackground) and
 * drives the in-page notices. Kept free of DOM and extension APIs so it is testable with fakes.
 */
import { MEMORY_WRITE_RULE } from '../core/outgoing/memory-write-flag.ts';
import { UNDECODABLE_RULE } from '../core/wire/wire-event.ts';
import type { GuardReport } from '../protocol/guard-reports.ts';
import type { ContentToBackground } from '../protocol/runtime-messages.ts';
import type { Translate } from '../ui/i18n.ts';
import { failureNoticeText, matchNoticeText, undecodableNoticeText } from './notice-text.ts';
import type { NoticeTone } from './page-notices.ts';
import { unguardedNoticeKey } from './unguarded-reports.ts';

export interface ReportSinks {
  report(message: ContentToBackground): void;
  holding(streamId: string, holding: boolean): void;
  ended(streamId: string): void;
  notice(key: string, text: string, tone: NoticeTone, autoDismissMs?: number): void;
  /** Removes the notices whose keys start with the prefix. */
  dismiss?(keyPrefix: string): void;
}

/**
 * A stream that failed was stopped, not redacted: its "redacted" notices would
 * tell the person the wrong story, so the one failure notice replaces them.
 */
function failed(streamId: string, sinks: ReportSinks, translate: Translate): void {
  sinks.dismiss?.(`${streamId}:redact:`);
  sinks.notice(`${streamId}:failed`, failureNoticeText(translate), 'error');
}

export function handlePageMessage(
  message: GuardReport,
  sinks: ReportSinks,
  translate: Translate,
  redactionNoticeMs: number,
): void {
  switch (message.type) {
    case 'guard-events': {
      sinks.report({
        to: 'background',
        type: 'guard-events',
        stream: message.stream,
        events: message.events,
      });
      const id = message.stream.streamId;
      for (const event of message.events) {
        const unguarded = event.type === 'error' ? unguardedNoticeKey(event.rule) : undefined;
        if (event.type === 'error' && event.rule === UNDECODABLE_RULE) {
          // An answer to a chat request that is no text at all: stopped, and said so. Same key
          // as the failure notice, so the stream's end (failed) does not add a second one.
          sinks.notice(`${id}:failed`, undecodableNoticeText(translate), 'error');
        } else if (unguarded !== undefined) {
          // Issue 18: let through unchecked (unguarded-reports.ts), so said; nothing stopped.
          sinks.notice(`${id}:unguarded`, translate(unguarded), 'warning');
        } else if (event.type === 'error') {
          failed(id, sinks, translate);
        } else if (event.action === 'redact') {
          const text = matchNoticeText(event, translate);
          sinks.notice(`${id}:redact:${event.rule}`, text, 'info', redactionNoticeMs);
        } else if (event.action === 'block') {
          sinks.notice(`${id}:block`, matchNoticeText(event, translate), 'warning');
        } else if (event.rule === MEMORY_WRITE_RULE) {
          // Issue 5 §4: a memory that persists across chats is told in the page, even
          // though the flag changes nothing there.
          sinks.notice(`${id}:memory`, translate('notice_memory_write'), 'warning');
        }
        // Other flags are shown in the popup only: they change nothing in the page.
      }
      return;
    }
    case 'holding':
      sinks.report({
        to: 'background',
        type: 'holding',
        streamId: message.streamId,
        holding: message.holding,
      });
      sinks.holding(message.streamId, message.holding);
      return;
    case 'stream-end':
      sinks.report({
        to: 'background',
        type: 'stream-end',
        streamId: message.streamId,
        outcome: message.outcome,
      });
      sinks.ended(message.streamId);
      if (message.outcome === 'failed') failed(message.streamId, sinks, translate);
      return;
    case 'wire-issue':
      sinks.report({
        to: 'background',
        type: 'wire-issue',
        streamId: message.streamId,
        kind: message.kind,
        detail: message.detail,
      });
      return;
    case 'answer-guarded':
      // Issue 18: counted per site by the background (the popup shows the counts).
      sinks.report({
        to: 'background',
        type: 'answer-guarded',
        format: message.format,
        decoded: message.decoded,
      });
      return;
    case 'confirm-send':
    case 'outgoing-lookup':
      // Issue 5's outgoing flow (outgoing-bridge.ts) answers these.
      return;
  }
}
