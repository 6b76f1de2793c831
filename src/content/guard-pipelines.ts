/**
 * The guards the ISOLATED world runs for the MAIN world's hooks (guard-host.ts):
 * a wire adapter's rewriter, the plain-text chat endpoint's guard, and the
 * socket formats' guard (Open WebUI, Copilot). Each is the engine's synchronous
 * core (StreamRewriter, StreamGuard, SocketAnswerGuard) on text: the MAIN world decodes the
 * network bytes and encodes what comes back. No Streams API here on purpose:
 * in a Firefox content script a stream built with our own callbacks belongs to
 * the page's compartment, which may not call back into ours ("Permission denied
 * to access property 'abort'", Firefox ESR 153).
 *
 * Each guard is built with the setup in effect when its stream starts (the
 * pack the background compiled, the per-kind policy: page-guard-config.ts) and
 * reports what it did (guard-reporter.ts): a random stream id, its guard events
 * (with the matched text, for the audit digest), holding transitions, wire
 * issues and, exactly once, how it ended.
 *
 * No extension APIs here.
 */
import { StreamGuard } from '../core/guard/stream-guard.ts';
import { socketFormatById } from '../core/wire/adapter-registry.ts';
import { SocketAnswerGuard } from '../core/wire/socket-answer-guard.ts';
import { StreamRewriter } from '../core/wire/stream-rewriter.ts';
import type { WireAdapter, WireRecogniser } from '../core/wire/wire-event.ts';
import type { StreamOutcome } from '../protocol/guard-reports.ts';
import type { GuardReporter, StreamReporter } from './guard-reporter.ts';
import type { StreamGuardSetup } from './page-guard-config.ts';

/**
 * One body's guard: `push` returns the text the page may have now ('' while it
 * is held), `end` the rest. `finished` turns true when the guard blocked: the
 * body ends there. Throwing means the guard failed (the body fails closed).
 */
export interface TextGuard {
  push(text: string): string;
  end(): string;
  readonly finished: boolean;
}

/** One socket's guard: the messages the page may have now, in order. */
export interface SocketTextGuard {
  push(message: string): string[];
  end(): string[];
}

/** What a stream's owner calls when the page went away before the end. */
export interface Abortable {
  abort(): void;
}

export interface GuardPipelines {
  wire(adapter: WireAdapter, setup: StreamGuardSetup): TextGuard & Abortable;
  plainText(setup: StreamGuardSetup): TextGuard & Abortable;
  socket(recogniser: WireRecogniser, setup: StreamGuardSetup): SocketTextGuard & Abortable;
}

/** Every stream here is an answer a guard runs on: counted per site at its end (issue 18). */
const ANSWER = { answer: true } as const;

/**
 * Reports the end exactly once: the guard's own end (`complete`, or what its
 * events imply: `blocked`, `failed`), a throw (`failed`), or an abort.
 */
function ending<T>(stream: StreamReporter) {
  let ended = false;
  const end = (outcome: StreamOutcome) => {
    if (ended) return;
    ended = true;
    stream.end(outcome);
  };
  const run = (work: () => T, last: boolean): T => {
    let result: T;
    try {
      result = work();
    } catch (error) {
      end('failed');
      throw error;
    }
    if (last) end(stream.impliedOutcome);
    return result;
  };
  return { run, abort: () => end('aborted'), end };
}

function wireGuard(
  reporter: GuardReporter,
  adapter: WireAdapter,
  { pack, guard }: StreamGuardSetup,
): TextGuard & Abortable {
  const stream = reporter.openStream('in', adapter.format, ANSWER);
  const rewriter = new StreamRewriter(adapter, pack, {
    guard,
    onGuardEvents: (_channel, events) => stream.guardEvents(events),
    onIssue: (issue) => stream.wireIssue(issue),
    onHoldChange: (holding) => stream.holding(holding),
    onFormat: (format) => stream.setFormat(format),
  });
  const { run, abort, end } = ending<string>(stream);
  const finishIfBlocked = (text: string) => {
    if (rewriter.isBlocked) end(stream.impliedOutcome);
    return text;
  };
  return {
    push: (text) => finishIfBlocked(run(() => rewriter.push(text), false)),
    end: () => run(() => rewriter.end(), true),
    get finished() {
      return rewriter.isBlocked;
    },
    abort,
  };
}

function plainTextGuard(
  reporter: GuardReporter,
  { pack, guard: options }: StreamGuardSetup,
): TextGuard & Abortable {
  const stream = reporter.openStream('in', 'plain-text', ANSWER);
  const guard = new StreamGuard(pack, options);
  const { run, abort, end } = ending<string>(stream);
  let holding = false;
  const deliver = (result: ReturnType<StreamGuard['push']>) => {
    stream.guardEvents(result.events);
    const nowHolding = guard.heldUnits > 0;
    if (nowHolding !== holding) {
      holding = nowHolding;
      stream.holding(holding);
    }
    if (result.blocked) end(stream.impliedOutcome);
    return result.emit;
  };
  return {
    push: (text) => run(() => deliver(guard.push(text)), false),
    end: () => run(() => deliver(guard.end()), true),
    get finished() {
      return guard.isBlocked;
    },
    abort,
  };
}

function socketGuard(
  reporter: GuardReporter,
  recogniser: WireRecogniser,
  { pack, guard }: StreamGuardSetup,
): SocketTextGuard & Abortable {
  const format = socketFormatById(recogniser.id);
  if (format === undefined) throw new Error(`no socket format ${recogniser.id}`);
  const stream = reporter.openStream('in', recogniser.format, ANSWER);
  const inner = new SocketAnswerGuard(format, pack, {
    guard,
    onGuardEvents: (_channel, events) => stream.guardEvents(events),
    onIssue: (issue) => stream.wireIssue(issue),
  });
  const { run, abort } = ending<string[]>(stream);
  return {
    push: (message) => run(() => inner.push(message), false),
    end: () => run(() => inner.end(), true),
    abort,
  };
}

export function createGuardPipelines(reporter: GuardReporter): GuardPipelines {
  return {
    wire: (adapter, setup) => wireGuard(reporter, adapter, setup),
    plainText: (setup) => plainTextGuard(reporter, setup),
    socket: (recogniser, setup) => socketGuard(reporter, recogniser, setup),
  };
}
