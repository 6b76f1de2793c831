/**
 * Issue 18 §2, service workers: the one context no hook of ours reaches. The browser
 * fetches and starts a service worker itself; no page-world constructor makes it (unlike
 * `Worker`: src/page/worker-hooks.ts) and no content script runs in it. What the page
 * reads through its own fetch, XHR, EventSource or WebSocket is still guarded when the
 * worker answers the request (the page's hook reads the body it is given); what the
 * worker reads itself and hands over another way (`postMessage`, BroadcastChannel, the
 * Cache API) is not. docs/hooks-contexts.md, "Service workers".
 *
 * So the person is told, once per page, as soon as a service worker controls this page
 * (`controller` at start, or a `controllerchange` event: a worker that claims its
 * clients, or the next load after registration) or is active for it
 * (`navigator.serviceWorker.ready` resolves: Service Workers spec, an active worker whose
 * scope covers this document; Firefox answers it here, Chromium refuses `ready` outside
 * the page's own world, "only supported in pages", so there the report waits for
 * control and `ready` is not read at all). It reports through unguarded-reports.ts (`service-worker` / `active`).
 * Watched from the ISOLATED world, where the page cannot interfere and the MAIN-world
 * script (issue 4: its size) carries nothing for it; the container and its events are
 * the page's own in either world. The page's registration is not touched.
 *
 * A worker whose scope does not cover this page never controls it: it cannot answer
 * this page's requests either.
 */

/** What the watch needs of `navigator` (`serviceWorker` is absent outside secure contexts). */
export interface ServiceWorkerNavigator {
  serviceWorker?:
    | {
        readonly ready?: Promise<unknown>;
        readonly controller?: unknown;
        addEventListener?(type: 'controllerchange', listener: () => void): void;
      }
    | undefined;
}

/**
 * Calls `report` once when a service worker controls, or is active for, this page.
 * `askReady`: whether to read `ready` at all. Chromium answers it in this world with a
 * rejected promise and a DOMException, about 1.1 ms per page and frame (measured in an
 * isolated world of Chromium 156 on the bench page, issue 19 §4), for nothing: there
 * the caller passes false and control alone tells.
 */
export function watchServiceWorker(
  nav: ServiceWorkerNavigator,
  report: () => void,
  askReady = true,
): void {
  let told = false;
  const tell = () => {
    if (told) return;
    told = true;
    report();
  };
  try {
    const container = nav.serviceWorker;
    if (container === undefined) return;
    container.addEventListener?.('controllerchange', tell);
    if (container.controller !== null && container.controller !== undefined) tell();
    if (askReady) void container.ready?.then(tell, () => undefined);
  } catch {
    // A sandboxed or opaque-origin document throws on access: no worker can control it;
    // Chromium's `ready` outside the page throws here or rejects above.
  }
}
