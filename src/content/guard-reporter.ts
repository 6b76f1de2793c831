/**
 * Reporting from the guard (ISOLATED world, guard-pipelines.ts): every guarded
 * stream gets a random id and reports what its guard did
 * (page-report-handler.ts shows notices and forwards to the background):
 * `guard-events` (with the matched text, for the audit digest), `holding`
 * transitions, one `stream-end`, and `wire-issue`s. Numbers, rule ids and the
 * matched spans only; the stream's other text is never sent.
 *
 * `holding` is edge-triggered (sent when the guard starts or stops holding); the
 * bridge turns it into an indicator after ~500 ms. That is a display timer only:
 * time never releases held text (DESIGN.md §3.4).
 *
 * No extension APIs here.
 */
import type { GuardEvent } from '../core/guard/guard-event.ts';
import type { WireIssue } from '../core/wire/stream-rewriter.ts';
import { UNDECODABLE_RULE } from '../core/wire/wire-event.ts';
import type {
  Direction,
  PageGuardEvent,
  GuardReport,
  StreamOutcome,
  StreamRef,
} from '../protocol/guard-reports.ts';

export interface StreamReporter {
  readonly streamId: string;
  /** Guard events of this stream (any channel), in the order the guard gave them. */
  guardEvents(events: readonly GuardEvent[]): void;
  holding(holding: boolean): void;
  wireIssue(issue: WireIssue): void;
  /**
   * The stream turned out to be in this format (the generic adapter found a
   * known shape in it): later reports carry it instead of the one it opened with.
   */
  setFormat(format: string): void;
  /** The stream ended; the first call wins, later ones are ignored. */
  end(outcome: StreamOutcome): void;
  /** The outcome the events so far imply if the stream ends now (`complete` unless blocked/failed). */
  readonly impliedOutcome: StreamOutcome;
}

export interface StreamOptions {
  /**
   * Issue 18: the stream is an answer a guard ran on (not a failure reported before any
   * guard existed): at its end, one `answer-guarded` tells the format it was guarded in,
   * or that it could not be decoded, so the popup can count answers per site.
   */
  answer?: boolean;
}

export interface GuardReporter {
  openStream(direction: Direction, format: string, options?: StreamOptions): StreamReporter;
}

function toPageEvent(event: GuardEvent): PageGuardEvent {
  if (event.type === 'error') {
    const out: PageGuardEvent = {
      type: 'error',
      message: event.message,
      at: event.at,
      pack: event.pack,
    };
    if (event.rule !== undefined) out.rule = event.rule;
    return out;
  }
  const out: PageGuardEvent = {
    type: 'match',
    rule: event.rule,
    kind: event.kind,
    action: event.action,
    start: event.start,
    end: event.end,
    pack: event.pack,
    // Always attached by the page's guards (attachMatchedText); '' would be rejected by the bridge.
    matched: event.matched ?? '',
  };
  if (event.also !== undefined && event.also.length > 0) out.also = [...event.also];
  return out;
}

export function createGuardReporter(
  send: (message: GuardReport) => void,
  newStreamId: () => string,
): GuardReporter {
  return {
    openStream(direction, format, options = {}) {
      const streamId = newStreamId();
      let stream: StreamRef = { streamId, direction, format, conversationId: '', turnId: '' };
      let isHolding = false;
      let ended = false;
      let decoded = true;
      let implied: StreamOutcome = 'complete';
      return {
        streamId,
        get impliedOutcome() {
          return implied;
        },
        guardEvents(events) {
          if (events.length === 0) return;
          for (const event of events) {
            if (event.type === 'error' && event.rule === UNDECODABLE_RULE) decoded = false;
            if (event.type === 'error') implied = 'failed';
            else if (event.action === 'block' && implied === 'complete') implied = 'blocked';
          }
          send({ v: 1, type: 'guard-events', stream, events: events.map(toPageEvent) });
        },
        holding(holding) {
          if (ended || holding === isHolding) return;
          isHolding = holding;
          send({ v: 1, type: 'holding', streamId, holding });
        },
        setFormat(next) {
          if (next !== stream.format) stream = { ...stream, format: next };
        },
        wireIssue(issue) {
          if (issue.kind === 'render-failed') implied = 'failed';
          send({ v: 1, type: 'wire-issue', streamId, kind: issue.kind, detail: issue.detail });
        },
        end(outcome) {
          if (ended) return;
          if (isHolding) send({ v: 1, type: 'holding', streamId, holding: false });
          ended = true;
          isHolding = false;
          if (options.answer === true && direction === 'in') {
            send({ v: 1, type: 'answer-guarded', streamId, format: stream.format, decoded });
          }
          send({ v: 1, type: 'stream-end', streamId, outcome });
        },
      };
    },
  };
}
