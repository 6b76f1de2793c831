/**
 * MAIN-world entry (document_start, every frame of a guarded site). Runs in the page's
 * own JavaScript world before any page script, so it must not use extension APIs and
 * must not talk to the page: it posts nothing to `window.postMessage`.
 *
 * Shell version: hooks `fetch` for the local mock chat's `/api/chat` plain-text stream
 * and runs its body through the core guard with the built-in pack. The real hooks
 * (XHR, EventSource, WebSocket, provider adapters, the private bridge channel) come in
 * later issues.
 */

import { createGuardTransform } from '../core/guard/guard-stream.ts';
import { getCorePack } from '../core/rules/builtin-packs.ts';
import { installFetchHook } from './fetch-hook.ts';

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

installFetchHook(window, () => createGuardTransform(getCorePack()));
markGuardOn();
