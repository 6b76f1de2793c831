/**
 * Messages between the MAIN world (src/page) and the ISOLATED bridge
 * (src/content) over their private MessageChannel. Typed, directional and
 * versioned: a message with another `v` or an unknown `type` is dropped.
 *
 * The channel is set up once at document_start, before any page script runs
 * (see src/content/page-channel-handshake.ts); page scripts never see the port.
 * Still, the bridge trusts nothing it receives: every field is re-validated.
 */
import type { RuleKind } from '../core/rules/rule.ts';
import type { PageConfig } from './settings-schema.ts';

export const PAGE_CHANNEL_VERSION = 1;

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

export type PageToBridge =
  /** The MAIN world is up; which hooks it installed. */
  | { v: 1; type: 'hello'; hooks: string[] }
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
  /** Issue 5: an outgoing request waits for the person's decision (warn policy). */
  | {
      v: 1;
      type: 'confirm-send';
      requestId: string;
      findings: { rule: string; kind: RuleKind; matched: string }[];
    }
  /**
   * Issue 5: before a recognised request leaves, the texts the bridge's marks
   * are matched against: the person's new texts (for pasted spans) and, for
   * bodies that send the history, each message's text (`messageText`, for the
   * reference-only digests, whose key never enters this world). Answer:
   * `outgoing-lookup-result` with the same id.
   */
  | { v: 1; type: 'outgoing-lookup'; requestId: string; texts: string[]; history: string[] };

export type BridgeToPage =
  | { v: 1; type: 'config'; config: PageConfig }
  /** Issue 5: the person's answer to `confirm-send`. */
  | { v: 1; type: 'send-decision'; requestId: string; decision: 'send' | 'cancel' }
  /** Issue 5: digests of pasted spans to wrap, and reference-only message digests. */
  | { v: 1; type: 'outgoing-marks'; pasted: string[]; referenceOnly: string[] }
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
export type StreamOutcome = Extract<PageToBridge, { type: 'stream-end' }>['outcome'];

/**
 * The handshake that hands one MessagePort between the worlds at document_start
 * (src/content/page-channel-handshake.ts): each side dispatches a cancelable
 * MessageEvent carrying a port under its own name and listens for the other's.
 * The names are not secret: what keeps the channel private is that both sides
 * stop listening before any page script can run.
 */
export const HANDSHAKE_EVENT = {
  /** Dispatched by the MAIN world (src/page). */
  main: 'csg-page-channel-main',
  /** Dispatched by the ISOLATED bridge (src/content). */
  bridge: 'csg-page-channel-bridge',
} as const;
