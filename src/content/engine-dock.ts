/**
 * Where the guard engine docks onto the page channel (issue 4, "main-thread long
 * tasks caused by the guard: 0").
 *
 * The ISOLATED side comes in two scripts. The bridge (bridge.ts) runs at
 * document_start with the MAIN-world hook, in the same task as the page's first
 * parse, so it must stay small: it only takes the port (page-channel-handshake.ts)
 * and queues what the page sends. The guard engine (guard-engine.ts: adapters,
 * rules, outgoing protection, notices) is registered at document_end, which the
 * browser runs in a later task: compiling and starting ~0.5 MB of engine in the
 * first parse task made that task a long one (measured with a Chromium trace,
 * `npm run bench`). Nothing is guarded before the engine docks: streams and
 * requests that arrive earlier wait here in order, as they already wait for the
 * pack (page-guard-config.ts), and are handed over when it docks.
 *
 * Fail closed: if the engine never docks (its script failed to run), `expire`
 * answers every waiting stream with `guard-failed` and every waiting request with
 * "do not send", and keeps answering so from then on: the page never gets
 * unguarded text and never waits forever.
 */
import type { BridgeToPage, PageToBridge } from '../protocol/page-channel.ts';
import type { PageConfigAnswer, PagePackAnswer } from '../protocol/runtime-messages.ts';

/**
 * The background's answers the bridge asked for at document_start, so they are on
 * their way (or here) by the time the engine starts (background-link.ts).
 */
export interface EarlyAnswers {
  pageConfig: Promise<PageConfigAnswer | undefined>;
  pagePack: Promise<PagePackAnswer | undefined>;
}

/** What the engine does with the page's messages. */
export interface DockedEngine {
  /**
   * Called once, on docking, before any waiting message is handed over: the guard
   * may answer while handling those, so it needs the way back first.
   */
  start?(toPage: ToPage, early: EarlyAnswers | undefined): void;
  receive(message: PageToBridge): void;
}

/** Sends a message to the MAIN world (a no-op while the channel is not open). */
export type ToPage = (message: BridgeToPage) => void;

export type DockState = 'waiting' | 'docked' | 'expired';

export interface EngineDock {
  /** A validated message from the page (parse-page-message.ts). */
  receive(message: PageToBridge): void;
  /**
   * Docks the engine: hands over the waiting messages, in order, then every new
   * one. Returns how to answer the page; undefined when an engine already docked
   * or the dock expired (the engine must then stay idle).
   */
  dock(engine: DockedEngine): ToPage | undefined;
  /** The engine did not come: fail everything waiting, and everything after. */
  expire(): void;
  state(): DockState;
  /** Messages waiting for the engine (for tests and diagnostics). */
  waiting(): number;
}

/** The answer that fails one message closed, if it expects an answer at all. */
function refusal(message: PageToBridge): BridgeToPage | undefined {
  switch (message.type) {
    case 'guard-open':
      return { v: 1, type: 'guard-failed', streamId: message.streamId };
    case 'request-guard':
      return { v: 1, type: 'request-verdict', requestId: message.requestId, send: false };
    default:
      // Chunks, closes and cancels of a stream whose open was already refused.
      return undefined;
  }
}

export function createEngineDock(toPage: ToPage, early?: EarlyAnswers): EngineDock {
  let state: DockState = 'waiting';
  let engine: DockedEngine | undefined;
  let queue: PageToBridge[] = [];

  const refuse = (message: PageToBridge) => {
    const answer = refusal(message);
    if (answer !== undefined) toPage(answer);
  };

  return {
    receive(message) {
      if (state === 'docked') engine?.receive(message);
      else if (state === 'expired') refuse(message);
      else queue.push(message);
    },
    dock(candidate) {
      if (state !== 'waiting') return undefined;
      state = 'docked';
      engine = candidate;
      candidate.start?.(toPage, early);
      const waiting = queue;
      queue = [];
      for (const message of waiting) candidate.receive(message);
      return toPage;
    },
    expire() {
      if (state !== 'waiting') return;
      state = 'expired';
      const waiting = queue;
      queue = [];
      for (const message of waiting) refuse(message);
    },
    state: () => state,
    waiting: () => queue.length,
  };
}
