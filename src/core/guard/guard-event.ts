import type { RuleAction, RuleKind } from '../rules/rule.ts';

/** An event the guard produced. Offsets are in code points of the stream's input text. */
export interface MatchEvent {
  type: 'match';
  rule: string;
  kind: RuleKind;
  /** The action taken: `redact`, `block` or `flag`. */
  action: Exclude<RuleAction, 'off'>;
  /** Start offset (code points of the input, inclusive). */
  start: number;
  /** End offset (code points of the input, exclusive). */
  end: number;
  /** Pack name and version the stream started with. */
  pack: string;
  /**
   * The other rules whose matches overlapped or touched this one and were
   * redacted with it as one (DESIGN.md §3.10); `rule` is the most specific.
   */
  also?: string[];
  /**
   * The input text of [start, end), only with `GuardOptions.attachMatchedText`
   * (the extension hashes it into the audit digest; the CLI never asks for it).
   */
  matched?: string;
}

/** A rule, validator or the engine itself failed: the stream is blocked (fail closed). */
export interface ErrorEvent {
  type: 'error';
  /** The rule whose pattern or validator failed, when known. */
  rule?: string;
  message: string;
  /** Input offset (code points) up to which text had been consumed when the error happened. */
  at: number;
  pack: string;
}

export type GuardEvent = MatchEvent | ErrorEvent;

/** What one `push` or `end` returns. */
export interface GuardResult {
  /** Text that is safe to release now (always a continuation of what was released before). */
  emit: string;
  /** Read-only: a push without events returns one shared empty list (issue 19 §3, per push). */
  events: readonly GuardEvent[];
  /** True once the stream is blocked: nothing more will ever be released. */
  blocked: boolean;
  /**
   * `emit` as consecutive pieces of the input (UTF-16 offsets from the stream
   * start): kept text, or a replaced span. Wire adapters use it to give each
   * wire event the output of its own input text. Read-only, like `events`.
   */
  pieces: readonly ReleasePiece[];
  /** Input offset (UTF-16) up to which the input is now accounted for in the output. */
  released: number;
}

export type ReleasePiece =
  | { kind: 'keep'; from: number; to: number }
  | { kind: 'replace'; from: number; to: number; text: string };

/** Per-stream counters for the popup (seed 002 §8.5). */
export interface GuardCounters {
  chunks: number;
  /** UTF-16 code units pushed. */
  chars: number;
  /** Pushes after which some text was held back. */
  holds: number;
  /** Longest held suffix seen at the end of a push, in code units. */
  longestHold: number;
  /** Held code units right now. */
  held: number;
  eventsByRule: Record<string, number>;
  /** Milliseconds spent in push/end, measured with the clock given to the guard (0 without one). */
  timeMs: number;
}
