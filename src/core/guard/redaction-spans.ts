/**
 * Text-changing matches judged together (DESIGN.md §3.10, issue 17 §1): every
 * rule's match at every start is a span; overlapping spans are merged and their
 * union is redacted as one, so no redaction ever ends inside a secret that
 * another rule (or the same rule from another start) covers. Spans that only
 * touch stay two replacements side by side: nothing between them is released
 * either, and a match that ends where nothing can extend it is released at
 * once instead of waiting for the next unit.
 *
 * The union is a function of the text alone, so any chunking gives the same
 * clusters. To keep the hold bounded, a cluster takes only spans that begin
 * within `reach` units of its start; a span that overlaps it but begins later
 * starts the next cluster where this one ends (the two replacements touch, and
 * nothing between them is released).
 */
import type { CompiledRule } from '../rules/compile-pack.ts';

/** One rule's decided match, in view offsets (rendered-view.ts); value-only when the rule says so. */
export interface Span {
  rule: CompiledRule;
  start: number;
  end: number;
  host?: string;
}

export interface Cluster {
  start: number;
  end: number;
  members: Span[];
}

export class RedactionSpans {
  /** Pending spans, sorted by start. */
  private spans: Span[] = [];
  /** Text before this view offset is decided: later spans are clipped to begin here. */
  private clipAt = 0;

  constructor(private readonly reach: number) {}

  /** No span, nothing decided: a reused guard's next stream (stream-guard.ts `reset`). */
  reset(): void {
    this.spans = [];
    this.clipAt = 0;
  }

  get isEmpty(): boolean {
    return this.spans.length === 0;
  }

  add(span: Span): void {
    if (span.end <= this.clipAt) return;
    if (span.start < this.clipAt) span.start = this.clipAt;
    const spans = this.spans;
    let i = spans.length;
    while (i > 0 && (spans[i - 1] as Span).start > span.start) i--;
    spans.splice(i, 0, span);
  }

  /** Nothing before `at` can be redacted any more (it was released, redacted or swallowed). */
  clip(at: number): void {
    if (at <= this.clipAt) return;
    this.clipAt = at;
    const kept: Span[] = [];
    for (const s of this.spans) {
      if (s.end <= at) continue;
      if (s.start < at) s.start = at;
      kept.push(s);
    }
    kept.sort((a, b) => a.start - b.start);
    this.spans = kept;
  }

  /** Start of the earliest pending span, or Infinity. */
  get firstStart(): number {
    return this.spans[0]?.start ?? Infinity;
  }

  /** The earliest cluster as far as it is known now (more spans may still join it). */
  first(): Cluster | null {
    const [head] = this.spans;
    if (head === undefined) return null;
    let end = head.end;
    const members: Span[] = [head];
    for (let i = 1; i < this.spans.length; i++) {
      const s = this.spans[i] as Span;
      if (s.start >= end || s.start >= head.start + this.reach) break;
      members.push(s);
      if (s.end > end) end = s.end;
    }
    return { start: head.start, end, members };
  }

  /**
   * Whether no span can join `cluster` any more, given the earliest view offset
   * from which a scanner may still report one (its hold).
   */
  isSettled(cluster: Cluster, holdFrom: number): boolean {
    return holdFrom >= cluster.end || holdFrom >= cluster.start + this.reach;
  }

  /** Removes a committed cluster's members; later spans begin after it. */
  take(cluster: Cluster): void {
    const members = new Set(cluster.members);
    this.spans = this.spans.filter((s) => !members.has(s));
    this.clip(cluster.end);
  }
}

/**
 * How specific a member is, lower first: a rule for a specific format, then a
 * generic one, then an invisible-character rule (it only strips units: inside
 * a secret's redaction, the secret names it and its replacement is shown).
 */
function rankOf(s: Span): number {
  if (s.rule.kind === 'invisible') return 2;
  return s.rule.spec.generic === true ? 1 : 0;
}

/**
 * The member that names the redaction: the lowest rank (`rankOf`), then the
 * widest span, then the rule listed first.
 */
export function primaryOf(members: readonly Span[]): Span {
  let best = members[0] as Span;
  for (const s of members) {
    const r = rankOf(s);
    const br = rankOf(best);
    const width = s.end - s.start;
    const bestWidth = best.end - best.start;
    if (
      r < br ||
      (r === br && (width > bestWidth || (width === bestWidth && s.rule.index < best.rule.index)))
    ) {
      best = s;
    }
  }
  return best;
}
