/**
 * The spans the person pasted as untrusted on this page (issue 5 §2), kept in
 * the ISOLATED world's memory for the page's lifetime only: never stored,
 * never sent to the background, never logged.
 *
 * Trade-off (why raw text and not a keyed digest): at send time the span must
 * be FOUND in the outgoing text, and a digest cannot be searched for without
 * its boundaries. So the bridge keeps the pasted text in memory, as the page
 * itself does (it was pasted into the page). What goes to the MAIN world (the
 * page's world) is only `found()`'s answer: spans that occur in the texts the
 * request already carries, so the page learns nothing it did not send itself.
 *
 * Editors change what was pasted before it is sent, so each span is looked
 * for as pasted, with CR/CRLF as LF (a textarea's value normalises line
 * breaks, HTML §4.10.11), and trimmed (chat UIs trim the prompt).
 */

/** At most this many spans remembered; the oldest is forgotten first. */
export const MAX_PASTED_SPANS = 64;
/** Longer pastes are remembered up to this many UTF-16 units... and then not at all. */
export const MAX_PASTED_LENGTH = 1_000_000;

/** The forms a pasted span may take in the sent text, most faithful first. */
export function spanForms(span: string): string[] {
  const lf = span.replace(/\r\n?/g, '\n');
  const forms = [span, lf, span.trim(), lf.trim()].filter((f) => f.length > 0);
  return [...new Set(forms)];
}

export class PastedSpans {
  private readonly spans: string[] = [];

  /** Remembers a pasted span (empty and oversized pastes are ignored). */
  add(span: string): void {
    if (span.length === 0 || span.length > MAX_PASTED_LENGTH) return;
    const known = this.spans.indexOf(span);
    if (known >= 0) this.spans.splice(known, 1);
    this.spans.push(span);
    if (this.spans.length > MAX_PASTED_SPANS) this.spans.shift();
  }

  get size(): number {
    return this.spans.length;
  }

  /** For each remembered span, its first form found in any of `texts` (deduplicated). */
  found(texts: readonly string[]): string[] {
    const out = new Set<string>();
    for (const span of this.spans) {
      const form = spanForms(span).find((f) => texts.some((t) => t.includes(f)));
      if (form !== undefined) out.add(form);
    }
    return [...out];
  }
}
