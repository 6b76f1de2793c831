/**
 * What a new stream is guarded with: the pack the background compiled for this
 * site's settings with its tables built (PageConfig.compiled.built, loaded here by
 * load-built-tables.ts; or, when the background could not build them, the pack's
 * JSON, loaded by load-compiled-pack.ts and warmed here) and the config's
 * per-kind incoming policy.
 *
 * Until the bridge's config has arrived there is no setup: a guarded stream
 * WAITS for it (`ready()`, deferred-guard.ts), never runs unguarded and never
 * lets text go on a timer. If the config can never come (the private channel
 * did not open: `fail()`), or the first config is unusable (no compiled pack,
 * or one that does not load), `ready()` rejects and every guarded stream fails
 * closed, as a guard failure does. In the e2e tests the bridge is always there.
 * A later unusable config keeps the setup in effect, and a stream already
 * running keeps what it started with (a verdict depends on the text and the
 * pack version only, DESIGN.md §3.4).
 *
 * No extension APIs here.
 */
import { type GuardOptions, StreamGuard } from '../core/guard/stream-guard.ts';
import { answerGuardOptions, sendGuardOptions } from '../core/guard/page-guard-options.ts';
import type { CompiledLabelPack } from '../core/outgoing/source-label-pack.ts';
import type { CompiledPack } from '../core/rules/compiled-pack.ts';
import { runToEnd } from '../core/guard/run-to-end.ts';
import { guardPlan } from '../core/guard/guard-plan.ts';
import { warmKeywordAutomataSteps, warmUpSteps } from '../core/guard/warm-up.ts';
import { loadCompiledPackSteps } from '../core/rules/load-compiled-pack.ts';
import {
  decodeAlwaysOnSteps,
  deliveredBuiltBytesAsync,
  loadCheckedBuiltTablesSteps,
  loadDeliveredBuiltTablesSteps,
} from './load-built-tables.ts';
import { runPaced } from './run-paced.ts';
import type { PageConfig } from '../protocol/settings-schema.ts';

export interface StreamGuardSetup {
  pack: CompiledPack;
  guard: GuardOptions;
  /** The source-label pack for history projection on send (issue 5). */
  labels: CompiledLabelPack;
}

export interface PageGuardConfig {
  /** The setup for a stream that starts now; undefined until a usable config arrived. */
  current(): StreamGuardSetup | undefined;
  /** The setup, once there is one; rejects when there never will be (fail closed). */
  ready(): Promise<StreamGuardSetup>;
  /**
   * The same for a request on send (outgoing-setup.ts), warmed for the outgoing
   * policy: during `applyInSteps` it comes last, after the answers' (see
   * `loadedForRequests`). Otherwise it is `current()`.
   */
  currentForRequests(): StreamGuardSetup | undefined;
  readyForRequests(): Promise<StreamGuardSetup>;
  /**
   * Sooner for a request: the setup once its pack is loaded, before any warm-up (or
   * the warm one, when there is one). A request whose scanned texts hold no keyword
   * (most prompts) is scanned with it at once (outgoing-request-guard.ts,
   * `alwaysOnOnly`), so a page's first request leaves the warm-up's length sooner
   * (issue 4); any other waits for `readyForRequests()`. Its answer then needs the
   * answers' warm-up, which therefore comes before the send's.
   */
  loadedForRequests(): StreamGuardSetup | undefined;
  readyLoadedForRequests(): Promise<StreamGuardSetup>;
  /** Applies a config from the bridge to streams that start from now on. */
  apply(config: PageConfig): void;
  /**
   * `apply` for the page's main thread: loads the packs in steps, then warms the
   * engine's per-pack tables in steps too (warm-up.ts), so no step is a long task
   * (issue 4). Between two steps it calls `pause`, which either lets the next step
   * run now (undefined: the task is still young) or returns a promise that settles
   * in a new task (task-pacer.ts). Streams that start meanwhile wait for it, as for
   * the first config.
   */
  applyInSteps(config: PageConfig, pause: () => Promise<void> | undefined): Promise<void>;
  /** No config can come (the channel to the bridge did not open). */
  fail(reason: string): void;
  /** True once a config from the bridge is in effect. */
  readonly configured: boolean;
}

export class PageConfigUnavailableError extends Error {
  override name = 'PageConfigUnavailableError';
}

/** The label pack's outer fields, checked; throws when unusable. */
function labelsOf(config: PageConfig): NonNullable<PageConfig['compiled']> {
  const compiled = config.compiled;
  if (compiled === undefined) throw new PageConfigUnavailableError('config has no compiled pack');
  const { labels } = compiled;
  if (
    typeof labels !== 'object' ||
    labels === null ||
    typeof labels.name !== 'string' ||
    typeof labels.version !== 'string' ||
    !Number.isSafeInteger(labels.minProse) ||
    labels.minProse < 1
  ) {
    throw new PageConfigUnavailableError('config has no usable label pack');
  }
  return compiled;
}

/**
 * The source-label pack, its rules loaded when first read (issue 19 §4): only a send whose
 * history is projected reads them (outgoing-request-guard.ts), and loading them was 5-9 ms
 * of every page's set-up (bench/page-profile.ts). Rules that do not load throw on every
 * read, and that send fails closed (request-host.ts: not sent, reported); the outer fields
 * were checked with the config (`labelsOf`).
 */
function lazyLabels(labels: NonNullable<PageConfig['compiled']>['labels']): CompiledLabelPack {
  let rules: CompiledPack | undefined;
  return {
    name: labels.name,
    version: labels.version,
    minProse: labels.minProse,
    get rules() {
      return (rules ??= runToEnd(loadCompiledPackSteps(labels.rules)));
    },
  };
}

/**
 * The setup, with the pack loaded (the label rules when first read: `lazyLabels`);
 * `checked`: the built tables' bytes, their digest compared already (`applyInSteps`).
 */
function* setupSteps(
  config: PageConfig,
  checked?: Uint8Array,
): Generator<void, StreamGuardSetup, void> {
  const compiled = labelsOf(config);
  const { labels } = compiled;
  const options = { allowedImageHosts: config.allowedImageHosts };
  let pack: CompiledPack;
  if (compiled.built !== undefined) {
    // Issue 19 §4: the pack and tables the background built once for this session, their
    // digest and layout checked here; tables that do not check throw, and the page fails
    // closed (`refuse` below). Nothing is built; each rule is decoded when it first runs.
    pack = yield* checked === undefined
      ? loadDeliveredBuiltTablesSteps(compiled.built, options)
      : loadCheckedBuiltTablesSteps(checked, options);
    yield;
  } else {
    // The background could not build the tables: the pack's JSON, checked whole, and
    // the tables built here (`applyInSteps`).
    pack = yield* loadCompiledPackSteps(compiled.pack, options);
  }
  return {
    pack,
    guard: answerGuardOptions(config.incoming),
    labels: lazyLabels(labels),
  };
}

function setupFor(config: PageConfig): StreamGuardSetup {
  return runToEnd(setupSteps(config));
}

/**
 * A first guard of each policy: with warm tables seeded they find every table
 * built, and what remains per pack (the plan, a scanner's start tables) is done
 * here rather than in the first chunk of an answer. The plan (guard-plan.ts,
 * remembered for the same options object) in a step of its own: a first guard
 * was one step of 10-30 ms in traced page loads.
 */
function* firstGuardSteps(pack: CompiledPack, optionsList: readonly GuardOptions[]) {
  for (const options of optionsList) {
    guardPlan(pack, options);
    yield;
    new StreamGuard(pack, options).push('');
    yield;
  }
}

/** The first setup: a promise that settles once, and how to settle it. */
function firstSetup() {
  let resolve: (setup: StreamGuardSetup) => void = () => undefined;
  let reject: (reason: Error) => void = () => undefined;
  const promise = new Promise<StreamGuardSetup>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  // Waiters see the rejection; this only keeps an unwaited one from being reported as unhandled.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

export function createPageGuardConfig(): PageGuardConfig {
  let setup: StreamGuardSetup | undefined;
  let requestSetup: StreamGuardSetup | undefined;
  let loadedSetup: StreamGuardSetup | undefined;
  const first = firstSetup();
  const firstForRequests = firstSetup();
  const firstLoaded = firstSetup();
  // Fail closed: no usable first config means no guarded stream or request gets through.
  const rejectFirst = (error: Error) => {
    first.reject(error);
    firstForRequests.reject(error);
    firstLoaded.reject(error);
  };
  const refuse = (error: unknown) =>
    rejectFirst(error instanceof Error ? error : new PageConfigUnavailableError('bad config'));
  const useLoaded = (next: StreamGuardSetup) => {
    loadedSetup = next;
    firstLoaded.resolve(next);
  };
  const useForRequests = (next: StreamGuardSetup) => {
    useLoaded(next);
    requestSetup = next;
    firstForRequests.resolve(next);
  };
  const useForAnswers = (next: StreamGuardSetup) => {
    setup = next;
    first.resolve(next);
  };
  const use = (next: StreamGuardSetup) => {
    useForAnswers(next);
    useForRequests(next);
  };
  return {
    get configured() {
      return setup !== undefined;
    },
    current: () => setup,
    ready: () => (setup === undefined ? first.promise : Promise.resolve(setup)),
    currentForRequests: () => requestSetup,
    readyForRequests: () =>
      requestSetup === undefined ? firstForRequests.promise : Promise.resolve(requestSetup),
    loadedForRequests: () => requestSetup ?? loadedSetup,
    readyLoadedForRequests: () => {
      const setup = requestSetup ?? loadedSetup;
      return setup === undefined ? firstLoaded.promise : Promise.resolve(setup);
    },
    apply(config) {
      let next: StreamGuardSetup;
      try {
        next = setupFor(config);
      } catch (error) {
        refuse(error);
        return;
      }
      use(next);
    },
    async applyInSteps(config, pause) {
      let next: StreamGuardSetup;
      try {
        // The tables' digest first: SHA-256 by WebCrypto where the page has it (issue 19 §4).
        const built = config.compiled?.built;
        const checked = built === undefined ? undefined : await deliveredBuiltBytesAsync(built);
        next = await runPaced(setupSteps(config, checked), pause);
        useLoaded(next);
        const sending = sendGuardOptions(config.outgoing);
        if (config.compiled?.built !== undefined) {
          // Built tables from the background (issue 19 §4): the first guards build nothing.
          await runPaced(firstGuardSteps(next.pack, [next.guard, sending]), pause);
          use(next);
          // Then, paced, the always-on rules' data, so the first answer does not decode it.
          await runPaced(decodeAlwaysOnSteps(next.pack), pause);
          return;
        } else {
          // The first guard of a pack builds its start classes and keyword automata
          // (cached on the pack): here, in steps, not in the first send's scan or the
          // first answer's first chunk. The keyword automata of both policies first (the
          // larger rule sets serve the smaller), then the rest for answers (the answer to
          // a request sent loaded waits for it), then for sends with keywords.
          await runPaced(warmKeywordAutomataSteps(next.pack, [sending, next.guard]), pause);
          await runPaced(warmUpSteps(next.pack, next.guard), pause);
          useForAnswers(next);
          await runPaced(warmUpSteps(next.pack, sending), pause);
        }
      } catch (error) {
        refuse(error);
        return;
      }
      use(next);
    },
    fail(reason) {
      rejectFirst(new PageConfigUnavailableError(reason));
    },
  };
}
