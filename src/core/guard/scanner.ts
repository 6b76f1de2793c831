/**
 * The streaming matcher: finds the leftmost-longest, non-overlapping matches of
 * a set of rules in a text that arrives one code unit at a time, and knows at
 * every moment the earliest position that could still be part of a match.
 *
 * Semantics (a function of the text alone, so chunking cannot change it,
 * DESIGN.md §3.1): scanning left to right, the next match is the one with the
 * earliest start; among those, the longest; among equal spans, the rule listed
 * first. A rule's candidate at a start is its longest accepted span there; the
 * rule's validator and allow-list then decide whether it counts (if not, that
 * start yields nothing for that rule). After a match, scanning resumes at its end.
 *
 * How: each rule has an anchored lazy DFA. A *thread* is one candidate start of
 * one rule with its DFA state. Keyword rules spawn threads only where the
 * Aho-Corasick prefilter sees a keyword end; other rules wherever their first
 * unit can occur. Two threads of one rule in the same state have the same
 * future, so the later one is dropped unless it already saw an accept or the
 * rule validates (then the starts differ in outcome). A candidate is committed
 * once no live thread and no partial keyword starts at or before it; then
 * everything restarts at the match end and the retained text after it is
 * scanned again, which is bounded by the longest rule (no O(n²) rescans).
 */
import type { Alphabet } from '../regex/alphabet.ts';
import { DEAD, type LazyDfa } from '../regex/lazy-dfa.ts';
import { UnitKind } from '../regex/nfa.ts';
import type { InputText } from './input-text.ts';
import type { BigramHits } from './bigram-hits.ts';
import type { KeywordAutomaton } from './keyword-automaton.ts';

export interface ScanRule {
  readonly id: string;
  readonly dfa: LazyDfa;
  /** Longest match in code units. */
  readonly maxLength: number;
  /** Started by the keyword automaton (else wherever its first unit can occur). */
  readonly keyword: boolean;
  /**
   * Threads with different starts are never merged: the rule validates (outcomes
   * differ per start) or its length cap cuts below the automaton's own bound
   * (then equal states do not mean equal futures).
   */
  readonly distinctStarts: boolean;
  /** Always-on rules: 1 for each alphabet class a match can begin with. */
  readonly startClasses: Uint8Array | null;
  /** Validator and allow-list; may throw (the guard fails closed). */
  readonly accept: (text: string) => { ok: boolean; host?: string };
}

export interface Candidate {
  /** Index into the scanner's rules. */
  rule: number;
  start: number;
  end: number;
  host?: string;
}

interface Thread {
  rule: number;
  start: number;
  state: number;
  /** End of the longest accepted span so far, or -1. */
  acceptEnd: number;
}

/** What the owner does with a committed match; `stop` ends scanning for good (block). */
export type CommitHandler = (match: Candidate) => 'continue' | 'stop';

export class RuleFailure extends Error {
  override name = 'RuleFailure';
  constructor(
    readonly rule: string,
    readonly at: number,
    cause: unknown,
  ) {
    super(`rule "${rule}" failed: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

export class Scanner {
  /** Next absolute offset to scan. */
  private cursor = 0;
  /** Highest offset ever scanned: the "determination point" of events (rescans stay below it). */
  private frontier = 0;
  private threads: Thread[] = [];
  private candidates: Candidate[] = [];
  private acNode = 0;
  private stopped = false;
  /** For each alphabet class, the always-on rules whose match can begin with it. */
  private readonly startersByClass: (number[] | undefined)[];
  /** 1 for each alphabet class that can begin some always-on rule (the hot loop's test). */
  private readonly startsAny: Uint8Array;
  /**
   * Bigram prefilter for the hot path: 1 where two consecutive units (low
   * bytes) could be the first two units of a keyword, or the first could begin
   * an always-on rule. A position whose bigram is 0 starts nothing, so quiet
   * text is skipped with one table read per unit. False positives only cost a
   * closer look.
   */
  private readonly bigrams: Uint8Array | null;
  /** The stream's shared hit list for the newest chunk, when the owner computes one. */
  private hits: BigramHits | null = null;
  private readonly dedupe = new Map<number, number>();

  constructor(
    private readonly rules: readonly ScanRule[],
    private readonly keywords: KeywordAutomaton | null,
    private readonly alphabet: Alphabet,
    private readonly input: InputText,
    private readonly onCommit: CommitHandler,
  ) {
    this.startersByClass = new Array<number[] | undefined>(alphabet.classCount);
    rules.forEach((rule, index) => {
      const classes = rule.startClasses;
      if (rule.keyword || classes === null) return;
      for (let g = 0; g < alphabet.classCount; g++) {
        if (classes[g] === 1) (this.startersByClass[g] ??= []).push(index);
      }
    });
    this.startsAny = Uint8Array.from(this.startersByClass, (list) => (list === undefined ? 0 : 1));
    this.bigrams = keywords === null ? null : cachedBigrams(keywords, alphabet, this.startsAny);
  }

  /** This scanner's bigram prefilter table (null without keywords). */
  get bigramTable(): Uint8Array | null {
    return this.bigrams;
  }

  /** Use the owner's shared hit list (a superset of this scanner's own hits). */
  useHits(hits: BigramHits): void {
    this.hits = hits;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** The offset at which the latest events were determined. */
  get determinedAt(): number {
    return this.frontier;
  }

  /** Scans the input up to absolute offset `to`. */
  advance(to: number): void {
    while (this.cursor < to && !this.stopped) {
      if (this.threads.length === 0 && this.candidates.length === 0) this.skipQuiet(to);
      if (this.cursor >= to) break;
      const p = this.cursor;
      this.step(p);
      this.cursor = p + 1;
      if (this.cursor > this.frontier) this.frontier = this.cursor;
      if (this.candidates.length > 0) this.tryCommit();
    }
  }

  /**
   * The hot path: with nothing live, only the keyword automaton moves. Runs
   * until a unit would complete a keyword or can start an always-on rule, and
   * leaves that unit to `step`.
   */
  private skipQuiet(to: number): void {
    const { text, base } = this.input.view();
    const classOf = this.alphabet.classOf;
    const starts = this.startsAny;
    const ac = this.keywords;
    let node = this.acNode;
    let p = this.cursor;
    if (ac === null) {
      while (p < to && starts[classOf[text.charCodeAt(p - base)] as number] === 0) p++;
    } else {
      const symbolOf = ac.symbolOf;
      const goto = ac.goto;
      const width = ac.symbols;
      const hasOutput = ac.hasOutput;
      const bigrams = this.bigrams as Uint8Array;
      while (p < to) {
        if (node === 0) {
          // Nothing partial: skip every position whose bigram starts nothing.
          const last = to - 1;
          const hits = this.hits;
          if (hits !== null && p >= hits.from && p < hits.to && hits.to >= last) {
            // Jump between the shared hits; only this scanner's own bigrams stop it.
            const positions = hits.positions;
            let k = hits.firstAtOrAfter(p);
            p = last;
            for (; k < hits.count; k++) {
              const h = positions[k] as number;
              if (h >= last) break;
              const i = h - base;
              if (
                bigrams[((text.charCodeAt(i) & 0xff) << 8) | (text.charCodeAt(i + 1) & 0xff)] === 1
              ) {
                p = h;
                break;
              }
            }
          } else if (p < last) {
            // Each unit is read once: the second half of one bigram, the first of the next.
            let high = (text.charCodeAt(p - base) & 0xff) << 8;
            while (p < last) {
              const low = text.charCodeAt(p + 1 - base) & 0xff;
              if (bigrams[high | low] === 1) break;
              high = low << 8;
              p++;
            }
          }
          if (p >= to) break;
        }
        const unit = text.charCodeAt(p - base);
        const sym = symbolOf[unit] as number;
        const next = sym === 0 ? 0 : (goto[node * width + sym] as number);
        if (hasOutput[next] === 1 || starts[classOf[unit] as number] === 1) break;
        node = next;
        p++;
      }
    }
    this.acNode = node;
    this.cursor = p;
    if (p > this.frontier) this.frontier = p;
  }

  /** End of stream: accept at the edge, then commit everything that is left. */
  finish(): void {
    for (;;) {
      this.advance(this.input.end);
      if (this.stopped) return;
      const end = this.input.end;
      for (const t of this.threads) {
        const rule = this.rules[t.rule] as ScanRule;
        if (end - t.start <= rule.maxLength && rule.dfa.acceptsAtEnd(t.state)) t.acceptEnd = end;
        this.finishThread(t);
      }
      this.threads = [];
      this.acNode = 0;
      const best = this.best();
      if (best === undefined) return;
      this.commit(best);
    }
  }

  /**
   * Earliest absolute offset that may still become part of a match: what an
   * owner that changes text must hold back from there on (the minimal hold).
   */
  holdFrom(): number {
    let from = this.cursor;
    if (this.threads.length > 0) from = Math.min(from, (this.threads[0] as Thread).start);
    for (const c of this.candidates) from = Math.min(from, c.start);
    return Math.min(from, this.livePartialKeywordStart());
  }

  /**
   * Earliest absolute offset of the input this scanner may still read. An owner
   * that just released up to its hold point passes that offset (it is at most
   * `holdFrom()`), so the hold is not computed twice per chunk.
   */
  needFrom(holdBound: number = this.holdFrom()): number {
    const depth = this.keywords === null ? 0 : (this.keywords.depth[this.acNode] as number);
    return Math.max(0, Math.min(holdBound, this.cursor - depth - 1));
  }

  private step(p: number): void {
    const unit = this.input.unitAt(p);
    const g = this.alphabet.classOf[unit] as number;
    // 1. Advance live threads.
    const threads = this.threads;
    const live = threads.length;
    if (live > 0) {
      let kept = 0;
      for (let i = 0; i < live; i++) {
        const t = threads[i] as Thread;
        if (this.advanceThread(t, p, g)) threads[kept++] = t;
      }
      if (kept !== live) threads.length = kept;
    }
    // 2. Spawn threads where keywords end and where always-on rules can begin.
    const ac = this.keywords;
    if (ac !== null) {
      this.acNode = ac.next(this.acNode, unit);
      const hits = ac.outputs[this.acNode];
      if (hits !== undefined) {
        for (const hit of hits) this.spawn(hit.rule, p + 1 - hit.length, p);
      }
    }
    const starters = this.startersByClass[g];
    if (starters !== undefined) for (const r of starters) this.spawn(r, p, p);
    // 3. Merge threads with the same future.
    if (this.threads.length > 1) this.mergeThreads();
  }

  /** Steps one thread over the unit at `p`; false when the thread is finished. */
  private advanceThread(t: Thread, p: number, g: number): boolean {
    const rule = this.rules[t.rule] as ScanRule;
    const packed = rule.dfa.step(t.state, g);
    if ((packed & 1) === 1 && p > t.start) t.acceptEnd = p;
    const consumed = p + 1 - t.start;
    const next = packed >> 1;
    if (
      consumed > rule.maxLength ||
      next === DEAD ||
      consumed + (rule.dfa.minDist[next] as number) > rule.maxLength
    ) {
      this.finishThread(t);
      return false;
    }
    t.state = next;
    if (consumed === rule.maxLength || rule.dfa.cannotExtend(next)) {
      // No unit can extend the match: when acceptance does not wait on the next
      // unit (`\b`, `$`), the outcome is settled now rather than one unit later.
      const accepted = rule.dfa.settledAcceptance(next);
      if (accepted >= 0) {
        if (accepted === 1) t.acceptEnd = p + 1;
        this.finishThread(t);
        return false;
      }
    }
    return true;
  }

  /** A thread for rule `r` starting at `start`, brought up to date through unit `last`. */
  private spawn(r: number, start: number, last: number): void {
    const rule = this.rules[r] as ScanRule;
    const t: Thread = {
      rule: r,
      start,
      state: rule.dfa.start(this.kindBefore(start)),
      acceptEnd: -1,
    };
    if (t.state === DEAD) return;
    const classOf = this.alphabet.classOf;
    for (let q = start; q <= last; q++) {
      if (!this.advanceThread(t, q, classOf[this.input.unitAt(q)] as number)) return;
    }
    // Keep threads ordered by start (spawns usually arrive in order).
    let i = this.threads.length;
    while (i > 0 && (this.threads[i - 1] as Thread).start > start) i--;
    this.threads.splice(i, 0, t);
  }

  private mergeThreads(): void {
    const seen = this.dedupe;
    seen.clear();
    let kept = 0;
    for (const t of this.threads) {
      const rule = this.rules[t.rule] as ScanRule;
      if (!rule.distinctStarts && t.acceptEnd < 0) {
        const key = t.state * 4096 + t.rule;
        if (seen.has(key)) continue;
        seen.set(key, t.start);
      }
      this.threads[kept++] = t;
    }
    if (kept !== this.threads.length) this.threads.length = kept;
  }

  private finishThread(t: Thread): void {
    if (t.acceptEnd <= t.start) return;
    const rule = this.rules[t.rule] as ScanRule;
    let verdict: { ok: boolean; host?: string };
    try {
      verdict = rule.accept(this.input.slice(t.start, t.acceptEnd));
    } catch (error) {
      throw new RuleFailure(rule.id, t.acceptEnd, error);
    }
    if (!verdict.ok) return;
    const c: Candidate = { rule: t.rule, start: t.start, end: t.acceptEnd };
    if (verdict.host !== undefined) c.host = verdict.host;
    this.candidates.push(c);
  }

  private best(): Candidate | undefined {
    let best: Candidate | undefined;
    for (const c of this.candidates) {
      if (
        best === undefined ||
        c.start < best.start ||
        (c.start === best.start && (c.end > best.end || (c.end === best.end && c.rule < best.rule)))
      ) {
        best = c;
      }
    }
    return best;
  }

  private tryCommit(): void {
    const best = this.best();
    if (best === undefined) return;
    if (this.threads.length > 0 && (this.threads[0] as Thread).start <= best.start) return;
    if (this.keywords !== null && this.acNode !== 0) {
      const conservative = this.cursor - (this.keywords.depth[this.acNode] as number);
      if (conservative <= best.start && this.livePartialKeywordStart() <= best.start) return;
    }
    this.commit(best);
  }

  private commit(best: Candidate): void {
    const action = this.onCommit(best);
    this.threads = [];
    this.candidates = [];
    this.acNode = 0;
    this.cursor = best.end;
    if (action === 'stop') this.stopped = true;
  }

  /**
   * Start of the longest partial keyword at the cursor that its rule could still
   * continue (a DFA state that is not dead and can still accept in time), or the
   * cursor when there is none. "…AKI" at the end is live; "xAKI" is not when the
   * rule wants `\bAKIA`.
   */
  private livePartialKeywordStart(): number {
    const ac = this.keywords;
    if (ac === null) return this.cursor;
    const classOf = this.alphabet.classOf;
    for (let node = this.acNode; node !== 0; node = ac.fail[node] as number) {
      const start = this.cursor - (ac.depth[node] as number);
      for (const r of ac.extendingRules[node] ?? []) {
        const rule = this.rules[r] as ScanRule;
        let state = rule.dfa.start(this.kindBefore(start));
        for (let q = start; q < this.cursor && state !== DEAD; q++) {
          state = rule.dfa.step(state, classOf[this.input.unitAt(q)] as number) >> 1;
        }
        if (
          state !== DEAD &&
          this.cursor - start + (rule.dfa.minDist[state] as number) <= rule.maxLength
        ) {
          return start;
        }
      }
    }
    return this.cursor;
  }

  private kindBefore(at: number): UnitKind {
    const unit = this.input.unitBefore(at);
    return unit < 0
      ? UnitKind.Edge
      : (this.alphabet.kind[this.alphabet.classOf[unit] as number] as UnitKind);
  }
}

/** Per keyword automaton (one per rule subset of a pack), so streams do not rebuild it. */
const bigramCache = new WeakMap<KeywordAutomaton, Uint8Array>();

function cachedBigrams(
  keywords: KeywordAutomaton,
  alphabet: Alphabet,
  startsAny: Uint8Array,
): Uint8Array {
  let table = bigramCache.get(keywords);
  if (table === undefined) {
    table = startBigrams(keywords, alphabet, startsAny);
    bigramCache.set(keywords, table);
  }
  return table;
}

function startBigrams(
  keywords: KeywordAutomaton,
  alphabet: Alphabet,
  startsAny: Uint8Array,
): Uint8Array {
  const table = new Uint8Array(0x10000);
  const preimage = keywords.foldPreimage();
  for (const kw of keywords.keywords) {
    const firsts = preimage.get(kw.charCodeAt(0)) ?? [];
    // A one-unit keyword may be followed by anything.
    const seconds = kw.length > 1 ? (preimage.get(kw.charCodeAt(1)) ?? []) : null;
    for (const a of firsts) {
      if (seconds === null) table.fill(1, (a & 0xff) << 8, ((a & 0xff) << 8) + 0x100);
      else for (const b of seconds) table[((a & 0xff) << 8) | (b & 0xff)] = 1;
    }
  }
  for (let unit = 0; unit < 0x10000; unit++) {
    if (startsAny[alphabet.classOf[unit] as number] === 1) {
      table.fill(1, (unit & 0xff) << 8, ((unit & 0xff) << 8) + 0x100);
    }
  }
  return table;
}
