/**
 * Complete LF-ended lines out of text that arrives in pieces, in time linear in
 * the text however many pieces a line comes in: a push reads only its own text,
 * and the unended rest of earlier pushes is appended to, never searched or read
 * (a string appended to is not copied until it is read), so a long line in many
 * small pieces is joined once, when its LF arrives (issue 19 §4: searching the
 * whole buffer per push made one long NDJSON line quadratic).
 */
export class LineSplitter {
  /** The text after the last LF, not yet a line. */
  private rest = '';

  /** The lines that `text` completes, each with its LF, in order. */
  push(text: string): string[] {
    let nl = text.indexOf('\n');
    if (nl === -1) {
      this.rest += text;
      return [];
    }
    const lines = [this.rest + text.slice(0, nl + 1)];
    let start = nl + 1;
    for (nl = text.indexOf('\n', start); nl !== -1; nl = text.indexOf('\n', start)) {
      lines.push(text.slice(start, nl + 1));
      start = nl + 1;
    }
    this.rest = text.slice(start);
    return lines;
  }

  /** What followed the last LF (a last line without one), and forgets it. */
  end(): string {
    const rest = this.rest;
    this.rest = '';
    return rest;
  }
}
