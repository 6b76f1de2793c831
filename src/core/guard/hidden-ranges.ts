/**
 * The units of the rendered view a person never sees (DESIGN.md §3.10, issue
 * 17 §1b): default-ignorable code points, inline Markdown markup that can sit
 * inside a word (`*`, a backtick) and HTML comments. Secret and PII rules read
 * the view as if these units were not there, so `ghp_abc\u200Bdef…`,
 * `ghp_abc**def**…` and `ghp_abc<!-- -->def…` are the token a person reads.
 *
 * Kept as sorted, disjoint, non-touching intervals of absolute view offsets:
 * nearly every text has none, and then every query is one comparison.
 */
export class HiddenRanges {
  /** Units hidden from every match: invisible code points, `*`, backticks, `<!--`. */
  readonly all = new IntervalList();
  /**
   * HTML comment content (up to and with its `-->`): hidden from a match that
   * was being read before the comment began (it reads across it), but a match
   * can also begin inside it, since a renderer that shows comments as text shows
   * what they hold.
   */
  readonly content = new IntervalList();
  /** Both: what the keyword automaton that reads across comments never sees. */
  readonly union = new IntervalList();

  get isEmpty(): boolean {
    return this.union.isEmpty;
  }

  add(from: number, to: number): void {
    this.all.add(from, to);
    this.union.add(from, to);
  }

  addContent(from: number, to: number): void {
    this.content.add(from, to);
    this.union.add(from, to);
  }

  /** Empty again, for a new stream over the same objects (stream-guard.ts `reset`). */
  reset(): void {
    this.all.reset();
    this.content.reset();
    this.union.reset();
  }

  trimBefore(at: number): void {
    this.all.trimBefore(at);
    this.content.trimBefore(at);
    this.union.trimBefore(at);
  }
}

/** Ranges `indexAfter` walks from its last answer before it searches. */
const HINT_WALK = 6;

/** Sorted, disjoint, non-touching intervals of absolute offsets. */
export class IntervalList {
  /** Flat pairs [from0, to0, from1, to1, …], sorted; `to` exclusive. */
  private ranges: number[] = [];
  /** The even index `indexAfter` answered last (a place to start, never trusted). */
  private hint = 0;

  get isEmpty(): boolean {
    return this.ranges.length === 0;
  }

  /** No range, as new (a reused guard's next stream; stream-guard.ts `reset`). */
  reset(): void {
    this.ranges = [];
    this.hint = 0;
  }

  /** Marks [from, to) hidden; `from` is at or after every range added so far. */
  add(from: number, to: number): void {
    if (to <= from) return;
    const n = this.ranges.length;
    if (n > 0 && (this.ranges[n - 1] as number) >= from) {
      this.ranges[n - 1] = Math.max(this.ranges[n - 1] as number, to);
      return;
    }
    this.ranges.push(from, to);
  }

  /** Whether the unit at `at` is hidden. */
  has(at: number): boolean {
    const i = this.indexAfter(at);
    return i < this.ranges.length && (this.ranges[i] as number) <= at;
  }

  /**
   * The first hidden offset at or after `at` (`at` itself when it is hidden), or
   * Infinity when nothing from `at` on is hidden.
   */
  nextFrom(at: number): number {
    const i = this.indexAfter(at);
    if (i >= this.ranges.length) return Infinity;
    return Math.max(at, this.ranges[i] as number);
  }

  /** End of the hidden run that contains `at` (`at` when it is not hidden). */
  runEnd(at: number): number {
    const i = this.indexAfter(at);
    if (i < this.ranges.length && (this.ranges[i] as number) <= at) {
      return this.ranges[i + 1] as number;
    }
    return at;
  }

  /** Start of the hidden run that ends exactly at `at` (`at` when the unit before is visible). */
  runStartBefore(at: number): number {
    const i = this.indexAfter(at - 1);
    if (i < this.ranges.length && (this.ranges[i] as number) <= at - 1) {
      return this.ranges[i] as number;
    }
    return at;
  }

  /**
   * The offset `count` visible units before `at`: the start of the last
   * `count` visible units that end at `at` (hidden units among them skipped).
   */
  visibleBack(at: number, count: number): number {
    if (this.ranges.length === 0) return at - count;
    let p = at;
    // Step over the hidden run that ends at p, then onto the visible unit before it.
    for (let k = 0; k < count; k++) p = this.runStartBefore(p) - 1;
    return p;
  }

  /** Forgets ranges that end at or before `at`. */
  trimBefore(at: number): void {
    let k = 0;
    while (k < this.ranges.length && (this.ranges[k + 1] as number) <= at) k += 2;
    if (k > 0) {
      this.ranges.splice(0, k);
      this.hint = Math.max(0, this.hint - k);
    }
  }

  /** Index (even) of the first range whose end is after `at`. */
  private indexAfter(at: number): number {
    const r = this.ranges;
    const n = r.length;
    // Nearly always zero or one range: a scan beats a binary search.
    if (n <= 8) {
      let i = 0;
      while (i < n && (r[i + 1] as number) <= at) i += 2;
      return i;
    }
    // A 4096-unit chunk of Markdown holds ~100 ranges, and the scanner asks
    // near where it asked last (issue 19 §3: the binary search was ~5% of bulk
    // time): walk a few ranges from the last answer, then search. Any even
    // index up to n is a valid place to start; the walk stops only where
    // range i ends after `at` and range i - 2 does not.
    let i = Math.min(this.hint, n);
    for (let step = 0; step < HINT_WALK; step++) {
      if (i < n && (r[i + 1] as number) <= at) i += 2;
      else if (i > 0 && (r[i - 1] as number) > at) i -= 2;
      else {
        this.hint = i;
        return i;
      }
    }
    let lo = 0;
    let hi = n / 2;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((r[mid * 2 + 1] as number) <= at) lo = mid + 1;
      else hi = mid;
    }
    this.hint = lo * 2;
    return lo * 2;
  }
}
