/**
 * The streaming matcher: finds the matches of a set of rules in a text that
 * arrives one code unit at a time, and knows at every moment the earliest
 * position that could still be part of a match. Two modes (ScannerOptions):
 *
 * - `spans` (text-changing rules, DESIGN.md §3.10): every rule's longest
 *   accepted span at every start is reported as soon as it is decided,
 *   overlapping ones included; the owner merges them (redaction-spans.ts), so
 *   no redaction ends inside a secret another rule covers. With hidden ranges
 *   (rendered-view.ts) the rules read the text as a person sees it.
 * - `leftmost` (flag rules): scanning left to right, the next match is the one
 *   with the earliest start; among those, the longest; among equal spans, the
 *   rule listed first. After a match, scanning resumes at its end.
 *
 * Either way a function of the text alone, so chunking cannot change it
 * (DESIGN.md §3.1). A rule's candidate at a start is its longest accepted span
 * there; the rule's validator and allow-list then decide whether it counts (if
 * not, that start yields nothing for that rule).
 *
 * How: each rule has an anchored lazy DFA. A *thread* is one candidate start of
 * one rule with its DFA state. Keyword rules spawn threads only where the
 * Aho-Corasick prefilter sees a keyword end; other rules wherever their first
 * unit can occur after the unit before it (so a `\b[A-Za-z0-9]` rule starts at
 * word starts only, not at every letter). Two threads of one rule in the same
 * state have the same future, so the later one is dropped unless it already saw
 * an accept or the rule validates (then the starts differ in outcome). In
 * `leftmost` mode a candidate is committed once no live thread and no partial
 * keyword starts at or before it; then everything restarts at the match end and
 * the retained text after it is scanned again, which is bounded by the longest
 * rule (no O(n²) rescans). In `spans` mode nothing restarts.
 */
import { runToEnd } from './run-to-end.ts';
import type { Alphabet } from '../regex/alphabet.ts';
import type { StartDeferral } from '../rules/start-deferral.ts';
import { DEAD, type LazyDfa } from '../regex/lazy-dfa.ts';
import { UnitKind } from '../regex/nfa.ts';

/** Unit kinds (Edge, Word, LineTerminator, Other): the rows of the start tables. */
const KIND_COUNT = 4;
import type { InputText } from './input-text.ts';
import type { HiddenRanges } from './hidden-ranges.ts';
import { type RuleCost, type ScanProfile, profiledRules } from './scan-profile.ts';
import { type BigramHits, caselessIndex, quadSlot } from './bigram-hits.ts';
import { bigramByte, bigramFold, foldTable, unitsReachingBytes } from './bigram-fold.ts';
import { fourthUnitMisses, thirdUnitMisses } from './third-unit-filter.ts';
import { type SecondUnits, secondUnitsOf } from './second-unit-filter.ts';
import {
  type KeywordAutomaton,
  type KeywordHit,
  foldedUnitsSteps,
  unitsFoldingTo,
} from './keyword-automaton.ts';

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
  /**
   * Always-on rules: per alphabet class, the kinds of previous unit after which
   * a match can begin with that class (bit `1 << UnitKind`; 0: never). A `\b`
   * rule that starts on letters thus starts only at word starts.
   */
  readonly startClasses: Uint8Array | null;
  /**
   * Always-on rules whose every match contains a rarer unit (start-deferral.ts):
   * their starts wait for one and are then made backwards within the rule's
   * bound (`Scanner.backStart`). Absent or null: started wherever they can begin.
   */
  readonly deferral?: StartDeferral | null;
  /** Validator and allow-list; may throw (the guard fails closed). */
  /** `before`: up to 32 units before the candidate (input-text.ts `textBefore`). */
  readonly accept: (text: string, before?: string) => { ok: boolean; host?: string };
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
  /** The rule's automaton and length cap, read per unit (saves a lookup in the hot loop). */
  dfa: LazyDfa;
  maxLength: number;
  /** Hidden units passed over (a scanner with hidden ranges only): not counted in the length. */
  skipped: number;
}

/**
 * How far hidden units may stretch a match: its extent in the input is at most
 * this many times the rule's longest match (so per-stream state stays bounded,
 * DESIGN.md §3.9, however many invisible units an answer puts inside a key).
 */
export const HIDDEN_STRETCH = 4;

export interface ScannerOptions {
  /**
   * `leftmost` (flag rules): leftmost-longest, non-overlapping matches, each
   * committed to `onCommit`. `spans` (text-changing rules, DESIGN.md §3.10):
   * every rule's longest accepted match at every start is reported to `onSpan`
   * as soon as it is decided, overlapping ones included; the owner merges them.
   */
  mode: 'leftmost' | 'spans';
  onSpan?: (span: Candidate) => void;
  /**
   * Units a person never sees (rendered-view.ts): this scanner's rules read the
   * text as if they were not there. Null: every unit is read.
   */
  hidden?: HiddenRanges | null;
  /**
   * Per-rule cost counters (scan-profile.ts, `npm run bench -- --profile`).
   * Opt-in: without one the scanner runs its plain code; with one, the
   * constructor wraps the rules and `spawn` in counting forwarders.
   */
  profile?: ScanProfile | null;
}

/** Stand-ins for the keyword tables of a scanner without keywords (never read). */
const EMPTY_TABLE = new Uint8Array(0);
const EMPTY_SYMBOLS = new Uint16Array(0);
const EMPTY_GOTO = new Int32Array(0);
const EMPTY_MISSES = new Int32Array(0);

/**
 * Units the scanners of one keyword automaton read, in total over every guard, before the
 * automaton's third- and fourth-unit misses are built (`missesPending`). In total, not per
 * scanner: a page guards each message of a history load on a guard of its own (issue 19 §5,
 * 1,241 guards of ~1,700 units for a 5 MB ChatGPT conversation), and a per-scanner count never
 * reached it, so the whole load ran on tables that prune nothing.
 * A holder, not a constant, so tests can run the tables from the first unit.
 */
export const missesAfter = { units: 8192 };

/** Units read so far without misses, per automaton whose misses are not built yet. */
const unitsBeforeMisses = new WeakMap<KeywordAutomaton, number>();

/** Whether the automaton's third- and fourth-unit misses are built (and cached). */
export function unitMissesBuilt(keywords: KeywordAutomaton): boolean {
  return missCacheNow().has(keywords);
}

let zeroMisses: Int32Array | undefined;
/** Full-size miss tables that prune nothing (every entry 0: every third and fourth unit passes). */
function noMissesYet(): Int32Array {
  zeroMisses ??= new Int32Array(0x10000);
  return zeroMisses;
}

/**
 * How far a new thread is stepped ahead to see whether it dies without a match
 * (`Scanner.diesUnread`): most starts die within a few units, and a thread that
 * lives on costs these steps twice.
 */
const PEEK_UNITS = 8;

/** Ranges up to this many units are stepped without the skip (`skipQuiet`). */
const SHORT_SKIP_UNITS = 8;

/** Whether short ranges are stepped unit by unit; off only in tests, for the skip. */
export const shortSkip = { enabled: true };

/** Whether new threads look ahead (`diesUnread`); off only in tests, for the slow path. */
export const peekShortcut = { enabled: true };

/** Above this many live threads, merging uses a map instead of pairwise comparison. */
const PAIRWISE_MERGE_LIMIT = 12;

/**
 * Whether `deferredLiveFrom` first searches for all deferred rules' starts at once
 * (`quietProbes`). A holder so the differential test
 * (test/property/quiet-probes.test.ts) can run the slow path, each rule on its own.
 */
export const probeShortcut = { enabled: true };

/**
 * Units the cursor moves between two probes asked by `needFrom` (what to retain):
 * the same as the guard's trim stride (stream-guard.ts `trimStride`), which asks
 * for it no more often than that anyway.
 */
const NEED_PROBE_STRIDE = 32;

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
  /**
   * For each (kind of previous unit, alphabet class), at `kind * classCount +
   * class`: the always-on rules whose match can begin there. Only these are
   * spawned, so a `\b[A-Za-z0-9]…` rule costs nothing inside words.
   */
  private readonly startersAfter: (number[] | undefined)[];
  /** 1 where `startersAfter` is non-empty (the hot loop's test). */
  private readonly startsAfter: Uint8Array;
  /** 1 for each alphabet class that can begin some always-on rule after some unit. */
  private readonly startsAny: Uint8Array;
  /** The always-on rules whose starts wait for a trigger unit (start-deferral.ts), by slot. */
  private readonly deferred: readonly number[];
  /** Per rule index: its slot among the deferred rules, or -1. */
  private readonly slotOf: Int32Array;
  /** Per slot: the rule's start classes and how far back its live starts reach (read per push). */
  private readonly slotClasses: readonly Uint8Array[];
  private readonly slotReach: Int32Array;
  /**
   * Per slot: every start below this was started as a thread at a trigger (or
   * cannot reach one). Starts from here on have not been made.
   */
  private readonly backFrom: number[];
  /** Per slot: every start from `backFrom` up to this is known dead (found by the probe). */
  private readonly deadBelow: number[];
  /**
   * Per slot, for the hold: the earliest start not made yet whose thread would
   * still be live (`probeLive`), stepped up to `probeAt` (see `deferredLiveFrom`).
   */
  private readonly probes: Thread[];
  private readonly probeLive: Uint8Array;
  private readonly probeAt: number[];
  /** Per slot: the cursor of the last answer of `probeLiveStart` (-1: none), and the answer. */
  private readonly probeEnd: number[];
  private readonly probeResult: number[];
  /** The cursor at which `needFrom` last asked the probes. */
  private needProbedAt = -Infinity;
  /** Every deferred rule's start classes in one table (`quietProbes`); made on first use. */
  private anySlotClasses: Uint8Array | null = null;
  /** A thread not yet known to survive its first units (spawns allocate only survivors). */
  private readonly scratch: Thread;
  /** Index into the shared hits where the last skip stopped (skips mostly move forward). */
  private hitHint = 0;
  /**
   * Bigram prefilter for the hot path, indexed by `bigramByte` of two
   * consecutive units (p, p + 1): 1 where they could be the first two units of
   * a keyword, or where an always-on rule could begin at p + 1 after the unit
   * at p. A position whose bigram is 0 starts nothing there nor right after,
   * so quiet text is skipped with one table read per unit (the unit at the
   * skip's first position is checked on its own). False positives only cost a
   * closer look.
   */
  private readonly bigrams: Uint8Array | null;
  /** The fold `bigrams` and the misses were made with (bigram-fold.ts), read per unit. */
  private readonly fold = foldTable();
  /**
   * Per bigram, the third units after it that begin none of this scanner's
   * keywords (third-unit-filter.ts): a marked bigram followed by one is no hit.
   */
  private thirdMisses: Int32Array;
  /** The same for the fourth unit after a bigram and a third unit that passed (`quadSlot`). */
  private fourthMisses: Int32Array;
  /**
   * The automaton whose misses are not built yet: until this scanner has read
   * `missesAfter` units, it uses tables that prune nothing (the misses only prune, so
   * any moment of switching is sound). A page's warm-up builds them paced before the
   * first guard; a short scan (`echo hi | csg scan`) never pays their 25 ms.
   */
  private missesPending: KeywordAutomaton | null = null;
  /** The stream's shared hit list for the newest chunk, when the owner computes one. */
  private hits: BigramHits | null = null;
  /** This scanner's bit in the shared hits' marks. */
  private hitBit = 0;
  private readonly dedupe = new Map<number, number>();
  /** Per rule, its automaton once read (`spawn`). */
  private readonly dfas: (LazyDfa | undefined)[] = [];
  /** Per always-on rule, its second-unit rows (taken from the shared cache on first use). */
  private readonly secondUnits: (SecondUnits | undefined)[] = [];
  /** Verdicts of `partialKeywordLive`, shared by the streams of this keyword automaton. */
  private readonly partialLive: PartialMemo | null;
  private readonly spans: boolean;
  private readonly onSpan: (span: Candidate) => void;
  private readonly hidden: HiddenRanges | null;
  /** The keyword automaton's node inside the comment content being read (stepContent). */
  private innerNode = 0;
  private readonly rules: readonly ScanRule[];

  constructor(
    rules: readonly ScanRule[],
    private readonly keywords: KeywordAutomaton | null,
    private readonly alphabet: Alphabet,
    private readonly input: InputText,
    private readonly onCommit: CommitHandler,
    options: ScannerOptions = { mode: 'leftmost' },
  ) {
    if (options.profile) {
      const profiled = profiledRules(rules, options.profile);
      this.rules = profiled.rules;
      this.countSpawns(profiled.costs);
    } else {
      this.rules = rules;
    }
    this.spans = options.mode === 'spans';
    this.onSpan = options.onSpan ?? (() => undefined);
    this.hidden = options.hidden ?? null;
    const starts = cachedStartTables(rules, keywords, alphabet);
    this.startersAfter = starts.startersAfter;
    this.startsAny = starts.startsAny;
    this.startsAfter = starts.startsAfter;
    this.deferred = starts.deferred;
    const slots = starts.deferred.length;
    // Shared with every scanner of these rules (read only): see `StartTables`.
    this.slotOf = starts.slotOf;
    this.slotClasses = starts.slotClasses;
    this.slotReach = this.hidden === null ? starts.slotReach : starts.slotHiddenReach;
    this.backFrom = new Array<number>(slots).fill(0);
    this.deadBelow = new Array<number>(slots).fill(0);
    this.probeLive = new Uint8Array(slots);
    this.probes = starts.deferred.map((r) => ({
      rule: r,
      start: 0,
      state: DEAD,
      acceptEnd: -1,
      dfa: null as unknown as LazyDfa,
      maxLength: 0,
      skipped: 0,
    }));
    this.probeAt = new Array<number>(slots).fill(0);
    this.probeEnd = new Array<number>(slots).fill(-1);
    this.probeResult = new Array<number>(slots).fill(Infinity);
    this.scratch = {
      rule: 0,
      start: 0,
      state: DEAD,
      acceptEnd: -1,
      // Set at each spawn. Not a rule's DFA here: a loaded pack builds a keyword rule's
      // automaton on first use (load-compiled-pack.ts), which must happen in a scan,
      // where a malformed one fails the stream closed, not while the guard is made.
      dfa: null as unknown as LazyDfa,
      maxLength: 0,
      skipped: 0,
    };
    this.bigrams = keywords === null ? null : cachedBigrams(rules, keywords, alphabet);
    const misses = keywords === null ? undefined : missCacheNow().get(keywords);
    this.thirdMisses = misses?.third ?? EMPTY_MISSES;
    this.fourthMisses = misses?.fourth ?? EMPTY_MISSES;
    if (keywords !== null && misses === undefined) {
      this.missesPending = keywords;
      this.thirdMisses = this.fourthMisses = noMissesYet();
    }
    this.partialLive = keywords === null ? null : cachedPartialMemo(keywords);
  }

  /**
   * Back to the state of a new scanner over the same rules, for a new stream: a guard
   * reused for the next message of a history document (stream-guard.ts `reset`, issue
   * 19 §5) instead of one built per message. What depends on the rules only (start
   * tables, automata read, second units, the shared hits, misses built) is kept; every
   * field a scan moves is set as the constructor sets it. The owner resets `input`.
   * Test: test/property/reused-guard.test.ts.
   */
  reset(): void {
    this.cursor = 0;
    this.frontier = 0;
    this.threads = [];
    this.candidates = [];
    this.acNode = 0;
    this.stopped = false;
    this.backFrom.fill(0);
    this.deadBelow.fill(0);
    this.probeLive.fill(0);
    for (const probe of this.probes) {
      probe.start = 0;
      probe.state = DEAD;
      probe.acceptEnd = -1;
      probe.dfa = null as unknown as LazyDfa;
      probe.maxLength = 0;
      probe.skipped = 0;
    }
    const t = this.scratch;
    [t.rule, t.start, t.state, t.acceptEnd, t.maxLength, t.skipped] = [0, 0, DEAD, -1, 0, 0];
    t.dfa = null as unknown as LazyDfa;
    this.probeAt.fill(0);
    this.probeEnd.fill(-1);
    this.probeResult.fill(Infinity);
    this.needProbedAt = -Infinity;
    this.hitHint = 0;
    this.dedupe.clear();
    this.innerNode = 0;
  }

  /** This scanner's bigram prefilter table (null without keywords). */
  get bigramTable(): Uint8Array | null {
    return this.bigrams;
  }

  /** Use the owner's shared hit list, where `bit` marks this scanner's own hits. */
  useHits(hits: BigramHits, bit: number): void {
    this.hits = hits;
    this.hitBit = bit;
    hits.refine(bit, this.thirdMisses, this.fourthMisses);
  }

  /**
   * Counts the units this advance reads toward the automaton's `missesAfter`, and takes the
   * misses once they are built: by this scanner, or by another guard's since this one began.
   */
  private countTowardMisses(keywords: KeywordAutomaton, to: number): void {
    const read = (unitsBeforeMisses.get(keywords) ?? 0) + Math.max(0, to - this.cursor);
    if (read >= missesAfter.units || missCacheNow().has(keywords)) {
      unitsBeforeMisses.delete(keywords);
      this.buildMisses(keywords);
    } else {
      unitsBeforeMisses.set(keywords, read);
    }
  }

  /** Builds (or takes from the cache) the misses this scanner has gone without so far. */
  private buildMisses(keywords: KeywordAutomaton): void {
    this.missesPending = null;
    const misses = cachedMisses(this.rules, keywords, this.alphabet);
    this.thirdMisses = misses.third;
    this.fourthMisses = misses.fourth;
    this.hits?.refine(this.hitBit, misses.third, misses.fourth);
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
    if (this.missesPending !== null) this.countTowardMisses(this.missesPending, to);
    while (this.cursor < to && !this.stopped) {
      let limit = to;
      const hidden = this.hidden;
      if (hidden !== null && !hidden.isEmpty) {
        const h = hidden.union.nextFrom(this.cursor);
        if (h === this.cursor) {
          if (hidden.content.has(h)) this.stepContent(Math.min(to, hidden.content.runEnd(h)));
          else this.skipHidden(Math.min(to, hidden.all.runEnd(h)));
          continue;
        }
        limit = Math.min(to, h);
      }
      if (this.threads.length === 0 && this.candidates.length === 0) {
        // The bigram skip reads a unit's successor: stop short of a hidden unit, which the
        // keyword automaton does not read (a keyword may continue after it).
        this.skipQuiet(limit === to ? to : Math.max(this.cursor, limit - 1));
      }
      if (this.cursor >= limit) continue;
      this.stepRun(limit);
    }
  }

  /**
   * Passes over hidden units up to `to`: the live threads and the keyword
   * automaton read on after them as if they were not there.
   */
  private skipHidden(to: number): void {
    const n = to - this.cursor;
    const threads = this.threads;
    let kept = 0;
    for (let i = 0; i < threads.length; i++) {
      const t = threads[i] as Thread;
      t.skipped += n;
      if (to - t.start > t.maxLength * HIDDEN_STRETCH) {
        this.finishThread(t);
        continue;
      }
      threads[kept++] = t;
    }
    threads.length = kept;
    this.cursor = to;
    if (to > this.frontier) this.frontier = to;
    if (this.candidates.length > 0) this.tryCommit();
  }

  /**
   * Reads HTML comment content up to `to` (hidden-ranges.ts): threads that began
   * before the comment pass over it, as does the keyword automaton that reads
   * across it; a second automaton reads the content itself, so a secret written
   * inside a comment is found too. Comments are rare: one unit at a time.
   */
  private stepContent(to: number): void {
    const content = (this.hidden as HiddenRanges).content;
    const { classOf, classCount } = this.alphabet;
    const ac = this.keywords;
    const runStart = content.runStartBefore(content.runEnd(this.cursor));
    if (!content.has(this.cursor - 1)) this.innerNode = 0;
    const threads = this.threads;
    for (let p = this.cursor; p < to; p++) {
      const unit = this.input.unitAt(p);
      const g = classOf[unit] as number;
      let kept = 0;
      for (const t of threads) {
        if (t.start < runStart) {
          t.skipped++;
          if (p + 1 - t.start > t.maxLength * HIDDEN_STRETCH) this.finishThread(t);
          else threads[kept++] = t;
        } else if (this.advanceThread(t, p, g)) {
          threads[kept++] = t;
        }
      }
      threads.length = kept;
      if (ac !== null) {
        const sym = ac.symbolOf[unit] as number;
        const node = sym === 0 ? 0 : (ac.goto[this.innerNode * ac.symbols + sym] as number);
        this.innerNode = node;
        if (ac.hasOutput[node] === 1) {
          for (const hit of ac.outputs[node] as KeywordHit[]) {
            this.spawn(hit.rule, p + 1 - hit.length, p, true);
          }
        }
      }
      if (this.startsAny[g] === 1) {
        const prev = this.kindOfUnitBefore(p);
        const starters = this.startersAfter[prev * classCount + g];
        if (starters !== undefined) {
          for (const r of starters) {
            if (r < 0) this.backStart(~r, p);
            else this.spawn(r, p, p, true);
          }
        }
      }
      if (threads.length > 1) this.mergeThreads();
      this.cursor = p + 1;
      if (this.cursor > this.frontier) this.frontier = this.cursor;
      if (this.candidates.length > 0) {
        this.tryCommit();
        return;
      }
    }
  }

  /**
   * Steps unit by unit while something is live: until `to`, until a candidate
   * appears (it may commit, which moves the cursor back) or until nothing is
   * live (the quiet path takes over). The tables are read into locals once.
   */
  private stepRun(to: number): void {
    const text = this.input.retainedText;
    const base = this.input.retainedBase;
    const { classOf, kind, classCount } = this.alphabet;
    const startsAny = this.startsAny;
    const startersAfter = this.startersAfter;
    const ac = this.keywords;
    const symbolOf = ac?.symbolOf ?? EMPTY_SYMBOLS;
    const goto = ac?.goto ?? EMPTY_GOTO;
    const width = ac?.symbols ?? 0;
    const hasOutput = ac?.hasOutput ?? EMPTY_TABLE;
    const threads = this.threads;
    let p = this.cursor;
    // The kind of the unit before `p`, carried along instead of read back.
    let prevKind: number = this.kindBefore(p);
    while (p < to) {
      const unit = text.charCodeAt(p - base);
      const g = classOf[unit] as number;
      // 1. Advance live threads.
      const live = threads.length;
      if (live > 0) {
        let kept = 0;
        for (let i = 0; i < live; i++) {
          const t = threads[i] as Thread;
          if (this.advanceThread(t, p, g)) threads[kept++] = t;
        }
        while (threads.length > kept) threads.pop();
      }
      // 2. Spawn threads where keywords end and where always-on rules can begin.
      if (ac !== null) {
        const sym = symbolOf[unit] as number;
        const node = sym === 0 ? 0 : (goto[this.acNode * width + sym] as number);
        this.acNode = node;
        if (hasOutput[node] === 1) {
          for (const hit of ac.outputs[node] as KeywordHit[]) {
            this.spawn(hit.rule, this.unitsBack(p + 1, hit.length), p, false, false, to);
          }
        }
      }
      if (startsAny[g] === 1) {
        const starters = startersAfter[prevKind * classCount + g];
        if (starters !== undefined) {
          // The next unit, when pushed already (never a hidden one: `to` stops short of those).
          const next = p + 1 < to ? (classOf[text.charCodeAt(p + 1 - base)] as number) : -1;
          for (const r of starters) {
            if (r < 0) this.backStart(~r, p);
            else if (next < 0 || this.secondUnitCanFollow(r, g, next)) {
              this.spawn(r, p, p, false, false, to);
            }
          }
        }
      }
      // 3. Merge threads with the same future.
      if (threads.length > 1) this.mergeThreads();
      prevKind = kind[g] as number;
      p++;
      this.cursor = p;
      if (p > this.frontier) this.frontier = p;
      if (this.candidates.length > 0) {
        this.tryCommit();
        return;
      }
      if (threads.length === 0) return;
    }
  }

  /**
   * The hot path: with nothing live, only the keyword automaton moves. Runs
   * until a unit would complete a keyword or can start an always-on rule, and
   * leaves that unit to `step`.
   */
  private skipQuiet(to: number): void {
    const text = this.input.retainedText;
    const base = this.input.retainedBase;
    const { classOf, classCount, kind } = this.alphabet;
    const starts = this.startsAny;
    const startsAfter = this.startsAfter;
    const ac = this.keywords;
    let node = this.acNode;
    let p = this.cursor;
    if (p >= to) return;
    // The kind of the unit before `p`, carried along: advance() stops the skip short of any
    // hidden unit, so past the cursor the unit a person sees before `p` is the one at p - 1.
    // Read back only when first needed (-1 until then): most skips never need it.
    let prevKind = -1;
    if (ac === null) {
      while (p < to) {
        const g = classOf[text.charCodeAt(p - base)] as number;
        if (starts[g] === 1) {
          if (prevKind < 0) prevKind = this.kindBefore(p);
          if (startsAfter[prevKind * classCount + g] === 1) break;
        }
        prevKind = kind[g] as number;
        p++;
      }
    } else {
      const symbolOf = ac.symbolOf;
      const goto = ac.goto;
      const width = ac.symbols;
      const hasOutput = ac.hasOutput;
      const bigrams = this.bigrams as Uint8Array;
      const depth = ac.depth;
      const last = to - 1;
      const entry = p;
      // The first hit the latest skip found (or `last`): a skip from at or before it stops there.
      // A range of a few units (a token-sized push) is stepped unit by unit, as the skip's
      // reference does: there the skip has little to jump over and its set-up costs more
      // than the steps it saves (issue 19 §3).
      let found = to - p <= SHORT_SKIP_UNITS && shortSkip.enabled ? to : -1;
      while (p < to) {
        // Partial keywords at p begin at p - depth or later. Up to three units into one (and
        // past the entry, so the units before p are the visible ones before it), the skip
        // applies from there: a partial beginning at q continues only if q is a hit, that is
        // if its bigram is marked and the two units after it can go on to a keyword
        // (third-unit-filter.ts; the text's last bigrams are judged on the units there are).
        // Deeper partials step unit by unit. Issue 19 §3: with 1,540 keywords nearly every
        // letter begins one, and so do a quarter of English bigrams, but 1-3% of four units.
        const d = depth[node] as number;
        const back = d <= 3 && p - d >= entry ? d : -1;
        if (back >= 0 && p - back > found) {
          // The hits cover starts after their first unit: a start at `p` itself is checked here.
          const g0 = classOf[text.charCodeAt(p - base)] as number;
          if (starts[g0] === 1) {
            if (prevKind < 0) prevKind = this.kindBefore(p);
            if (startsAfter[prevKind * classCount + g0] === 1) break;
          }
          // Nothing partial past `from`: skip every position that begins nothing.
          const from = p;
          const s = p - back;
          let h = s;
          const hits = this.hits;
          if (hits !== null && s >= hits.from && s < hits.to && hits.to >= last) {
            // Jump between the shared hits; only this scanner's own hits stop it.
            const positions = hits.positions;
            const marks = hits.marks;
            const bit = this.hitBit;
            let k = this.hitIndex(hits, s);
            // A hit at last - 1 was judged on the unit at to + 1, which may be hidden from this
            // scanner; without it the skip lands at `last`, whose node steps last - 1 again.
            h = last;
            for (; k < hits.count; k++) {
              const at = positions[k] as number;
              if (at >= last) break;
              // This scanner's tables mark the position (set by the shared pass).
              if (((marks[k] as number) & bit) !== 0) {
                h = at;
                break;
              }
            }
            this.hitHint = k;
          } else if (s < last) {
            // Each unit is read once: the second half of one bigram, the first of the next.
            const fold = this.fold;
            let high = (fold[text.charCodeAt(s - base)] as number) << 8;
            while (h < last) {
              const low = fold[text.charCodeAt(h + 1 - base)] as number;
              const index = high | low;
              if (bigrams[index] === 1 && this.unitsAfterPass(index, h, to)) break;
              high = low << 8;
              h++;
            }
          }
          found = h;
          // A hit before `from`: that partial keyword may continue, so its node reads `p`.
          if (h > from) {
            // Every partial keyword beginning before h - 2 is dead by h + 1 (no hit); those
            // beginning at h - 2 and h - 1 may still be live there, so the node holds them
            // (stepped from the root, or from the node at `from` when that is later): from
            // h + 1 on the node is the one stepping every unit gives. These units complete no
            // keyword and start no always-on rule: either would have made a hit before h.
            let q = h - 2;
            if (q >= from) node = 0;
            else q = from;
            for (; q < h; q++) {
              const sym = symbolOf[text.charCodeAt(q - base)] as number;
              node = sym === 0 ? 0 : (goto[node * width + sym] as number);
            }
            p = h;
          }
          if (p >= to) break;
          if (p > from) prevKind = kind[classOf[text.charCodeAt(p - 1 - base)] as number] as number;
        }
        const unit = text.charCodeAt(p - base);
        const sym = symbolOf[unit] as number;
        const next = sym === 0 ? 0 : (goto[node * width + sym] as number);
        if (hasOutput[next] === 1) break;
        const g = classOf[unit] as number;
        if (starts[g] === 1) {
          if (prevKind < 0) prevKind = this.kindBefore(p);
          if (startsAfter[prevKind * classCount + g] === 1) break;
        }
        node = next;
        prevKind = kind[g] as number;
        p++;
      }
    }
    this.acNode = node;
    this.cursor = p;
    if (p > this.frontier) this.frontier = p;
  }

  /**
   * Whether the units after the marked bigram at `h` (read before `to`) can go on to one
   * of this scanner's keywords (third-unit-filter.ts); true where they are not there yet.
   */
  private unitsAfterPass(index: number, h: number, to: number): boolean {
    if (h + 2 >= to) return true;
    const miss = this.thirdMisses[caselessIndex(index)] as number;
    if (miss === 0) return true;
    const text = this.input.retainedText;
    const base = this.input.retainedBase;
    const fold = this.fold;
    const third = fold[text.charCodeAt(h + 2 - base)] as number;
    if ((miss & (1 << (third & 31))) !== 0) return false;
    if (h + 3 >= to) return true;
    const slot = quadSlot(index, third);
    const fourth = fold[text.charCodeAt(h + 3 - base)] as number;
    return ((this.fourthMisses[slot] as number) & (1 << (fourth & 31))) === 0;
  }

  /** Index of the first shared hit at or after `p`, starting from where the last skip stopped. */
  private hitIndex(hits: BigramHits, p: number): number {
    const positions = hits.positions;
    let k = this.hitHint;
    if (k > hits.count || (k > 0 && (positions[k - 1] as number) >= p)) {
      return hits.firstAtOrAfter(p);
    }
    for (let tries = 0; tries < 8; tries++, k++) {
      if (k >= hits.count || (positions[k] as number) >= p) return k;
    }
    return hits.firstAtOrAfter(p);
  }

  /** End of stream: accept at the edge, then commit everything that is left. */
  finish(): void {
    for (;;) {
      this.advance(this.input.end);
      if (this.stopped) return;
      const end = this.input.end;
      for (const t of this.threads) {
        const rule = this.rules[t.rule] as ScanRule;
        if (end - t.start - t.skipped <= rule.maxLength && rule.dfa.acceptsAtEnd(t.state)) {
          t.acceptEnd = end;
        }
        this.finishThread(t);
      }
      this.threads = [];
      this.acNode = 0;
      if (this.spans) return;
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
    const live =
      this.deferred.length === 0 ? this.liveFrom() : this.deferredLiveFrom(this.liveFrom());
    return this.livePartialKeywordStart(this.livePartialKeywordStart(live), true);
  }

  /** Whether the comment-content automaton is inside a run that more input may continue. */
  private get innerLive(): boolean {
    return this.innerNode !== 0 && this.hidden !== null && this.hidden.content.has(this.cursor - 1);
  }

  /** The hold from live threads and candidates only (partial keywords aside). */
  private liveFrom(): number {
    let from = this.cursor;
    if (this.threads.length > 0) from = Math.min(from, (this.threads[0] as Thread).start);
    for (const c of this.candidates) from = Math.min(from, c.start);
    return from;
  }

  /**
   * Earliest absolute offset of the input this scanner may still read. An owner
   * that just released up to its hold point passes that offset (it is at most
   * `holdFrom()`), so the hold is not computed twice per chunk.
   */
  needFrom(holdBound: number = this.liveFrom()): number {
    // A live partial keyword starts after `cursor - depth - 1`, so it never lowers the result:
    // the default bound leaves it out (it is the costly part of the hold).
    const ac = this.keywords;
    const depth = ac === null ? 0 : (ac.depth[this.acNode] as number);
    let need = Math.min(holdBound, this.unitsBack(this.cursor, depth + 1));
    if (ac !== null && this.innerLive) {
      need = Math.min(need, this.cursor - (ac.depth[this.innerNode] as number) - 1);
    }
    // A deferred rule's next trigger starts threads back to its earliest start that is not
    // made yet nor known dead (and reads the unit before it). The probe finds that start, so
    // only the text that could still begin a match is kept, not the rule's whole reach.
    // The probe moves the floor up; skipping it keeps more text, never less, so it is asked
    // once per NEED_PROBE_STRIDE units (issue 19 §3: a flag scanner's probe ran on every
    // token-sized push only to trim a few units sooner). The hold asks it every time.
    const probe = this.cursor - this.needProbedAt >= NEED_PROBE_STRIDE;
    if (probe) this.needProbedAt = this.cursor;
    for (let slot = 0; slot < this.deferred.length; slot++) {
      if (probe) this.probeLiveStart(slot, this.cursor);
      const floor = Math.max(
        this.backFrom[slot] as number,
        this.deadBelow[slot] as number,
        this.cursor - (this.slotReach[slot] as number),
      );
      need = Math.min(need, this.unitsBack(floor, 1));
    }
    return Math.max(0, need);
  }

  /** A thread of always-on rule `r` begun with class `g` outlives a next unit of class `next` (second-unit-filter.ts). */
  private secondUnitCanFollow(r: number, g: number, next: number): boolean {
    let units = this.secondUnits[r];
    if (units === undefined) {
      const rule = this.rules[r] as ScanRule;
      units = secondUnitsOf(rule.dfa, rule.maxLength, this.alphabet.classCount);
      this.secondUnits[r] = units;
    }
    return units.canFollow(g, next);
  }

  /** Steps one thread over the unit at `p`; false when the thread is finished. */
  private advanceThread(t: Thread, p: number, g: number): boolean {
    const dfa = t.dfa;
    const maxLength = t.maxLength;
    const packed = dfa.step(t.state, g);
    if ((packed & 1) === 1 && p > t.start) t.acceptEnd = p;
    const consumed = p + 1 - t.start - t.skipped;
    const next = packed >> 1;
    if (consumed > maxLength || next === DEAD || consumed + dfa.minDist(next) > maxLength) {
      this.finishThread(t);
      return false;
    }
    t.state = next;
    if (consumed === maxLength || dfa.cannotExtend(next)) {
      // No unit can extend the match: when acceptance does not wait on the next
      // unit (`\b`, `$`), the outcome is settled now rather than one unit later.
      const accepted = dfa.settledAcceptance(next);
      if (accepted >= 0) {
        if (accepted === 1) t.acceptEnd = p + 1;
        this.finishThread(t);
        return false;
      }
    }
    return true;
  }

  /**
   * Profiling only (scan-profile.ts): `spawn` is shadowed on this instance by
   * one that counts starts and surviving threads per rule, then spawns as ever.
   */
  private countSpawns(costs: readonly RuleCost[]): void {
    const spawn = Scanner.prototype.spawn;
    this.spawn = (r, start, last, inComment, stretch, peekTo) => {
      const cost = costs[r] as RuleCost;
      const before = this.threads.length;
      cost.spawns++;
      spawn.call(this, r, start, last, inComment, stretch, peekTo);
      if (this.threads.length > before) cost.threads++;
    };
  }

  /**
   * A thread for rule `r` starting at `start`, brought up to date through unit
   * `last`. It runs in the scratch thread first: most spawns end within their
   * first units, and only survivors are allocated.
   */
  private spawn(
    r: number,
    start: number,
    last: number,
    inComment = false,
    stretch = false,
    peekTo = 0,
  ): void {
    const rule = this.rules[r] as ScanRule;
    const t = this.scratch;
    // A compiled rule's `dfa` is a getter that builds the automaton on first use:
    // read it once per scanner, not twice per start (a tenth of `spawn`'s samples).
    let dfa = this.dfas[r];
    if (dfa === undefined) {
      dfa = rule.dfa;
      this.dfas[r] = dfa;
    }
    t.rule = r;
    t.start = start;
    t.dfa = dfa;
    t.maxLength = rule.maxLength;
    t.acceptEnd = -1;
    t.skipped = 0;
    t.state = dfa.start(inComment ? this.kindOfUnitBefore(start) : this.kindBefore(start));
    if (t.state === DEAD) return;
    const classOf = this.alphabet.classOf;
    for (let q = start; q <= last; q++) {
      if (this.hidden !== null && this.threadSkips(start, q)) {
        t.skipped++;
        // A start made late (backStart) dies where a thread made on time would have.
        if (stretch && q + 1 - start > t.maxLength * HIDDEN_STRETCH) return;
        continue;
      }
      if (!this.advanceThread(t, q, classOf[this.input.unitAt(q)] as number)) return;
    }
    if (last + 1 < peekTo && peekShortcut.enabled && this.diesUnread(t, last + 1, peekTo)) return;
    const kept: Thread = {
      rule: r,
      start,
      state: t.state,
      acceptEnd: t.acceptEnd,
      dfa: t.dfa,
      maxLength: t.maxLength,
      skipped: t.skipped,
    };
    // Keep threads ordered by start (spawns usually arrive in order).
    const threads = this.threads;
    let i = threads.length;
    if (i === 0 || (threads[i - 1] as Thread).start <= start) {
      threads.push(kept);
      return;
    }
    while (i > 0 && (threads[i - 1] as Thread).start > start) i--;
    threads.splice(i, 0, kept);
  }

  /**
   * Whether a new thread that has not accepted would finish without a match
   * within the next PEEK_UNITS units from `from` that this `stepRun` reads
   * anyway (below `to`, none of them hidden). Such a thread changes nothing: no
   * candidate, and it dies before the run returns, so neither the hold nor a
   * commit waiting on it sees it (a later thread merged into it would be in
   * the same state and die with it). Most starts made by common keywords
   * (`you`, `act`) and always-on rules end within a few units: not allocating
   * them lets the quiet skip resume at once (issue 19 §3).
   * Only `stepRun`'s own starts peek, never a deferred rule's caught-up ones
   * (`backStart`): a look-ahead there changed when a deferred match was
   * decided (docs/engine-speed.md, 2acb31a).
   */
  private diesUnread(t: Thread, from: number, to: number): boolean {
    if (t.acceptEnd >= 0) return false;
    const dfa = t.dfa;
    const maxLength = t.maxLength;
    const text = this.input.retainedText;
    const base = this.input.retainedBase;
    const classOf = this.alphabet.classOf;
    const end = Math.min(to, from + PEEK_UNITS);
    let state = t.state;
    for (let q = from; q < end; q++) {
      const packed = dfa.step(state, classOf[text.charCodeAt(q - base)] as number);
      // An accept before `q` (`\b`, `$`): the thread would match.
      if ((packed & 1) === 1 && q > t.start) return false;
      const consumed = q + 1 - t.start - t.skipped;
      const next = packed >> 1;
      if (consumed > maxLength || next === DEAD || consumed + dfa.minDist(next) > maxLength) {
        return true;
      }
      state = next;
      if (consumed === maxLength || dfa.cannotExtend(next)) {
        const accepted = dfa.settledAcceptance(next);
        if (accepted >= 0) return accepted === 0;
      }
    }
    return false;
  }

  /**
   * A deferred rule's trigger unit was read at `p` (start-deferral.ts): every
   * match of the rule contains one, so its starts waited for it. Now every start
   * not made yet that could still be live here gets its thread, caught up
   * through `p`, exactly as if it had been started on time. A later trigger
   * only makes the starts after this one; a match that ended before `p`
   * contained an earlier trigger, so its start was made then.
   */
  private backStart(r: number, p: number): void {
    const slot = this.slotOf[r] as number;
    const rule = this.rules[r] as ScanRule;
    const from = this.deferralFloor(slot, rule, p + 1);
    this.backFrom[slot] = p + 1;
    this.probeEnd[slot] = -1;
    const classes = rule.startClasses as Uint8Array;
    const classOf = this.alphabet.classOf;
    const text = this.input.retainedText;
    const base = this.input.retainedBase;
    for (let s = from; s <= p; s++) {
      // Most units begin nothing: one table read before the full check.
      if (classes[classOf[text.charCodeAt(s - base)] as number] === 0) continue;
      if (this.canStartAt(rule, s)) this.spawn(r, s, p, this.inContent(s), true);
    }
  }

  /**
   * How far before `end` a live thread of `rule` can have begun: its longest
   * match, and with hidden units up to HIDDEN_STRETCH times that in hidden units
   * before its last visible ones.
   */
  private reachOf(rule: ScanRule): number {
    return reachOf(rule, this.hidden !== null);
  }

  /**
   * The lowest start of deferred rule in `slot` whose thread can still be live
   * after reading the units before `end`: not one made already or found dead,
   * within the rule's reach, and after the last unit the rule never reads (a
   * thread that read it died). Hidden units are not taken as such a unit: some
   * threads pass over them.
   */
  private deferralFloor(slot: number, rule: ScanRule, end: number): number {
    const floor = Math.max(
      this.backFrom[slot] as number,
      this.deadBelow[slot] as number,
      end - this.reachOf(rule),
      this.input.start,
    );
    const breaker = (rule.deferral as StartDeferral).breaker;
    const classOf = this.alphabet.classOf;
    const text = this.input.retainedText;
    const base = this.input.retainedBase;
    const hidden = this.hidden !== null && !this.hidden.isEmpty ? this.hidden.union : null;
    for (let q = end - 1; q >= floor; q--) {
      if (breaker[classOf[text.charCodeAt(q - base)] as number] === 1) {
        if (hidden === null || !hidden.has(q)) return q + 1;
      }
    }
    return floor;
  }

  /** Whether the unit at `s` is comment content (read by threads that begin inside it). */
  private inContent(s: number): boolean {
    return this.hidden !== null && !this.hidden.isEmpty && this.hidden.content.has(s);
  }

  /** Whether the scan, reaching `s`, would start `rule` there (stepRun or stepContent). */
  private canStartAt(rule: ScanRule, s: number): boolean {
    const classes = rule.startClasses as Uint8Array;
    const kinds = classes[this.alphabet.classOf[this.input.unitAt(s)] as number] as number;
    if (kinds === 0) return false;
    let kind: UnitKind;
    const hidden = this.hidden;
    if (hidden === null || hidden.isEmpty) kind = this.kindBefore(s);
    else if (hidden.content.has(s)) kind = this.kindOfUnitBefore(s);
    else if (hidden.union.has(s)) return false;
    else kind = this.kindBefore(s);
    return (kinds & (1 << kind)) !== 0;
  }

  /**
   * The earlier of `bound` and the earliest start of a deferred rule, not made
   * yet, whose thread would still be live at the cursor: text the owner must
   * hold (a trigger may still come), and a start a flag candidate must wait
   * for. Incremental per rule: the probe's earliest live start is stepped on
   * from where it was, and starts found dead are never tried again (a thread
   * that died stays dead).
   */
  private deferredLiveFrom(bound: number): number {
    const end = this.cursor;
    if (probeShortcut.enabled && this.deferred.length > 1 && this.quietProbes(end)) return bound;
    for (let slot = 0; slot < this.deferred.length; slot++) {
      const start = this.probeLiveStart(slot, end);
      if (start < bound) bound = start;
    }
    return bound;
  }

  /**
   * Whether no deferred rule has a live start not made yet, found with one search
   * for all of them (issue 19 §3: on token-sized pushes each rule's probe searched
   * the same few new units for its own start classes). Only when no probe is live
   * nor answered at `end`: then each rule's answer is that of `findLiveStart`'s
   * quiet test, whose range lies inside the one searched here, and is recorded as
   * it would have been. False when a search finds a possible start: each rule is
   * asked on its own.
   */
  private quietProbes(end: number): boolean {
    const slots = this.deferred.length;
    let since = end;
    for (let slot = 0; slot < slots; slot++) {
      if (this.probeLive[slot] === 1 || this.probeEnd[slot] === end) return false;
      since = Math.min(
        since,
        Math.max(
          this.backFrom[slot] as number,
          this.deadBelow[slot] as number,
          end - (this.slotReach[slot] as number),
        ),
      );
    }
    let classes = this.anySlotClasses;
    if (classes === null) {
      const union = new Uint8Array((this.slotClasses[0] as Uint8Array).length);
      for (const own of this.slotClasses)
        own.forEach((k, g) => (union[g] = (union[g] as number) | k));
      classes = this.anySlotClasses = union;
    }
    if (this.firstPossibleStart(classes, Math.max(since, this.input.start), end) !== end) {
      return false;
    }
    for (let slot = 0; slot < slots; slot++) {
      this.deadBelow[slot] = Math.max(this.deadBelow[slot] as number, end);
      this.probeEnd[slot] = end;
      this.probeResult[slot] = Infinity;
    }
    return true;
  }

  /** See `deferredLiveFrom`: one rule's earliest live start not made yet, or Infinity. */
  private probeLiveStart(slot: number, end: number): number {
    // Asked twice per chunk (the hold, then what to retain): the answer stands until the
    // cursor moves or a trigger makes starts (both reset `probeEnd`).
    if (this.probeEnd[slot] === end) return this.probeResult[slot] as number;
    const result = this.findLiveStart(slot, end);
    this.probeEnd[slot] = end;
    this.probeResult[slot] = result;
    return result;
  }

  private findLiveStart(slot: number, end: number): number {
    const probe = this.probes[slot] as Thread;
    if (this.probeLive[slot] === 1) {
      if (
        probe.start >= (this.backFrom[slot] as number) &&
        this.stepProbe(probe, this.probeAt[slot] as number, end)
      ) {
        this.probeAt[slot] = end;
        return probe.start;
      }
      this.probeLive[slot] = 0;
      this.deadBelow[slot] = Math.max(this.deadBelow[slot] as number, probe.start + 1);
    }
    const classes = this.slotClasses[slot] as Uint8Array;
    const classOf = this.alphabet.classOf;
    const text = this.input.retainedText;
    const base = this.input.retainedBase;
    // Quiet text, nearly every push: no unit the search below could try begins the rule
    // (its range, from `deferralFloor`, lies inside this one), so its answer is known.
    const since = Math.max(
      this.backFrom[slot] as number,
      this.deadBelow[slot] as number,
      end - (this.slotReach[slot] as number),
      this.input.start,
    );
    const first = this.firstPossibleStart(classes, since, end);
    if (first === end) {
      this.deadBelow[slot] = Math.max(this.deadBelow[slot] as number, end);
      return Infinity;
    }
    const r = this.deferred[slot] as number;
    const rule = this.rules[r] as ScanRule;
    for (let s = this.deferralFloor(slot, rule, end); s < end; s++) {
      if (classes[classOf[text.charCodeAt(s - base)] as number] === 0) continue;
      if (!this.canStartAt(rule, s)) continue;
      probe.start = s;
      probe.dfa = rule.dfa;
      probe.maxLength = rule.maxLength;
      probe.skipped = 0;
      probe.acceptEnd = -1;
      probe.state = rule.dfa.start(
        this.inContent(s) ? this.kindOfUnitBefore(s) : this.kindBefore(s),
      );
      if (probe.state !== DEAD && this.stepProbe(probe, s, end)) {
        this.probeLive[slot] = 1;
        this.probeAt[slot] = end;
        this.deadBelow[slot] = s;
        return s;
      }
    }
    this.deadBelow[slot] = Math.max(this.deadBelow[slot] as number, end);
    return Infinity;
  }

  /**
   * The first offset in [from, end) where the scan could start a rule with
   * these start classes, or `end`: a bound below every start `canStartAt`
   * accepts there. Without hidden units the kind of the unit before is carried
   * along and checked too, so the units of a word that merely continues (a
   * probe's search would try each and find none: issue 19 §3, most searches on
   * 4-unit pushes) count as no start. With hidden units, by class alone.
   */
  private firstPossibleStart(classes: Uint8Array, from: number, end: number): number {
    const { classOf, kind } = this.alphabet;
    const text = this.input.retainedText;
    const base = this.input.retainedBase;
    let at = from;
    if (this.hidden !== null && !this.hidden.isEmpty) {
      while (at < end && classes[classOf[text.charCodeAt(at - base)] as number] === 0) at++;
      return at;
    }
    if (at >= end) return end;
    let before: number = this.kindBefore(at);
    while (at < end) {
      const g = classOf[text.charCodeAt(at - base)] as number;
      if (((classes[g] as number) & (1 << before)) !== 0) return at;
      before = kind[g] as number;
      at++;
    }
    return end;
  }

  /** Steps a probe over [from, end) as a thread would be; false once it is finished. */
  private stepProbe(t: Thread, from: number, end: number): boolean {
    const classOf = this.alphabet.classOf;
    const hidden = this.hidden !== null && !this.hidden.isEmpty;
    for (let q = from; q < end; q++) {
      if (hidden && this.threadSkips(t.start, q)) {
        t.skipped++;
        if (q + 1 - t.start > t.maxLength * HIDDEN_STRETCH) return false;
        continue;
      }
      const dfa = t.dfa;
      const maxLength = t.maxLength;
      const next = dfa.step(t.state, classOf[this.input.unitAt(q)] as number) >> 1;
      const consumed = q + 1 - t.start - t.skipped;
      if (consumed > maxLength || next === DEAD || consumed + dfa.minDist(next) > maxLength) {
        return false;
      }
      t.state = next;
      // Settled: finished. An accepting one would need a trigger no probe reads; kept live (fail safe).
      if ((consumed === maxLength || dfa.cannotExtend(next)) && dfa.settledAcceptance(next) === 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Drops a thread when an earlier one of the same rule is in the same state
   * and neither has accepted (same future, and the earlier start wins).
   */
  private mergeThreads(): void {
    const threads = this.threads;
    const n = threads.length;
    let kept = 0;
    if (n <= PAIRWISE_MERGE_LIMIT) {
      for (let i = 0; i < n; i++) {
        const t = threads[i] as Thread;
        if (this.mergeable(t) && this.hasTwinBefore(t, kept)) continue;
        threads[kept++] = t;
      }
    } else {
      const seen = this.dedupe;
      seen.clear();
      const ruleCount = this.rules.length;
      for (let i = 0; i < n; i++) {
        const t = threads[i] as Thread;
        if (this.mergeable(t)) {
          const key = t.state * ruleCount + t.rule;
          if (seen.has(key)) continue;
          seen.set(key, t.start);
        }
        threads[kept++] = t;
      }
    }
    if (kept !== n) threads.length = kept;
  }

  private mergeable(t: Thread): boolean {
    return t.acceptEnd < 0 && !(this.rules[t.rule] as ScanRule).distinctStarts;
  }

  /** Whether one of the first `count` threads is a mergeable twin of `t`. */
  private hasTwinBefore(t: Thread, count: number): boolean {
    const threads = this.threads;
    for (let j = 0; j < count; j++) {
      const u = threads[j] as Thread;
      if (u.rule === t.rule && u.state === t.state && u.acceptEnd < 0) return true;
    }
    return false;
  }

  private finishThread(t: Thread): void {
    if (t.acceptEnd <= t.start) return;
    const rule = this.rules[t.rule] as ScanRule;
    let verdict: { ok: boolean; host?: string };
    try {
      verdict = rule.accept(this.visibleText(t.start, t.acceptEnd), this.input.textBefore(t.start));
    } catch (error) {
      throw new RuleFailure(rule.id, t.acceptEnd, error);
    }
    if (!verdict.ok) return;
    const c: Candidate = { rule: t.rule, start: t.start, end: t.acceptEnd };
    if (verdict.host !== undefined) c.host = verdict.host;
    if (this.spans) this.onSpan(c);
    else this.candidates.push(c);
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
    // A start not made yet (a deferred rule's) may still begin a match at or before it.
    if (this.deferred.length > 0 && this.deferredLiveFrom(best.start + 1) <= best.start) return;
    if (this.keywords !== null && this.acNode !== 0) {
      const conservative = this.cursor - (this.keywords.depth[this.acNode] as number);
      if (
        conservative <= best.start &&
        this.livePartialKeywordStart(best.start + 1) <= best.start
      ) {
        return;
      }
    }
    this.commit(best);
  }

  private commit(best: Candidate): void {
    const action = this.onCommit(best);
    this.threads = [];
    this.candidates = [];
    this.acNode = 0;
    this.cursor = best.end;
    // Scanning resumes at the match end: no start before it, and every start after it is new.
    for (let slot = 0; slot < this.deferred.length; slot++) {
      this.backFrom[slot] = best.end;
      this.deadBelow[slot] = best.end;
      this.probeLive[slot] = 0;
      this.probeEnd[slot] = -1;
    }
    if (action === 'stop') this.stopped = true;
  }

  /**
   * The earlier of `bound` and the start of the longest partial keyword at the
   * cursor that its rule could still continue (a DFA state that is not dead and
   * can still accept in time). "…AKI" at the end is live; "xAKI" is not when
   * the rule wants `\bAKIA`. Partial keywords starting at or after `bound` are
   * not examined: with 4-unit chunks this runs per chunk, and replaying every
   * rule a common prefix extends was a fifth of the time.
   */
  private livePartialKeywordStart(bound: number, inner = false): number {
    const ac = this.keywords;
    if (ac === null) return bound;
    if (inner && !this.innerLive) return bound;
    const memo = this.partialLive as PartialMemo;
    // Down the failure chain the partial keywords get shorter: starts only increase.
    for (
      let node = inner ? this.innerNode : this.acNode;
      node !== 0;
      node = ac.fail[node] as number
    ) {
      const depth = ac.depth[node] as number;
      const start = inner ? this.cursor - depth : this.unitsBack(this.cursor, depth);
      if (start >= bound) return bound;
      // The verdict depends only on the node, the kind of unit before and the units themselves.
      const kind = inner ? this.kindOfUnitBefore(start) : this.kindBefore(start);
      const caseBits = inner ? -1 : this.asciiCaseBits(start);
      let live: boolean | undefined;
      if (caseBits >= 0) {
        // ASCII units are fixed by the node's folded string and which of them are capitals.
        const key = (node * KIND_COUNT + kind) * ASCII_KEY_SPAN + caseBits;
        live = memo.ascii.get(key);
        if (live === undefined) {
          live = this.partialKeywordLive(node, start, kind, false);
          if (memo.ascii.size >= PARTIAL_MEMO_LIMIT) memo.ascii.clear();
          memo.ascii.set(key, live);
        }
      } else {
        const key = `${node}|${kind}|${inner ? 1 : 0}|${this.input.slice(start, this.cursor)}`;
        live = memo.other.get(key);
        if (live === undefined) {
          live = this.partialKeywordLive(node, start, kind, inner);
          if (memo.other.size >= PARTIAL_MEMO_LIMIT) memo.other.clear();
          memo.other.set(key, live);
        }
      }
      if (live) return start;
    }
    return bound;
  }

  /**
   * One bit per unit from `start` to the cursor, 1 for a capital A-Z; -1 when
   * a unit is not ASCII or there are more than ASCII_KEY_BITS units.
   */
  private asciiCaseBits(start: number): number {
    if (this.cursor - start > ASCII_KEY_BITS) return -1;
    if (this.hidden !== null && this.hidden.union.nextFrom(start) < this.cursor) return -1;
    let bits = 0;
    for (let q = start; q < this.cursor; q++) {
      const unit = this.input.unitAt(q);
      if (unit >= 0x80) return -1;
      bits = bits * 2 + (unit >= 0x41 && unit <= 0x5a ? 1 : 0);
    }
    return bits;
  }

  /**
   * Whether a rule with a keyword extending `node` can continue the text from
   * `start` (`inner`: as comment content is read, hidden units and all).
   */
  private partialKeywordLive(node: number, start: number, kind: UnitKind, inner: boolean): boolean {
    const ac = this.keywords as KeywordAutomaton;
    const classOf = this.alphabet.classOf;
    for (const r of ac.extendingRules[node] ?? []) {
      const rule = this.rules[r] as ScanRule;
      let state = rule.dfa.start(kind);
      let read = 0;
      for (let q = start; q < this.cursor && state !== DEAD; q++) {
        if (!inner && this.hidden !== null && this.hidden.union.has(q)) continue;
        state = rule.dfa.step(state, classOf[this.input.unitAt(q)] as number) >> 1;
        read++;
      }
      if (state !== DEAD && read + rule.dfa.minDist(state) <= rule.maxLength) {
        return true;
      }
    }
    return false;
  }

  /** The offset `count` read units before `at` (hidden units are not read). */
  private unitsBack(at: number, count: number): number {
    return this.hidden === null ? at - count : this.hidden.union.visibleBack(at, count);
  }

  /** Whether a thread that began at `start` passes over the unit at `q` (hidden from it). */
  private threadSkips(start: number, q: number): boolean {
    const hidden = this.hidden as HiddenRanges;
    if (hidden.all.has(q)) return true;
    const content = hidden.content;
    if (!content.has(q)) return false;
    return start < content.runStartBefore(content.runEnd(q));
  }

  /** The text of [from, to) as this scanner's rules read it: hidden units left out. */
  visibleText(from: number, to: number): string {
    if (this.hidden === null || this.hidden.union.nextFrom(from) >= to) {
      return this.input.slice(from, to);
    }
    let out = '';
    for (let q = from; q < to; q++) {
      if (!this.threadSkips(from, q)) out += String.fromCharCode(this.input.unitAt(q));
    }
    return out;
  }

  /** Offsets of the units `visibleText(from, to)` is made of. */
  visibleOffsets(from: number, to: number): number[] {
    const at: number[] = [];
    for (let q = from; q < to; q++) {
      if (this.hidden === null || !this.threadSkips(from, q)) at.push(q);
    }
    return at;
  }

  /** The kind of the unit just before `at`, hidden or not (comment content is read as written). */
  private kindOfUnitBefore(at: number): UnitKind {
    const unit = this.input.unitBefore(at);
    return unit < 0
      ? UnitKind.Edge
      : (this.alphabet.kind[this.alphabet.classOf[unit] as number] as UnitKind);
  }

  private kindBefore(at: number): UnitKind {
    // What a person sees before `at`: the unit before any hidden run that ends there.
    const unit = this.input.unitBefore(
      this.hidden === null ? at : this.hidden.union.runStartBefore(at),
    );
    return unit < 0
      ? UnitKind.Edge
      : (this.alphabet.kind[this.alphabet.classOf[unit] as number] as UnitKind);
  }
}

/**
 * Partial-keyword verdicts per keyword automaton (one per rule subset of a
 * pack, so the rules and their automata are fixed), bounded: cleared when
 * full. All-ASCII partials (nearly all) are keyed by a number, others by their
 * text.
 */
interface PartialMemo {
  ascii: Map<number, boolean>;
  other: Map<string, boolean>;
}

const partialMemos = new WeakMap<KeywordAutomaton, PartialMemo>();
const PARTIAL_MEMO_LIMIT = 20_000;
/** Units covered by a numeric key; the key stays below 2^53 for up to 2^28 nodes. */
const ASCII_KEY_BITS = 20;
const ASCII_KEY_SPAN = 2 ** ASCII_KEY_BITS;

function cachedPartialMemo(keywords: KeywordAutomaton): PartialMemo {
  let memo = partialMemos.get(keywords);
  if (memo === undefined) {
    memo = { ascii: new Map(), other: new Map() };
    partialMemos.set(keywords, memo);
  }
  return memo;
}

/** Where the always-on rules of a rule subset begin (see `Scanner.startersAfter`). */
interface StartTables {
  /** Rule indexes; a deferred rule's trigger classes list it as `~index` (see `Scanner.backStart`). */
  startersAfter: (number[] | undefined)[];
  startsAfter: Uint8Array;
  startsAny: Uint8Array;
  /** The always-on rules whose starts wait for a trigger unit (start-deferral.ts). */
  deferred: number[];
  /** Per rule index: its slot among the deferred rules, or -1. */
  slotOf: Int32Array;
  /** Per slot: the rule's start classes, and its reach read as written and past hidden units. */
  slotClasses: readonly Uint8Array[];
  slotReach: Int32Array;
  slotHiddenReach: Int32Array;
  /** The alphabet the tables are for (checked when cached by the rule list). */
  alphabet: Alphabet;
}

/** How far back a live start of `rule` can lie: its longest match, stretched over hidden units. */
function reachOf(rule: ScanRule, hidden: boolean): number {
  return hidden ? rule.maxLength * (HIDDEN_STRETCH + 1) : rule.maxLength;
}

/**
 * Per keyword automaton: one per exact rule subset of a pack (keyword-automata.ts),
 * so a stream does not walk every rule's start classes again (a page or an adapter
 * makes a guard per channel and per JSON path). Never written to after it is built.
 */
const startTablesCache = new WeakMap<KeywordAutomaton, StartTables>();
/**
 * The same for rule subsets without keywords, by the rule list itself: a guard's
 * lists are shared by its pack and options (guard-plan.ts), so a page's many
 * guards build these once (issue 19 §5).
 */
const keywordlessTablesCache = new WeakMap<readonly ScanRule[], StartTables>();

function cachedStartTables(
  rules: readonly ScanRule[],
  keywords: KeywordAutomaton | null,
  alphabet: Alphabet,
): StartTables {
  if (keywords === null) {
    let tables = keywordlessTablesCache.get(rules);
    if (tables === undefined || tables.alphabet !== alphabet) {
      tables = startTablesOf(rules, alphabet);
      keywordlessTablesCache.set(rules, tables);
    }
    return tables;
  }
  let tables = startTablesCache.get(keywords);
  if (tables === undefined) {
    tables = startTablesOf(rules, alphabet);
    startTablesCache.set(keywords, tables);
  }
  return tables;
}

function startTablesOf(rules: readonly ScanRule[], alphabet: Alphabet): StartTables {
  const classCount = alphabet.classCount;
  const startersAfter = new Array<number[] | undefined>(KIND_COUNT * classCount);
  const startsAny = new Uint8Array(classCount);
  const deferred: number[] = [];
  rules.forEach((rule, index) => {
    const classes = rule.startClasses;
    if (rule.keyword || classes === null) return;
    const deferral = rule.deferral ?? null;
    if (deferral !== null) {
      // Read after any unit: the trigger is inside the match, not where it begins.
      deferred.push(index);
      for (let g = 0; g < classCount; g++) {
        if (deferral.trigger[g] === 0) continue;
        startsAny[g] = 1;
        for (let k = 0; k < KIND_COUNT; k++)
          (startersAfter[k * classCount + g] ??= []).push(~index);
      }
      return;
    }
    for (let g = 0; g < classCount; g++) {
      const kinds = classes[g] as number;
      if (kinds === 0) continue;
      startsAny[g] = 1;
      for (let k = 0; k < KIND_COUNT; k++) {
        if ((kinds & (1 << k)) !== 0) (startersAfter[k * classCount + g] ??= []).push(index);
      }
    }
  });
  const startsAfter = Uint8Array.from(startersAfter, (list) => (list === undefined ? 0 : 1));
  const slotOf = new Int32Array(rules.length).fill(-1);
  deferred.forEach((r, slot) => (slotOf[r] = slot));
  const deferredRules = deferred.map((r) => rules[r] as ScanRule);
  return {
    startersAfter,
    startsAfter,
    startsAny,
    deferred,
    slotOf,
    // Read when the start tables were built (above): no automaton is built here.
    slotClasses: deferredRules.map((rule) => rule.startClasses as Uint8Array),
    slotReach: Int32Array.from(deferredRules, (rule) => reachOf(rule, false)),
    slotHiddenReach: Int32Array.from(deferredRules, (rule) => reachOf(rule, true)),
    alphabet,
  };
}

/**
 * Per keyword automaton (one per rule subset of a pack), so streams do not rebuild it; one
 * cache per fold (bigram-fold.ts: the former fold is the differential's slow path).
 */
const bigramCaches = [
  new WeakMap<KeywordAutomaton, Uint8Array>(),
  new WeakMap<KeywordAutomaton, Uint8Array>(),
];
/** The bigram tables of the fold in use now. */
function bigramCacheNow(): WeakMap<KeywordAutomaton, Uint8Array> {
  return bigramCaches[bigramFold.enabled ? 1 : 0] as WeakMap<KeywordAutomaton, Uint8Array>;
}

/** The bigram table built for an automaton, if any (warm-tables.ts serialises it). */
export function cachedBigramTable(keywords: KeywordAutomaton): Uint8Array | undefined {
  return bigramCacheNow().get(keywords);
}

/** A table built elsewhere for this automaton (a loaded warm snapshot, load-warm-tables.ts). */
export function adoptBigramTable(keywords: KeywordAutomaton, table: Uint8Array): void {
  bigramCacheNow().set(keywords, table);
}

function cachedBigrams(
  rules: readonly ScanRule[],
  keywords: KeywordAutomaton,
  alphabet: Alphabet,
): Uint8Array {
  // Most guards find it built: no generator for them (issue 19 §5, a guard per channel).
  const cached = bigramCacheNow().get(keywords);
  if (cached !== undefined) return cached;
  runToEnd(warmBigramSteps(rules, keywords, alphabet));
  return bigramCacheNow().get(keywords) as Uint8Array;
}

/**
 * Builds and caches, in steps, the bigram table of a Scanner over `rules` with
 * this automaton, and its third- and fourth-unit misses: warm-up.ts runs it
 * paced, a Scanner's constructor in one go.
 */
export function* warmBigramSteps(
  rules: readonly ScanRule[],
  keywords: KeywordAutomaton | null,
  alphabet: Alphabet,
): Generator<void, void, void> {
  if (keywords === null) return;
  if (!bigramCacheNow().has(keywords)) {
    const startKinds = startKindsOf(rules, alphabet);
    yield;
    yield* foldedUnitsSteps();
    yield;
    const table = yield* startBigramsSteps(keywords, alphabet, startKinds);
    bigramCacheNow().set(keywords, table);
  }
  // The third- and fourth-unit checks, in a step of their own (a few ms on a page's main
  // thread for the largest pack's 1,540 keywords): a warm snapshot holds the bigram table only.
  if (!missCacheNow().has(keywords)) {
    yield;
    cachedMisses(rules, keywords, alphabet);
  }
}

/** Per class, the kinds of previous unit after which some always-on rule can begin with it. */
function startKindsOf(rules: readonly ScanRule[], alphabet: Alphabet): Uint8Array {
  const classCount = alphabet.classCount;
  const startKinds = new Uint8Array(classCount);
  for (const rule of rules) {
    const classes = rule.startClasses;
    if (rule.keyword || classes === null) continue;
    const deferral = rule.deferral ?? null;
    for (let g = 0; g < classCount; g++) {
      const kinds =
        deferral === null ? (classes[g] as number) : deferral.trigger[g] === 1 ? 0xf : 0;
      startKinds[g] = (startKinds[g] as number) | kinds;
    }
  }
  return startKinds;
}

/** Per byte (`bigramByte`): the kinds its units have, and the kinds after which they can start. */
interface ByteStartKinds {
  kindsOfByte: Uint8Array;
  startsAfterKindsOfByte: Uint8Array;
}

/**
 * Always-on starts by byte: the kinds each byte's units have, against the kinds each byte's
 * units can start after. By the alphabet's intervals (one class each, a few hundred of them),
 * not unit by unit: a few hundred units of each interval reach every byte its units stand
 * for (bigram-fold.ts `unitsReachingBytes`).
 */
function byteStartKinds(alphabet: Alphabet, startKinds: Uint8Array): ByteStartKinds {
  const kindsOfByte = new Uint8Array(0x100);
  const startsAfterKindsOfByte = new Uint8Array(0x100);
  const { intervalStart, classOf, kind } = alphabet;
  const fold = foldTable();
  for (let i = 0; i < intervalStart.length; i++) {
    const lo = intervalStart[i] as number;
    const hi = (intervalStart[i + 1] as number | undefined) ?? 0x10000;
    const g = classOf[lo] as number;
    const kindBit = 1 << (kind[g] as number);
    const startsAfter = startKinds[g] as number;
    unitsReachingBytes(lo, hi, (unit) => {
      const b = fold[unit] as number;
      kindsOfByte[b] = (kindsOfByte[b] as number) | kindBit;
      startsAfterKindsOfByte[b] = (startsAfterKindsOfByte[b] as number) | startsAfter;
    });
  }
  return { kindsOfByte, startsAfterKindsOfByte };
}

/** A scanner's third- and fourth-unit misses (third-unit-filter.ts). */
export interface UnitMisses {
  third: Int32Array;
  fourth: Int32Array;
}

/** Per keyword automaton (one per rule subset of a pack), like the bigram table. */
const missCaches = [
  new WeakMap<KeywordAutomaton, UnitMisses>(),
  new WeakMap<KeywordAutomaton, UnitMisses>(),
];
/** The misses of the fold in use now (bigram-fold.ts; like `bigramCacheNow`). */
function missCacheNow(): WeakMap<KeywordAutomaton, UnitMisses> {
  return missCaches[bigramFold.enabled ? 1 : 0] as WeakMap<KeywordAutomaton, UnitMisses>;
}

/**
 * Misses a loader of built tables offers for an automaton, per fold like `missCaches`:
 * decoded only when a scanner would otherwise build them (after `missesAfter` units, or
 * for a producer), so a page that never reads that far pays nothing for them at set-up
 * (issue 19 §4, §5: building them was 13–60 ms of a traced history load).
 */
const missOffers = [
  new WeakMap<KeywordAutomaton, () => UnitMisses>(),
  new WeakMap<KeywordAutomaton, () => UnitMisses>(),
];
function missOffersNow(): WeakMap<KeywordAutomaton, () => UnitMisses> {
  return missOffers[bigramFold.enabled ? 1 : 0] as WeakMap<KeywordAutomaton, () => UnitMisses>;
}

/** The offered misses of an automaton, decoded and cached, if any were offered. */
function takeOfferedMisses(keywords: KeywordAutomaton): UnitMisses | undefined {
  const decode = missOffersNow().get(keywords);
  if (decode === undefined) return undefined;
  missOffersNow().delete(keywords);
  const misses = decode();
  missCacheNow().set(keywords, misses);
  return misses;
}

/** The misses built or offered for an automaton, if any (for a producer of built tables). */
export function cachedUnitMisses(keywords: KeywordAutomaton): UnitMisses | undefined {
  return missCacheNow().get(keywords) ?? takeOfferedMisses(keywords);
}

/**
 * Misses built elsewhere for this automaton (a loader of built tables), which must be
 * what `cachedMisses` derives: the caller vouches for that, as for `adoptBigramTable`.
 * `decode` runs at most once, where the scanner would have built them, and must not
 * fail: the loader checks their layout before it offers them.
 */
export function offerUnitMisses(keywords: KeywordAutomaton, decode: () => UnitMisses): void {
  if (!missCacheNow().has(keywords)) missOffersNow().set(keywords, decode);
}

/**
 * The scanner's third-unit check (third-unit-filter.ts), derived on first use from the
 * automaton's keywords and the rules' start classes: a bigram at whose second unit an
 * always-on rule may begin stays a hit whatever follows (the bigram table marks it for that).
 */
function cachedMisses(
  rules: readonly ScanRule[],
  keywords: KeywordAutomaton,
  alphabet: Alphabet,
): UnitMisses {
  let misses = cachedUnitMisses(keywords);
  if (misses === undefined) {
    const { kindsOfByte, startsAfterKindsOfByte } = byteStartKinds(
      alphabet,
      startKindsOf(rules, alphabet),
    );
    // A caseless index stands for both cases of each byte (bigram-hits.ts `caselessIndex`).
    const startsIn = (a: number, b: number) =>
      ((kindsOfByte[a] as number) & (startsAfterKindsOfByte[b] as number)) !== 0;
    const third = thirdUnitMisses(keywords.keywords, (index) => {
      const a = index >> 8;
      const b = index & 0xff;
      return (
        startsIn(a, b) ||
        startsIn(a | 0x20, b) ||
        startsIn(a, b | 0x20) ||
        startsIn(a | 0x20, b | 0x20)
      );
    });
    misses = { third, fourth: fourthUnitMisses(keywords.keywords) };
    missCacheNow().set(keywords, misses);
  }
  return misses;
}

/**
 * The scanner's bigram table (see `Scanner.bigrams`). `startKinds[class]`: the
 * kinds of previous unit after which an always-on rule can begin with the class.
 */
function* startBigramsSteps(
  keywords: KeywordAutomaton,
  alphabet: Alphabet,
  startKinds: Uint8Array,
): Generator<void, Uint8Array, void> {
  const { kindsOfByte, startsAfterKindsOfByte } = byteStartKinds(alphabet, startKinds);
  yield;
  // Row a of the table depends on a's kinds only, and bytes have few distinct sets of kinds
  // (there are four kinds): one row per set, copied into place. A walk over all 65,536
  // bigrams here was most of building a table on the page's main thread.
  const table = new Uint8Array(0x10000);
  const rows = new Map<number, Uint8Array>();
  for (let a = 0; a < 0x100; a++) {
    const kinds = kindsOfByte[a] as number;
    if (kinds === 0) continue;
    let row = rows.get(kinds);
    if (row === undefined) {
      row = new Uint8Array(0x100);
      for (let b = 0; b < 0x100; b++) {
        if ((kinds & (startsAfterKindsOfByte[b] as number)) !== 0) row[b] = 1;
      }
      rows.set(kinds, row);
    }
    table.set(row, a << 8);
  }
  yield;
  for (const kw of keywords.keywords) {
    // Keywords are folded: every unit folding to a keyword's unit can stand for it.
    const firsts = unitsFoldingTo(kw.charCodeAt(0));
    // A one-unit keyword may be followed by anything.
    const seconds = kw.length > 1 ? unitsFoldingTo(kw.charCodeAt(1)) : null;
    for (const a of firsts) {
      const row = bigramByte(a) << 8;
      if (seconds === null) table.fill(1, row, row + 0x100);
      else for (const b of seconds) table[row | bigramByte(b)] = 1;
    }
  }
  return table;
}
