/**
 * MAIN-world entry (document_start, every frame of a guarded site). Runs in the page's
 * own JavaScript world before any page script, so it must not use extension APIs and
 * must not talk to the page: it posts nothing to `window.postMessage`.
 *
 * 1. Opens the private channel to the ISOLATED bridge (a MessagePort handed over by a
 *    synchronous event handshake before any page script runs:
 *    src/content/page-channel-handshake.ts) and says `hello`.
 * 2. Installs the hooks with one shared options object (page-hook-options.ts). Every
 *    guard a hook builds is wrapped here: the stream gets a random id and reports its
 *    guard events (with the matched text, for the audit digest), holding transitions,
 *    wire issues and how it ended (guard-reporter.ts).
 * 3. Applies the `config` the bridge sends (with the pack the background compiled:
 *    this bundle has no rule compiler and no pack JSON) to streams that start
 *    afterwards. A guarded stream or send that starts before it WAITS for it
 *    (deferred-guard.ts, OutgoingHookDeps.ready): never unguarded, never released on a
 *    timer. If the channel never opens or the first config is unusable, guarded
 *    streams fail closed (page-guard-config.ts).
 */

import { createGuardTransform } from '../core/guard/guard-stream.ts';
import type { WireAdapter } from '../core/wire/wire-event.ts';
import { detectAdapter } from '../core/wire/adapter-registry.ts';
import { OpenWebUiSocketGuard, openWebUiSocket } from '../core/wire/adapters/open-webui-socket.ts';
import { createWireTransform } from '../core/wire/wire-transform.ts';
import { browserHandshakeDeps, startHandshake } from '../content/page-channel-handshake.ts';
import { installFetchHook, newFetchHookStats } from './fetch-hook.ts';
import { installEventSourceHook } from './event-source-hook.ts';
import { installWebSocketHook } from './web-socket-hook.ts';
import { installXhrHook } from './xhr-hook.ts';
import { createGuardReporter, randomStreamId, type StreamReporter } from './guard-reporter.ts';
import type { ByteGuard } from './guarded-response.ts';
import { createPageChannelClient } from './page-channel-client.ts';
import { createPageGuardConfig } from './page-guard-config.ts';
import { createOutgoingHook } from './outgoing-hook.ts';
import { createOutgoingSettings } from './outgoing-setup.ts';
import { installXhrOutgoingHook } from './xhr-outgoing-hook.ts';
import type { PageHookOptions } from './page-hook-options.ts';
import { reportingGuard } from './reporting-guard.ts';
import { deferredGuard } from './deferred-guard.ts';
import type { SocketMessageGuard } from './page-hook-options.ts';
import type { StreamGuardSetup } from './page-guard-config.ts';

function markGuardOn(): void {
  // Element.setAttribute also works on XML and SVG documents, where `dataset` may not exist.
  const mark = (root: Element) => root.setAttribute('data-csg-guard', 'on');
  if (document.documentElement) {
    mark(document.documentElement);
    return;
  }
  const observer = new MutationObserver(() => {
    if (!document.documentElement) return;
    observer.disconnect();
    mark(document.documentElement);
  });
  observer.observe(document, { childList: true });
}

// Captured before any page script can replace them.
const getRandomValues = crypto.getRandomValues.bind(crypto);

const guardConfig = createPageGuardConfig();
const outgoingSettings = createOutgoingSettings(guardConfig);
const channel = createPageChannelClient((message) => {
  if (message.type === 'config') {
    guardConfig.apply(message.config);
    outgoingSettings.apply(message.config);
  } else outgoingHook.receive(message);
});
const reporter = createGuardReporter(channel.send, () => randomStreamId(getRandomValues));
// Issue 5: requests a request adapter recognises leave only as their guarded copy.
const nativeSetTimeout = window.setTimeout.bind(window);
const outgoingHook = createOutgoingHook({
  setup: () => outgoingSettings.current(),
  ready: () => guardConfig.ready(),
  send: channel.send,
  connected: () => channel.connected,
  newId: () => randomStreamId(getRandomValues),
  setTimeout: (callback, ms) => nativeSetTimeout(callback, ms),
  baseUrl: () => document.baseURI,
});

/**
 * Opens a reported stream and builds its guard; a guard that cannot be built is
 * reported failed (and the hook fails the body closed).
 */
function reported<T>(
  format: string,
  build: (stream: StreamReporter) => ReadableWritablePair<T, T>,
): ReadableWritablePair<T, T> {
  const stream = reporter.openStream('in', format);
  try {
    return reportingGuard(build(stream), stream);
  } catch (error) {
    stream.end('failed');
    throw error;
  }
}

/** The plain-text mock chat / self-hosted stream (fetch-hook.ts). */
function plainTextGuard(
  { pack, guard }: StreamGuardSetup,
  stream: StreamReporter,
): TransformStream<string, string> {
  return createGuardTransform(pack, {
    ...guard,
    onEvent: (event) => stream.guardEvents([event]),
    onHoldChange: (holding) => stream.holding(holding),
  });
}

/** Any recognised wire format; shared by every hook (fetch, XHR, EventSource). */
function wireGuard(
  adapter: WireAdapter,
  { pack, guard }: StreamGuardSetup,
  stream: StreamReporter,
): ByteGuard {
  return createWireTransform(adapter, pack, {
    guard,
    onGuardEvents: (_channel, events) => stream.guardEvents(events),
    onIssue: (issue) => stream.wireIssue(issue),
    onHoldChange: (holding) => stream.holding(holding),
  });
}

/** What the hooks did on this page (numbers only). */
const hookStats = newFetchHookStats();

/**
 * One options object for every hook (fetch here; XHR, EventSource and WebSocket take the
 * same object), so every guard they build is reported.
 */
const hookOptions: PageHookOptions = {
  plainTextGuard: () =>
    deferredGuard(guardConfig.ready, (setup) =>
      reported('plain-text', (s) => plainTextGuard(setup, s)),
    ),
  detectAdapter,
  createWireGuard: (adapter: WireAdapter) =>
    deferredGuard(guardConfig.ready, (setup) =>
      reported(adapter.format, (s) => wireGuard(adapter, setup, s)),
    ),
  // Open WebUI's Socket.IO answers (web-socket-hook.ts): guard events reported like the rest.
  createSocketGuard: (probe) =>
    openWebUiSocket.detect(probe)
      ? deferredSocketGuard(() => socketGuard(guardConfig.current()))
      : undefined,
  stats: hookStats,
  prepareOutgoing: (input, init) => outgoingHook.prepare(input, init),
};

/**
 * The socket hook's interface is synchronous, so a socket guard cannot await the
 * config: until there is one, messages are kept (none reaches the page) and go
 * through the guard with the first message after it arrives; a socket that closes
 * before then fails closed (the hook counts a guard failure). In practice a chat
 * socket opens long after the config (sent at document_start) has arrived.
 */
function deferredSocketGuard(build: () => SocketMessageGuard | undefined): SocketMessageGuard {
  let inner: SocketMessageGuard | undefined;
  const waiting: string[] = [];
  const open = () => (inner ??= build());
  return {
    push: (message) => {
      const guard = open();
      if (guard === undefined) {
        waiting.push(message);
        return [];
      }
      return [...waiting.splice(0), message].flatMap((m) => guard.push(m));
    },
    end: () => {
      const guard = open();
      if (guard === undefined) throw new Error('page config never arrived');
      return [...waiting.splice(0).flatMap((m) => guard.push(m)), ...guard.end()];
    },
  };
}

/** Open WebUI's socket guard with `setup`; undefined while there is no setup yet. */
function socketGuard(setup: StreamGuardSetup | undefined): SocketMessageGuard | undefined {
  if (setup === undefined) return undefined;
  const { pack, guard } = setup;
  const stream = reporter.openStream('in', openWebUiSocket.format);
  const inner = new OpenWebUiSocketGuard(pack, {
    guard,
    onGuardEvents: (_channel, events) => stream.guardEvents(events),
    onIssue: (issue) => stream.wireIssue(issue),
  });
  // Throwing means the guard failed (the hook fails closed): report it before it propagates.
  const failing = <T>(work: () => T): T => {
    try {
      return work();
    } catch (error) {
      stream.end('failed');
      throw error;
    }
  };
  return {
    push: (message) => failing(() => inner.push(message)),
    end: () => {
      const last = failing(() => inner.end());
      stream.end(stream.impliedOutcome);
      return last;
    },
  };
}

startHandshake(
  'main',
  browserHandshakeDeps(window),
  (port) => {
    channel.attach(port);
    channel.send({
      v: 1,
      type: 'hello',
      hooks: ['fetch', 'xhr', 'event-source', 'web-socket'],
    });
  },
  // No bridge, no config: guarded streams fail closed rather than wait forever.
  () => guardConfig.fail('the private channel to the bridge did not open'),
);

installFetchHook(window, hookOptions);
installXhrHook(window, hookOptions);
// Issue 5: XHR sends (DeepSeek, Gemini web) leave only as their guarded copy too.
installXhrOutgoingHook(window, outgoingHook);
installEventSourceHook(window, hookOptions);
installWebSocketHook(window, hookOptions);
markGuardOn();
