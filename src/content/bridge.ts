/**
 * ISOLATED-world entry at document_start, in every frame of a guarded site: the
 * small half of the bridge between the MAIN world (src/page) and the guard.
 *
 * It runs in the same task as the page's first parse, beside the MAIN-world hook,
 * so it does only what cannot wait: it takes the private port before any page
 * script runs (page-channel-handshake.ts), re-validates every message the page
 * sends (parse-page-message.ts) and keeps them, in order, at the engine dock
 * (engine-dock.ts). The guard engine itself (guard-engine.ts) is a second script,
 * run at document_end in a later task; it docks through the isolated world's
 * global (engine-slot.ts) and takes over.
 *
 * If the engine has not docked ENGINE_DEADLINE_MS after DOMContentLoaded, the dock
 * expires: waiting and later streams fail, waiting and later requests are not
 * sent (fail closed, never a page that waits forever).
 *
 * Once the channel is up, the document is marked `data-csg-channel="open"`; the
 * engine marks `data-csg-bridge="on"` when it has docked (tests wait for both).
 */
import { SITE_ROUTES } from '../core/wire/site-routes.ts';
import type { BridgeToPage } from '../protocol/page-channel.ts';
import { type SendToBackground, createBackgroundLink } from './background-link.ts';
import { createEngineDock } from './engine-dock.ts';
import { offerEngineSlot } from './engine-slot.ts';
import { onDocumentElement } from './on-document-element.ts';
import { browserHandshakeDeps, startHandshake } from './page-channel-handshake.ts';
import { parsePageMessage } from './parse-page-message.ts';

/**
 * The engine runs right after DOMContentLoaded; this only catches a script that
 * failed to run at all, so it is generous (Firefox compiles a large content script
 * before its first run in a new content process).
 */
const ENGINE_DEADLINE_MS = 10_000;

/**
 * Runtime messaging without the polyfill (it is the engine's; this script stays
 * small): the callback form, which both browsers' `chrome.runtime` take.
 */
const send: SendToBackground = (message) =>
  new Promise((resolve, reject) => {
    chrome.runtime.sendMessage(message, (answer: unknown) => {
      const error = chrome.runtime.lastError;
      if (error) reject(new Error(error.message ?? 'no answer'));
      else resolve(answer);
    });
  });

// Asked at document_start, so the answers are on their way while the page parses and
// the engine loads (it used to ask only once it ran, a round trip later). From the next
// task, not this one: the first `runtime.sendMessage` sets up the extension bindings,
// and in this task (the page's first parse, with the MAIN-world hook) that made a long
// task of it in 3 of 8 traced bench runs (issue 4: that task took 23–54 ms, 14–36 ms of
// it ours; asked from the next task, 25–36 ms, 11–20 ms ours, in 8 runs).
const link = createBackgroundLink(send);
const asking = new Promise<void>((resolve) => window.setTimeout(resolve, 0));
const early = {
  pageConfig: asking.then(() => link.pageConfig()),
  pagePack: asking.then(() => link.pagePack()),
};

let pagePort: MessagePort | undefined;
/**
 * A body's guarded bytes move to the page rather than being copied (issue 19 §5: a
 * 5 MB history document was 25 ms of the page's main thread to copy back); they are
 * always a buffer of the bridge's own (body-bytes.ts). Sent as a copy if not movable.
 */
const toPage = (message: BridgeToPage) => {
  if (pagePort === undefined) return;
  if (message.type === 'guard-output') {
    try {
      pagePort.postMessage(message, [message.bytes.buffer]);
      return;
    } catch {
      // Not transferable here: sent as a copy below.
    }
  }
  pagePort.postMessage(message);
};
const dock = createEngineDock(toPage, early);

startHandshake(
  'bridge',
  browserHandshakeDeps(window),
  (port) => {
    pagePort = port;
    // First, the chat sites' routes as data: the page's code holds none (site-routes.ts).
    toPage({ v: 1, type: 'site-routes', routes: SITE_ROUTES });
    port.onmessage = (event: MessageEvent) => {
      const message = parsePageMessage(event.data);
      if (message !== undefined) dock.receive(message);
    };
    onDocumentElement(document, (root) => root.setAttribute('data-csg-channel', 'open'));
  },
  // No MAIN world on this page: nothing to guard here.
  () => undefined,
);

offerEngineSlot(globalThis, (engine) => dock.dock(engine));

function startDeadline(): void {
  window.setTimeout(() => dock.expire(), ENGINE_DEADLINE_MS);
}
if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', startDeadline, { once: true });
} else {
  startDeadline();
}

export {};
