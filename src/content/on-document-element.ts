/**
 * Runs `mark` on the document element as soon as there is one. At document_start
 * the parser may not have created `<html>` yet; a MutationObserver on the document
 * sees it arrive. No extension APIs: the MAIN world uses it too.
 */
export function onDocumentElement(doc: Document, mark: (root: Element) => void): void {
  if (doc.documentElement) {
    mark(doc.documentElement);
    return;
  }
  const observer = new MutationObserver(() => {
    if (!doc.documentElement) return;
    observer.disconnect();
    mark(doc.documentElement);
  });
  observer.observe(doc, { childList: true });
}
