/**
 * UI strings looked up when first read, not when a page's guard starts (issue 19 §4):
 * the first `i18n.getMessage` in a content script loads the extension's message
 * catalogue, 3-6 ms of every page's set-up on this machine (bench/page-profile.ts),
 * and most pages never show a notice or the send dialog.
 *
 * No extension APIs here: `translate` is the caller's (src/ui/i18n.ts `t`).
 */

/** An object whose field `name` reads `translate(keys[name])` each time it is read. */
export function lazyStrings<K extends string>(
  translate: (key: string) => string,
  keys: Record<K, string>,
): Record<K, string> {
  const strings = {} as Record<K, string>;
  for (const name of Object.keys(keys) as K[]) {
    Object.defineProperty(strings, name, { get: () => translate(keys[name]), enumerable: true });
  }
  return strings;
}
