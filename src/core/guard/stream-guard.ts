/**
 * The streaming chunk guard (seed 002): a pure, synchronous core. `push(text)`
 * returns what is safe to release now and the events it produced; `end()`
 * flushes. No timers, no DOM: time never releases held text (DESIGN.md §3.4).
 *
 * Two scanners read the same input. Rules that change text (redact, block)
 * share one scanner whose earliest live start bounds what may be released:
 * that is the only reason text is ever held. Flag rules run in a second
 * scanner that never holds anything; their events may name text already
 * released (the offsets still say where).
 *
 * Events are ordered by the input offset at which they were determined, flag
 * events before text-changing ones at the same offset, so the event list is the
 * same however the text was chunked (DESIGN.md §3.1).
 */
import type { PolicyMode } from './kind-policy.ts';
import type { CompiledPack, CompiledRule } from '../rules/compile-pack.ts';
import type { RuleAction, RuleKind } from '../rules/rule.ts';
import type { ConversationSession } from './conversation-session.ts';
import type {
  GuardCounters,
  GuardEvent,
  GuardResult,
  MatchEvent,
  ReleasePiece,
} from './guard-event.ts';
import { BigramHits } from './bigram-hits.ts';
import { InputText, isHighSurrogate } from './input-text.ts';
import { type Cluster, RedactionSpans, type Span, primaryOf } from './redaction-spans.ts';
import { RenderedView } from './rendered-view.ts';
import { continuationOf, valueRange } from './rule-value.ts';
import { type Candidate, RuleFailure, Scanner } from './scanner.ts';
import type { ScanProfile } from './scan-profile.ts';
import { SEEN_KINDS } from './active-rules.ts';
import { type ActiveAction, type GuardPlan, type PlannedRules, guardPlan } from './guard-plan.ts';

export { activeRules, scannerRuleSets, type ScannerRuleSets } from './active-rules.ts';

export interface GuardOptions {
  /** Conversation state shared by the turns of one conversation (seed 002 §9). */
  session?: ConversationSession;
  /** Action per kind, combined with the rules' own (the person's settings; kind-policy.ts). */
  policy?: Partial<Record<RuleKind, RuleAction>>;
  /** How `policy` combines with rule actions: a floor (answers, default) or as set (on send). */
  policyMode?: PolicyMode;
  /** Clock for the `timeMs` counter only; never consulted for a verdict. */
  now?: () => number;
  /**
   * Attach the matched input text to every match event (`MatchEvent.matched`),
   * so the extension can compute the audit digest without keeping the stream.
   * The text is still retained when the match commits (a live candidate's start
   * is never trimmed), so this costs one slice per event and no extra memory.
   */
  attachMatchedText?: boolean;
  /**
   * Scan with the rules without keywords only. For a whole text in which no keyword
   * of an active rule occurs (keyword-presence.ts) this finds exactly what the full
   * set finds (a keyword rule's match starts with one of its keywords), without the
   * keyword automata a cold pack would build first (a page's first request, issue 4).
   */
  alwaysOnOnly?: boolean;
  /**
   * Per-rule cost counters, filled by every scanner of this guard (thread starts,
   * DFA steps, validator calls; scan-profile.ts, `npm run bench -- --profile`).
   * Opt-in and off by default: without it the scanners run their plain code.
   */
  profile?: ScanProfile;
}

interface PendingEvent {
  event: GuardEvent;
  /** View offset (code units) at which the event was determined. */
  at: number;
  rank: number;
  seq: number;
}

/** A committed redaction whose value still continues (rule-value.ts): swallowed unit by unit. */
interface Continuation {
  /** View offset of the next unit to decide. */
  at: number;
  continues: (unit: number) => boolean;
  /** Hidden units inside the run are passed over (a rule that reads the text as seen). */
  seen: boolean;
  event: MatchEvent;
}

export class StreamGuard {
  /** The input as pushed: what is released, and what event offsets count in (no validator reads it). */
  private input = new InputText(true, 1);
  /** The input as a person sees it: what the scanners read (rendered-view.ts). */
  private readonly view = new RenderedView();
  /** Each active rule's action: shared by the guards of this pack and options (guard-plan.ts). */
  private readonly actions: ReadonlyMap<CompiledRule, ActiveAction>;
  private readonly seenScanner: Scanner | null;
  private readonly writtenScanner: Scanner | null;
  private readonly flagging: Scanner | null;
  /** The scanners that exist, flagging first; and the text-changing ones (read per chunk). */
  private readonly scanners: readonly Scanner[];
  private readonly spanScanners: readonly Scanner[];
  private readonly redactions: RedactionSpans;
  private continuation: Continuation | null = null;
  private readonly packLabel: string;
  private readonly hits: BigramHits | null;
  private raised = new Map<string, number>();
  private emitPos = 0;
  /** Output of this push: its first piece, then the rest once there is more than one. */
  private outFirst = '';
  private outMore: string[] | null = null;
  private outCount = 0;
  /** Pieces released in this push; null until the first (most pushes release one or none). */
  private pieces: ReleasePiece[] | null = null;
  private pending: PendingEvent[] = [];
  private seq = 0;
  private blocked = false;
  private ended = false;
  private stats: GuardCounters = newCounters();
  /** What the scanners were made from: `restart` reuses them only while both still hold. */
  private readonly plan: GuardPlan;
  private readonly profile: ScanProfile | null;

  constructor(
    readonly pack: CompiledPack,
    private readonly options: GuardOptions = {},
  ) {
    // What depends on the pack and options only is made once and shared (issue 19 §5).
    const plan = guardPlan(pack, options);
    this.plan = plan;
    this.profile = options.profile ?? null;
    this.packLabel = plan.packLabel;
    this.actions = plan.actions;
    this.seenScanner = this.spanScanner(plan.seen, true);
    this.writtenScanner = this.spanScanner(plan.written, false);
    const flagging = plan.flagging;
    this.flagging =
      flagging === null
        ? null
        : new Scanner(
            flagging.rules,
            flagging.keywords,
            pack.alphabet,
            this.view.text,
            (match) => this.commitFlag(flagging.rules, match),
            { mode: 'leftmost', profile: options.profile ?? null },
          );
    this.redactions = new RedactionSpans(plan.reach);
    this.hits = sharedHits([this.seenScanner, this.writtenScanner, this.flagging]);
    this.spanScanners = [this.seenScanner, this.writtenScanner].filter((s) => s !== null);
    this.scanners = [this.flagging, ...this.spanScanners].filter((s) => s !== null);
  }

  /** Feeds the next chunk; returns what may be released now. */
  push(text: string): GuardResult {
    if (this.ended) throw new Error('push() after end()');
    const started = this.options.now?.();
    this.stats.chunks++;
    this.stats.chars += text.length;
    if (!this.blocked) {
      this.take(text);
      if (!this.blocked) this.settle(false);
    }
    return this.result(started);
  }

  /** Appends a chunk and scans it (push, and end's last chunk). */
  private take(text: string): void {
    const before = this.view.text.end;
    this.input.append(text);
    this.view.push(text);
    const added = this.view.text.end - before;
    // Tiny chunks (token deltas) are cheaper to scan directly than to index first.
    if (this.hits !== null && added >= SHARED_PASS_MIN_CHUNK) {
      const { text: retained, base } = this.view.text.view();
      // Bigrams starting from the last unit of the previous chunk up to the next-to-last unit.
      this.hits.compute(
        retained,
        base,
        Math.max(this.view.text.start, before - 1),
        this.view.text.end - 1,
      );
    }
    this.scan(false);
  }

  /**
   * Ends the stream: everything still held is decided and released. `last`, when
   * given, is a final chunk: the same output and events as `push(last)` then
   * `end()`, in one result, without the hold, settle and trim a push does before
   * the end decides everything anyway. A history document hands each message's
   * text whole and ends it at once (stream-rewriter.ts `echo`, issue 19 §5); test:
   * test/property/end-with-last-chunk.test.ts. The counters then count no hold
   * between the two (there was none to show).
   */
  end(last = ''): GuardResult {
    if (this.ended) throw new Error('end() called twice');
    const started = this.options.now?.();
    if (last.length > 0) {
      this.stats.chunks++;
      this.stats.chars += last.length;
      if (!this.blocked) this.take(last);
    }
    this.ended = true;
    if (!this.blocked) {
      this.view.end();
      this.scan(true);
      if (!this.blocked) this.settle(true);
    }
    this.options.session?.completeTurn(this.raised);
    return this.result(started);
  }

  /**
   * Makes an ended guard what `new StreamGuard(pack, options)` would make now, for the
   * next stream (a history document's next message: spare-guards.ts, issue 19 §5), and
   * returns true; its rules' objects are kept (scanners, start tables, the shared hit
   * arrays), every field a stream moves is set as new. False, and nothing changed, when
   * it has not ended or its options now ask for another plan or profile (a policy
   * changed in place, a session raised a flag; guard-plan.ts). No result, event or
   * counter of the last stream is reachable from the next: they were given out as
   * objects of their own. Test: test/property/reused-guard.test.ts.
   */
  restart(): boolean {
    if (!this.ended || !this.fitsItsOptions()) return false;
    this.input.reset();
    this.view.reset();
    for (const scanner of this.scanners) scanner.reset();
    if (this.hits !== null) {
      // No bigram is covered until the next chunk's pass (a new guard's `BigramHits`).
      this.hits.from = 0;
      this.hits.to = 0;
      this.hits.count = 0;
    }
    this.redactions.reset();
    this.continuation = null;
    this.raised = new Map();
    this.emitPos = 0;
    this.outFirst = '';
    this.outMore = null;
    this.outCount = 0;
    this.pieces = null;
    this.pending = [];
    this.seq = 0;
    this.blocked = false;
    this.ended = false;
    this.stats = newCounters();
    this.cutoff = Infinity;
    this.trimmedAt = 0;
    this.hold = 0;
    return true;
  }

  /**
   * Whether a guard made now for its pack and options would get this one's plan and
   * profile (a spare is checked again when taken: spare-guards.ts).
   */
  fitsItsOptions(): boolean {
    return (
      guardPlan(this.pack, this.options) === this.plan &&
      (this.options.profile ?? null) === this.profile
    );
  }

  /** Bigram hit slots this guard keeps between chunks (what a spare guard holds on to). */
  get hitSlots(): number {
    return this.hits === null ? 0 : this.hits.positions.length;
  }

  get counters(): GuardCounters {
    return { ...this.stats, eventsByRule: { ...this.stats.eventsByRule } };
  }

  get isBlocked(): boolean {
    return this.blocked;
  }

  /** Input code units pushed but not yet released (0 once blocked or ended). */
  get heldUnits(): number {
    return this.stats.held;
  }

  private spanScanner(planned: PlannedRules | null, seen: boolean): Scanner | null {
    if (planned === null) return null;
    const rules = planned.rules;
    return new Scanner(
      rules,
      planned.keywords,
      this.pack.alphabet,
      this.view.text,
      () => 'continue',
      {
        mode: 'spans',
        hidden: seen ? this.view.hidden : null,
        onSpan: (c) => this.addSpan(rules, seen, c),
        profile: this.options.profile ?? null,
      },
    );
  }

  /**
   * Runs every scanner to the end of the view (`final`: and finishes them); any
   * failure blocks the stream with a typed error event (fail closed). A flag,
   * not a callback: this runs per chunk.
   */
  private scan(final: boolean): void {
    try {
      for (const scanner of this.scanners) {
        if (final) scanner.finish();
        else scanner.advance(this.view.text.end);
        if (this.blocked) return;
      }
    } catch (error) {
      this.fail(error);
    }
  }

  /** A failure while scanning: the stream is blocked with a typed error event (fail closed). */
  private fail(error: unknown): void {
    const view = this.view.text;
    const at = Math.min(view.end, error instanceof RuleFailure ? error.at : this.determinedAt());
    const event: GuardEvent = {
      type: 'error',
      message: error instanceof Error ? error.message : String(error),
      at: this.codePointAt(this.view.rawStart(Math.max(at, view.start))),
      pack: this.packLabel,
    };
    if (error instanceof RuleFailure) event.rule = error.rule;
    this.block(at);
    this.pending.push({ event, at, rank: 2, seq: this.seq++ });
  }

  private determinedAt(): number {
    let at = 0;
    for (const s of this.scanners) at = Math.max(at, s.determinedAt);
    return at;
  }

  /** A decided match of a text-changing rule: its value becomes a pending span. */
  private addSpan(rules: readonly CompiledRule[], seen: boolean, c: Candidate): void {
    const rule = rules[c.rule] as CompiledRule;
    const scanner = (seen ? this.seenScanner : this.writtenScanner) as Scanner;
    let start = c.start;
    let end = c.end;
    if (rule.spec.value !== undefined) {
      const text = scanner.visibleText(c.start, c.end);
      const range = valueRange(rule, text);
      if (range !== null) {
        const at = scanner.visibleOffsets(c.start, c.end);
        start = at[range[0]] as number;
        end = (at[range[1] - 1] as number) + 1;
      }
    }
    const span: Span = { rule, start, end };
    if (c.host !== undefined) span.host = c.host;
    this.redactions.add(span);
  }

  /** A flag rule's match (leftmost-longest, never holds text). */
  private commitFlag(rules: readonly CompiledRule[], match: Candidate): 'continue' {
    const rule = rules[match.rule] as CompiledRule;
    const from = this.view.rawStart(match.start);
    const to = this.view.rawEnd(match.end);
    const event: MatchEvent = {
      type: 'match',
      rule: rule.id,
      kind: rule.kind,
      action: 'flag',
      start: this.codePointAt(from),
      end: this.codePointAt(to),
      pack: this.packLabel,
    };
    if (this.options.attachMatchedText === true) event.matched = this.input.slice(from, to);
    this.pending.push({
      event,
      at: (this.flagging as Scanner).determinedAt,
      rank: 0,
      seq: this.seq++,
    });
    this.count(rule);
    return 'continue';
  }

  private count(rule: CompiledRule): void {
    this.stats.eventsByRule[rule.id] = (this.stats.eventsByRule[rule.id] ?? 0) + 1;
    const raise = rule.spec.raises;
    if (raise !== undefined) {
      this.raised.set(raise.flag, Math.max(this.raised.get(raise.flag) ?? 0, raise.turns));
    }
  }

  /** The earliest view offset from which a text-changing scanner may still report a span. */
  private holdFrom(): number {
    let from = this.view.text.end;
    for (const s of this.spanScanners) from = Math.min(from, s.holdFrom());
    return from;
  }

  /**
   * Commits every cluster of spans that nothing can join any more, swallows a
   * continuing value, and releases what can no longer be part of a redaction.
   */
  private settle(final: boolean): void {
    let hold: number;
    try {
      hold = final ? Infinity : this.holdFrom();
      this.hold = hold;
    } catch (error) {
      // The hold reads the rules a partial keyword may begin, so it can meet a malformed
      // rule of a loaded pack first (load-compiled-pack.ts): as in a scan, fail closed.
      this.fail(error);
      return;
    }
    for (;;) {
      if (this.continuation !== null && !this.swallow(final)) return;
      const cluster = this.redactions.first();
      if (cluster === null) break;
      if (!final && !this.redactions.isSettled(cluster, hold)) break;
      if (this.commitCluster(cluster) === 'stop') return;
    }
    let to: number;
    if (final) {
      to = this.input.end;
    } else {
      const view = Math.min(hold, this.redactions.firstStart, this.view.text.end);
      to = this.view.rawStart(view);
      // Never end a release between the halves of a surrogate pair: a consumer
      // that encodes each release separately would turn both into U+FFFD.
      if (to > this.emitPos && isHighSurrogate(this.input.unitAt(to - 1))) to--;
    }
    this.keep(to);
  }

  private commitCluster(cluster: Cluster): 'continue' | 'stop' {
    const primary = primaryOf(cluster.members);
    const rule = primary.rule;
    const block = cluster.members.find((m) => this.actions.get(m.rule) === 'block');
    const from = this.view.rawStart(cluster.start);
    const to = this.view.rawEnd(cluster.end);
    this.keep(from);
    const event: MatchEvent = {
      type: 'match',
      rule: (block ?? primary).rule.id,
      kind: (block ?? primary).rule.kind,
      action: block === undefined ? 'redact' : 'block',
      start: this.codePointAt(from),
      end: this.codePointAt(to),
      pack: this.packLabel,
    };
    const others = [...new Set(cluster.members.map((m) => m.rule.id))].filter(
      (id) => id !== event.rule,
    );
    if (others.length > 0) event.also = others;
    if (this.options.attachMatchedText === true) event.matched = this.input.slice(from, to);
    this.redactions.take(cluster);
    for (const m of new Set(cluster.members.map((s) => s.rule))) this.count(m);
    if (block !== undefined) {
      this.pending.push({ event, at: cluster.end, rank: 1, seq: this.seq++ });
      this.block(cluster.end);
      return 'stop';
    }
    const text = rule.replacement.replaceAll('{host}', primary.host || 'a relative URL');
    this.addOut(text);
    this.addPiece({ kind: 'replace', from, to, text });
    this.emitPos = to;
    const continues = cluster.members
      .filter((m) => this.runsToEnd(m, cluster.end))
      .map(
        (m) =>
          [continuationOf(m.rule) as (u: number) => boolean, SEEN_KINDS.has(m.rule.kind)] as const,
      );
    if (continues.length === 0) {
      this.pending.push({ event, at: cluster.end, rank: 1, seq: this.seq++ });
      return 'continue';
    }
    this.continuation = {
      at: cluster.end,
      continues: (unit) => continues.some(([test]) => test(unit)),
      seen: continues.some(([, seen]) => seen),
      event,
    };
    return 'continue';
  }

  /**
   * Whether a member's value, continued by its own `continuation` class, reaches
   * `end`: a value cut at its bound inside a wider union (a URL around a capped
   * assignment) still continues past the union.
   */
  private runsToEnd(m: Span, end: number): boolean {
    const continues = continuationOf(m.rule);
    if (continues === null) return false;
    const seen = SEEN_KINDS.has(m.rule.kind);
    const view = this.view.text;
    for (let q = m.end; q < end; q++) {
      if (seen && this.view.hidden.union.has(q)) continue;
      if (!continues(view.unitAt(q))) return false;
    }
    return true;
  }

  /**
   * Swallows the units that continue a committed value, each as it arrives;
   * true once the run has ended (its event is then pending).
   */
  private swallow(final: boolean): boolean {
    const c = this.continuation as Continuation;
    const view = this.view.text;
    let at = c.at;
    let ended = final;
    while (at < view.end) {
      // A value read as seen runs across hidden units and comments (rendered-view.ts).
      if (c.seen && this.view.hidden.union.has(at)) {
        at++;
        continue;
      }
      if (!c.continues(view.unitAt(at))) {
        ended = true;
        break;
      }
      at++;
    }
    if (at > c.at) {
      const to = this.view.rawEnd(at);
      if (to > this.emitPos) {
        if (c.event.matched !== undefined) c.event.matched += this.input.slice(this.emitPos, to);
        this.addPiece({ kind: 'replace', from: this.emitPos, to, text: '' });
        this.emitPos = to;
      }
      this.redactions.clip(at);
      c.at = at;
    }
    if (!ended) return false;
    c.event.end = this.codePointAt(this.view.rawEnd(at));
    this.pending.push({ event: c.event, at, rank: 1, seq: this.seq++ });
    this.continuation = null;
    return true;
  }

  /** Nothing more is released; events determined after `at` are dropped. */
  private block(at: number): void {
    this.blocked = true;
    this.pending = this.pending.filter((p) => p.at <= at);
    this.cutoff = at;
  }

  private cutoff = Infinity;
  /** The view's end at the last trim. */
  private trimmedAt = 0;
  /** The text-changing scanners' hold as settle() last read it (view offset). */
  private hold = 0;

  /** Releases the input up to `to` unchanged. */
  private keep(to: number): void {
    if (to <= this.emitPos) return;
    this.addOut(this.input.slice(this.emitPos, to));
    this.addPiece({ kind: 'keep', from: this.emitPos, to });
    this.emitPos = to;
  }

  /** Most token-sized pushes release one piece or none: no list, no join (issue 19 §3). */
  private addOut(text: string): void {
    if (this.outCount++ === 0) this.outFirst = text;
    else (this.outMore ??= [this.outFirst]).push(text);
  }

  /** A list of one is allocated at its size; a second piece grows it (rare). */
  private addPiece(piece: ReleasePiece): void {
    if (this.pieces === null) this.pieces = [piece];
    else this.pieces.push(piece);
  }

  private codePointAt(raw: number): number {
    return this.input.codePointOffset(raw);
  }

  /**
   * View offset before which every event is known: a redaction decided later
   * (its spans wait for threads that began at or after the hold) is
   * determined after it, so events are given out in one order whatever the
   * chunking (DESIGN.md §3.1).
   */
  private eventHorizon(): number {
    if (this.blocked || this.ended) return Infinity;
    let horizon = Math.min(this.view.text.end, this.redactions.firstStart);
    if (this.continuation !== null) horizon = Math.min(horizon, this.continuation.at);
    // The scanners have not moved since settle() read their hold in this push.
    return Math.min(horizon, this.hold);
  }

  private result(started: number | undefined): GuardResult {
    let events: readonly GuardEvent[] = NO_EVENTS;
    if (this.pending.length > 0) {
      const horizon = this.eventHorizon();
      const ready = this.pending.filter((p) => p.at < horizon && p.at <= this.cutoff);
      this.pending = this.pending.filter((p) => p.at >= horizon && p.at <= this.cutoff);
      events = ready
        .sort((a, b) => a.at - b.at || a.rank - b.rank || a.seq - b.seq)
        .map((p) => p.event);
    }
    const emit =
      this.outCount === 0 ? '' : this.outMore === null ? this.outFirst : this.outMore.join('');
    this.outCount = 0;
    this.outFirst = '';
    this.outMore = null;
    const pieces = this.pieces ?? NO_PIECES;
    this.pieces = null;
    // Before the trim: a trim at the end may drop the input (`trim`).
    const held = this.blocked ? 0 : this.input.end - this.emitPos;
    this.trim();
    this.stats.held = held;
    if (held > 0 && !this.ended) {
      this.stats.holds++;
      this.stats.longestHold = Math.max(this.stats.longestHold, held);
    }
    const now = this.options.now;
    if (now !== undefined && started !== undefined) this.stats.timeMs += now() - started;
    return { emit, events, blocked: this.blocked, pieces, released: this.emitPos };
  }

  /**
   * Forgets what no scanner and no release needs any more. Only once the view has
   * grown TRIM_STRIDE units since the last trim: what is kept bounds memory, never a
   * verdict, and asking every scanner what it needs on every token-sized push was a
   * sixth of the per-push cost (issue 19 §3).
   */
  private trim(): void {
    if (this.blocked || this.ended) {
      this.view.trimBefore(this.view.text.end);
      // Nothing reads the input after a block or the end (every event offset was counted
      // before this result), so it is dropped, not trimmed: a trim counts the code points
      // of all it forgets, every unit of a history message (issue 19 §5). A fresh empty
      // one each, not one shared: no state can pass between streams.
      if (!dropAtEnd.enabled) this.input.trimBefore(this.input.end);
      else if (this.input.end > 0) this.input = new InputText(true, 1);
      return;
    }
    if (this.view.text.end - this.trimmedAt < trimStride.units) return;
    this.trimmedAt = this.view.text.end;
    let keep = Math.min(this.view.text.end, this.redactions.firstStart);
    if (this.continuation !== null) keep = Math.min(keep, this.continuation.at);
    for (const s of this.scanners) keep = Math.min(keep, s.needFrom());
    this.view.trimBefore(keep);
    this.input.trimBefore(Math.min(this.emitPos, this.view.rawStart(this.view.text.start)));
  }
}

/** A new stream's counters. */
function newCounters(): GuardCounters {
  return { chunks: 0, chars: 0, holds: 0, longestHold: 0, held: 0, eventsByRule: {}, timeMs: 0 };
}

/**
 * What a push without events or released pieces returns: one frozen empty list each,
 * not two new arrays per push (issue 19 §3: ~640 bytes were allocated per 4-unit push).
 */
const NO_EVENTS: readonly GuardEvent[] = Object.freeze([]);
const NO_PIECES: readonly ReleasePiece[] = Object.freeze([]);

/**
 * Whether a guard drops its input at a block or the end instead of trimming it
 * (`trim`). A holder so test/property/drop-at-end.test.ts can run the slow path.
 */
export const dropAtEnd = { enabled: true };

/**
 * View units a stream grows between two trims (`trim`): memory stays bounded (at most
 * this much more than the rules need; DESIGN.md §3.9). A holder so the differential
 * test (test/property/trim-stride.test.ts) can run the slow path, a trim every push.
 */
export const trimStride = { units: 32 };

/** Below this chunk size each scanner reads the units itself (see `BigramHits`). */
const SHARED_PASS_MIN_CHUNK = 64;

/**
 * Hit tables per (table so far, next scanner table), one map per shift (the
 * scanner tables are cached per pack subset): entry `b` has bit `i` set when
 * scanner `i`'s table marks bigram `b`.
 */
const unionCache: WeakMap<Uint8Array, WeakMap<Uint8Array, Uint8Array>>[] = [];

function unionOf(a: Uint8Array, b: Uint8Array, shift: number): Uint8Array {
  const byShift = (unionCache[shift] ??= new WeakMap());
  let inner = byShift.get(a);
  if (inner === undefined) {
    inner = new WeakMap();
    byShift.set(a, inner);
  }
  let union = inner.get(b);
  if (union === undefined) {
    union = orOf(a, b, shift);
    inner.set(b, union);
  }
  return union;
}

/**
 * a | (b << shift) for bigram tables (0x10000 bytes, each an array of its own:
 * scanner.ts; b's entries 0 or 1), four bytes at a time: a quarter of the steps
 * on the page's main thread. A shift below 8 stays inside each byte.
 */
function orOf(a: Uint8Array, b: Uint8Array, shift: number): Uint8Array {
  const union = a.slice();
  const words = new Uint32Array(union.buffer);
  const other = new Uint32Array(b.buffer, b.byteOffset, words.length);
  for (let i = 0; i < words.length; i++) {
    words[i] = (words[i] as number) | (((other[i] as number) & 0x01010101) << shift);
  }
  return union;
}

/**
 * One hit list for all scanners with a bigram prefilter: the positions some
 * scanner's table marks, each with the bits of the scanners that mark it, so
 * a scanner jumping between the hits reads one byte per hit, not the bigram.
 */
function sharedHits(scanners: (Scanner | null)[]): BigramHits | null {
  const marking = scanners.filter((s) => s?.bigramTable) as Scanner[];
  const [first, ...rest] = marking.map((s) => s.bigramTable as Uint8Array);
  if (first === undefined) return null;
  // Cached per chain of tables, so a guard's hit table is built once per rule subset.
  let union = first;
  rest.forEach((table, i) => (union = unionOf(union, table, i + 1)));
  const hits = new BigramHits(union);
  marking.forEach((s, i) => s.useHits(hits, 1 << i));
  return hits;
}
