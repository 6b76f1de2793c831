/**
 * MAIN-world entry (document_start, every frame of a guarded site). Runs in the page's
 * own JavaScript world before any page script, so it must not use extension APIs and
 * must not talk to the page: it posts nothing to `window.postMessage`.
 *
 * Hooks `fetch`: every response a wire adapter recognises runs through the adapter's
 * byte transform with the built-in pack, and the local mock chat's plain-text
 * `/api/chat` stream through the text guard (fetch-hook.ts). The other hooks (XHR,
 * EventSource, WebSocket) and the private bridge channel come in later slices; until
 * then guard events and the hook's counters stay in this world and are reported nowhere.
 */

import { createGuardTransform } from '../core/guard/guard-stream.ts';
import { getCorePack } from '../core/rules/builtin-packs.ts';
import { detectAdapter } from '../core/wire/adapter-registry.ts';
import { createWireTransform } from '../core/wire/wire-transform.ts';
import { installFetchHook, newFetchHookStats } from './fetch-hook.ts';

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

/** What the fetch hook did on this page; the bridge (a later slice) will report it. */
const fetchStats = newFetchHookStats();

installFetchHook(window, {
  plainTextGuard: () => createGuardTransform(getCorePack()),
  detectAdapter,
  createWireGuard: (adapter) => createWireTransform(adapter, getCorePack()),
  stats: fetchStats,
});
markGuardOn();
