/**
 * Issue 18 §2, service workers: the one context no hook of ours reaches. The browser
 * fetches and starts a service worker itself; no page-world constructor makes it (unlike
 * `Worker`: src/page/worker-hooks.ts) and no content script runs in it. What the page
 * reads through its own fetch, XHR, EventSource or WebSocket is still guarded when the
 * worker answers the request (the page's hook reads the body it is given); what the
 * worker reads itself and hands over another way (`postMessage`, BroadcastChannel, the
 * Cache API) is not. docs/hooks-contexts.md, "Service workers".
 *
 * So the person is told, once per page: when a service worker controls this page or has
 * been registered for it, `navigator.serviceWorker.ready` resolves (Service Workers spec,
 * `ready`: an active worker whose scope covers this document), and this reports it
 * (unguarded-reports.ts `service-worker` / `active`). Watched from the ISOLATED world,
 * where the page cannot interfere and the MAIN-world script (issue 4: its size) carries
 * nothing for it; `ready` is the same container's promise in either world. The page's
 * registration is not touched.
 *
 * A worker whose scope does not cover this page never resolves `ready`: it cannot
 * answer this page's requests either.
 */

/** What the watch needs of `navigator`: only `serviceWorker.ready` (absent outside secure contexts). */
export interface ServiceWorkerNavigator {
  serviceWorker?: { ready: Promise<unknown> } | undefined;
}

/** Calls `report` once when a service worker controls or is registered for this page. */
export function watchServiceWorker(nav: ServiceWorkerNavigator, report: () => void): void {
  let ready: Promise<unknown> | undefined;
  try {
    ready = nav.serviceWorker?.ready;
  } catch {
    // A sandboxed or opaque-origin document throws on access: no worker can control it.
    return;
  }
  void ready?.then(report, () => undefined);
}
