/**
 * MAIN-world entry (document_start, every frame of a guarded site). Runs in the page's
 * own JavaScript world before any page script, so it must not use extension APIs and
 * must not talk to the page: it posts nothing to `window.postMessage`.
 *
 * 1. Opens the private channel to the ISOLATED bridge (a MessagePort handed over by a
 *    synchronous event handshake before any page script runs:
 *    src/content/page-channel-handshake.ts) and says `hello`.
 * 2. Installs the hooks with one shared options object (page-hook-options.ts). The
 *    hooks recognise chat responses and requests here (wire-recognisers.ts,
 *    request-recognisers.ts), by the chat sites' routes the bridge sends as data first
 *    (page-site-routes.ts: the page's code holds no site's URL); the guard itself runs in the ISOLATED world, which gets the
 *    bytes over the port and sends the guarded bytes back (remote-guard.ts). This
 *    script holds no rules, no guard state and no matched text.
 * 3. Fails closed: if the channel never opens, every guarded body, socket and send
 *    fails (the hooks' guard-failure paths), never passes unguarded. A hook whose own
 *    step throws stops that response and says so (`hook-failed`: the bridge shows the
 *    failure notice).
 * 4. Reaches every context (issue 18 §2): a same-origin child window the page uses
 *    before its own MAIN-world script runs gets these hooks and this channel
 *    (frame-hooks.ts); a realm already hooked that way is left alone here.
 * 5. Keeps page code out (issue 18 §4): every built-in the hooks and the port use is
 *    captured now (intrinsics.ts, evaluated first), and the language's built-ins are
 *    snapshotted once the hooks are in, for decisions (`pristine`).
 */

import { apply, pristine, snapshotLanguage } from './intrinsics.ts';
import { recogniseResponse, socketRecognisers } from '../core/wire/wire-recognisers.ts';
import { browserHandshakeDeps, startHandshake } from '../content/page-channel-handshake.ts';
import { installFetchHook, newFetchHookStats } from './fetch-hook.ts';
import { installEventSourceHook } from './event-source-hook.ts';
import { installWebSocketHook } from './web-socket-hook.ts';
import { installXhrHook } from './xhr-hook.ts';
import { createPageChannelClient } from './page-channel-client.ts';
import { createOutgoingHook, type OutgoingHook } from './outgoing-hook.ts';
import { isChatRequestBody, requestBodyAsRead, requestVerdictOf } from './chat-request-probe.ts';
import { installXhrOutgoingHook } from './xhr-outgoing-hook.ts';
import type { PageHookOptions } from './page-hook-options.ts';
import { createRemoteGuards } from './remote-guard.ts';
import { randomId } from '../protocol/random-id.ts';
import { onDocumentElement } from '../content/on-document-element.ts';
import { claimWindow, installFrameHooks, type PageWindow } from './frame-hooks.ts';
import {
  decideNow,
  installSiteRoutes,
  settleWithoutRoutes,
  siteRoutesReady,
} from './page-site-routes.ts';
import { installWorkerHooks } from './worker-hooks.ts';

function markGuardOn(): void {
  // Element.setAttribute also works on XML and SVG documents, where `dataset` may not exist.
  onDocumentElement(document, (root) => root.setAttribute('data-csg-guard', 'on'));
}

// Captured before any page script can replace them.
const getRandomValues = crypto.getRandomValues.bind(crypto);
const newId = () => randomId(getRandomValues);

const channel = createPageChannelClient((message) => {
  if (message.type !== 'site-routes') return remote.receive(message);
  try {
    installSiteRoutes(message.routes);
  } catch {
    // Installed empty: every decision that reads a route fails closed; say so once.
    hookOptions.reportFailure?.('routes', 'install');
  }
});
const remote = createRemoteGuards({ send: channel.send, newId });
// Issue 5: requests a request adapter recognises leave only as their guarded copy.
const outgoingHook = createOutgoingHook({
  guard: (request, body) => remote.request(request, body),
  baseUrl: () => document.baseURI,
  answered: (id, status) => remote.answered(id, status),
  undecided: () => hookOptions.reportFailure?.('send', 'decision'),
});

/**
 * A send is recognised by the site routes (page-site-routes.ts): until they arrive, a
 * request that may be one waits for them, then leaves as the hook decides.
 */
const prepareOutgoing: OutgoingHook['prepare'] = (input, init) => {
  const waiting = siteRoutesReady();
  if (waiting === undefined) return outgoingHook.prepare(input, init);
  return waiting.then(() => outgoingHook.prepare(input, init) ?? [input, init]);
};

/**
 * The verdict on a body at an XHR or socket `send`, which cannot wait: before the site
 * routes arrive, judged by the body's shape alone (page-site-routes.ts `decideNow`).
 */
const chatRequestBody: typeof isChatRequestBody = (request, body) =>
  decideNow(() => isChatRequestBody(request, body));

/** What the hooks did on this page (numbers only). */
const hookStats = newFetchHookStats();

/** One options object for every hook (fetch, XHR, EventSource and WebSocket). */
const hookOptions: PageHookOptions = {
  plainTextGuard: (probe) => remote.plainText(probe),
  detectAdapter: recogniseResponse,
  createWireGuard: (recogniser, probe) => remote.wire(recogniser, probe),
  // Open WebUI's Socket.IO answers, Copilot's frames (web-socket-hook.ts).
  createSocketGuard: (probe, sink) => {
    const socket = socketRecognisers.find((recogniser) => recogniser.detect(probe));
    return socket === undefined ? undefined : remote.socket(socket, probe, sink);
  },
  stats: hookStats,
  prepareOutgoing,
  // Issue 18 §1: the answer to a chat-shaped request is guarded even when no adapter claims it.
  chatRequest: (input, init) => {
    // A send the outgoing hook rebuilt: its body is the text the hook put in, read as
    // the Request would read back (chat-request-probe.ts `requestBodyAsRead`), not cloned.
    const sent = outgoingHook.sentText(input);
    const read = sent === undefined ? undefined : requestBodyAsRead(sent);
    return requestVerdictOf(input, read === undefined ? init : { body: read }, {
      baseUrl: () => document.baseURI,
      judge: pristine,
      ready: siteRoutesReady,
    });
  },
  // The recognisers read the site routes, data the bridge sends first (page-site-routes.ts).
  ready: siteRoutesReady,
  reportFailure: (hook, reason) => void channel.send({ v: 1, type: 'hook-failed', hook, reason }),
  // Issue 20: a guarded send's status goes to the bridge (a site that refuses rewrites).
  answered: (input, status) => outgoingHook.answered(input, status),
};

/** Installs every hook in `win`: this window, or a same-origin child (frame-hooks.ts). */
function hookWindow(win: PageWindow): void {
  installFetchHook(win, hookOptions);
  // Issue 18 §2: a worker's fetch goes out through this window's guarded fetch.
  const guardedFetch = win.fetch;
  installWorkerHooks(win, {
    fetch: (url, init) => apply(guardedFetch, win, [url, init]) as Promise<Response>,
    reportFailure: (hook, reason) => hookOptions.reportFailure?.(hook, reason),
    newId,
  });
  installXhrHook(win, { ...hookOptions, decideNow, chatRequestBody });
  // Issue 5: XHR sends (DeepSeek, Gemini web) leave only as their guarded copy too.
  installXhrOutgoingHook(
    win,
    {
      prepare: prepareOutgoing,
      prepareNow: (input, init) => decideNow(() => outgoingHook.prepare(input, init)),
      answered: outgoingHook.answered,
    },
    hookOptions.reportFailure,
  );
  installEventSourceHook(win, hookOptions);
  installWebSocketHook(win, { ...hookOptions, chatRequestBody });
  try {
    installFrameHooks(win, hookChild);
  } catch {
    // The transports are hooked; a frame this window creates gets its own scripts
    // (matchOriginAsFallback) but not this backstop: say so.
    hookOptions.reportFailure?.('frame', 'install');
  }
}

/**
 * Issue 18 §2: a same-origin child window the page reached before its own scripts ran
 * gets this window's hooks and channel. Runs inside a page getter: never throws; a
 * child left half-hooked is reported (the notice and an audit record).
 */
function hookChild(child: PageWindow): void {
  if (!claimWindow(child)) return;
  try {
    hookWindow(child);
  } catch {
    hookOptions.reportFailure?.('frame', 'install');
  }
}

// A realm the parent's MAIN world already hooked (frame-hooks.ts) keeps those hooks.
if (claimWindow(window)) {
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
    // No bridge: nothing is attached, and every guarded body, socket and send fails closed;
    // no site route will come (page-site-routes.ts).
    settleWithoutRoutes,
  );
  hookWindow(window);
  markGuardOn();
  snapshotLanguage();
}
