/**
 * Every context, besides the page's own window, in which page code can read an answer,
 * and what the hooks make of it (issue 18 §2 and §5; docs/hooks-contexts.md). The e2e
 * test (test/e2e/contexts.test.ts) reads an answer carrying a secret in each one, in
 * Chromium and Firefox, and fails when a context is listed without a case or a case is
 * not listed. Kept beside reading-paths.ts (the ways to read a response in a context).
 *
 * - `guarded`: the context reads the guarded answer and nothing else;
 * - `guarded-or-refused`: guarded where the page's CSP lets a blob: worker load the
 *   site's scripts; otherwise the worker does not start, and the person gets a notice
 *   and the audit log a record (worker-hooks.ts);
 * - `refused`: never started; the notice and an audit record;
 * - `reported`: out of every hook's reach, so the person is told (a notice and an audit
 *   record) and the context runs as without the extension.
 *
 * Not loaded in the page: nothing in the MAIN-world script imports it.
 */

export type ContextVerdict = 'guarded' | 'guarded-or-refused' | 'refused' | 'reported';

export const READING_CONTEXTS = {
  /** An about:blank iframe used in the task that appended it, through `contentWindow`. */
  'frame-sync': 'guarded',
  /** The same, reached as `window[i]`. */
  'frame-indexed': 'guarded',
  /** A popup from `window.open('')`, used at once. */
  'frame-popup': 'guarded',
  'frame-srcdoc': 'guarded',
  'frame-blob': 'guarded',
  'worker-classic': 'guarded-or-refused',
  /** Guarded under a nonce-only CSP too: its static imports load there. */
  'worker-module': 'guarded',
  /** A dedicated worker started from a blob: URL the page made. */
  'worker-blob': 'guarded-or-refused',
  'shared-worker': 'guarded-or-refused',
  /** An opaque origin: relayed through the page, its requests would change origin. */
  'worker-data': 'refused',
  /**
   * Started by the browser, not by page code: reported once per page when one controls
   * the page (src/content/service-worker-watch.ts); its case is in
   * test/e2e/no-silent-path.test.ts.
   */
  'service-worker': 'reported',
} as const satisfies Record<string, ContextVerdict>;

export type ReadingContext = keyof typeof READING_CONTEXTS;
