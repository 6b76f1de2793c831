/**
 * ISOLATED-world entry (document_start, every frame of a guarded site).
 *
 * Shell version: it only marks the document so tests can see it ran. It does not
 * listen to the page, count redactions or talk to the background yet: the private
 * channel between the MAIN world and this bridge is a later issue, and until then the
 * MAIN world reports nothing, so there is nothing honest to count.
 */

function markBridgeOn(): void {
  const mark = (root: Element) => root.setAttribute('data-csg-bridge', 'on');
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

markBridgeOn();

export {};
