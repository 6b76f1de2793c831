/**
 * What the guard reports inside the ISOLATED world (src/content/guard-host.ts
 * runs the guard; src/content/page-report-handler.ts and outgoing-bridge.ts
 * act on the reports), and the answers the outgoing guard gets back from the
 * person and the marks. These never cross the page channel: the MAIN world
 * only moves bytes (page-channel.ts), so nothing in the page can forge an event.
 */
import type { RuleKind } from '../core/rules/rule.ts';

export type Direction = 'in' | 'out';

/** One guard event as the page reports it. Offsets in code points of the channel's text. */
export interface PageMatchEvent {
  type: 'match';
  rule: string;
  kind: RuleKind;
  action: 'redact' | 'block' | 'flag' | 'warn';
  start: number;
  end: number;
  pack: string;
  /** Issue 17: the other rules whose spans the redaction merged (rule ids only, never text). */
  also?: string[];
  /**
   * The matched text, so the bridge/background can compute the keyed digest.
   * Crosses only the private channel and the runtime messaging; never stored,
   * never logged, dropped by the background after hashing.
   */
  matched: string;
}

export interface PageErrorEvent {
  type: 'error';
  rule?: string;
  /** A short, content-free description (e.g. "validator luhn threw"). */
  message: string;
  at: number;
  pack: string;
}

export type PageGuardEvent = PageMatchEvent | PageErrorEvent;

/** Identifies one guarded stream (response body) or one request on this page. */
export interface StreamRef {
  /** Random per stream, unique in the page. */
  streamId: string;
  direction: Direction;
  /** Adapter/format id (e.g. `openai-chat`, `chatgpt-web`, `plain-text`). */
  format: string;
  /** Provider conversation id when the adapter knows it; '' otherwise. */
  conversationId: string;
  /** Turn (message) id when known; '' otherwise. */
  turnId: string;
}

export type GuardReport =
  | { v: 1; type: 'guard-events'; stream: StreamRef; events: PageGuardEvent[] }
  /** Text has been held for a while (the bridge shows the indicator after ~500 ms). */
  | { v: 1; type: 'holding'; streamId: string; holding: boolean }
  /** A stream ended (normally, blocked, failed closed, or aborted by the page). */
  | {
      v: 1;
      type: 'stream-end';
      streamId: string;
      outcome: 'complete' | 'blocked' | 'failed' | 'aborted';
    }
  /** Something about the wire the person should know (content-free). */
  | { v: 1; type: 'wire-issue'; streamId: string; kind: string; detail: string }
  /**
   * Issue 18: one answer (an incoming stream) ended, guarded in this format (the one it
   * settled on: `generic` unless the generic adapter committed to a known shape), or not
   * decodable at all. Sent once per answer, just before its `stream-end`; content-free.
   */
  | { v: 1; type: 'answer-guarded'; streamId: string; format: string; decoded: boolean }
  /** Issue 5: an outgoing request waits for the person's decision (warn policy). */
  | {
      v: 1;
      type: 'confirm-send';
      requestId: string;
      findings: { rule: string; kind: RuleKind; matched: string }[];
      /**
       * Issue 20: the request is integrity-bound (Z.ai signs the text): the guard may
       * not change it, so the person chooses to send it as typed, edit it, or cancel.
       */
      bound?: boolean;
    }
  /**
   * Issue 5: before a recognised request leaves, the texts the bridge's marks
   * are matched against: the person's new texts (for pasted spans) and, for
   * bodies that send the history, each message's text (`messageText`, for the
   * reference-only digests, whose key never enters this world). Answer:
   * `outgoing-lookup-result` with the same id.
   */
  | { v: 1; type: 'outgoing-lookup'; requestId: string; texts: string[]; history: string[] };

export type GuardAnswer =
  /** Issue 5: the person's answer to `confirm-send`. */
  | { v: 1; type: 'send-decision'; requestId: string; decision: 'send' | 'edit' | 'cancel' }
  /**
   * Issue 5: the answer to `outgoing-lookup`: the pasted spans (as found in
   * the request's new texts, so nothing the request does not already carry)
   * and the indices of the history messages marked reference-only.
   */
  | {
      v: 1;
      type: 'outgoing-lookup-result';
      requestId: string;
      pasted: string[];
      referenceOnly: number[];
    };

/** How a guarded stream ended (see `stream-end`). */
export type StreamOutcome = Extract<GuardReport, { type: 'stream-end' }>['outcome'];
