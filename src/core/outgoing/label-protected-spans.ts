/**
 * Where a source label is never looked for (seed 001 §7.1.3): inside URLs
 * (`scheme://…`, protocol-relative `//host/…`, `www.…`, a bare domain or IPv4
 * host with a path, `mailto:`/`data:`/`tel:` addresses), Markdown link targets
 * `](…)` and `](<…>)`, reference definitions whose target starts with `/`,
 * `./`, `../` or sits in angle brackets, and forward-slash drive paths
 * (`C:/…`). A URL ends at whitespace, closing punctuation, `…` or `～`, since
 * models write those right after an address before the next comment.
 *
 * These are ordinary regular expressions over one message's text with no
 * nested quantifiers: linear in the text.
 */

export interface TextSpan {
  /** UTF-16 offsets, end exclusive. */
  start: number;
  end: number;
}

const URL_TAIL = `[^\\s<>"'()\\[\\]（）【】「」『』“”‘’，。！？；：、…～]*`;

const PROTECTED = new RegExp(
  [
    `[a-z][a-z0-9+.-]*://${URL_TAIL}`,
    `(?<![\\w:/])//(?:[\\w-]+@)?(?:\\[[0-9a-f:.]+\\]|[\\w-]+(?:\\.[\\w-]+)*)(?::\\d+)?[/?#]${URL_TAIL}`,
    `\\bwww\\.[\\w-]+${URL_TAIL}`,
    `\\b(?:[a-z0-9-]+\\.)+[a-z]{2,}(?::\\d+)?/${URL_TAIL}`,
    `\\b\\d{1,3}(?:\\.\\d{1,3}){3}(?::\\d+)?/${URL_TAIL}`,
    `\\b(?:mailto|data|tel):${URL_TAIL}`,
    `\\]\\((?:<[^>\\n]*>|[^)\\n]*)\\)`,
    `^[ \\t]*\\[[^\\]\\n]+\\]:[ \\t]*(?:<[^>\\n]*>|\\.{0,2}/\\S*)`,
    `\\b[a-z]:/\\S*`,
  ].join('|'),
  'gimu',
);

/** Spans of `text` in which labels are not looked for, in order. */
export function labelProtectedSpans(text: string): TextSpan[] {
  const spans: TextSpan[] = [];
  for (const m of text.matchAll(PROTECTED)) {
    if (m[0].length > 0) spans.push({ start: m.index, end: m.index + m[0].length });
  }
  return spans;
}
