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
import { combineKindPolicy, type PolicyMode } from './kind-policy.ts';
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
import { type Candidate, RuleFailure, Scanner } from './scanner.ts';

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
}

interface PendingEvent {
  event: GuardEvent;
  /** Input offset (code units) at which the event was determined. */
  at: number;
  rank: number;
  seq: number;
}

type ActiveAction = Exclude<RuleAction, 'off'>;

export class StreamGuard {
  private readonly input = new InputText();
  private readonly changingRules: CompiledRule[] = [];
  private readonly flaggingRules: CompiledRule[] = [];
  private readonly actions = new Map<CompiledRule, ActiveAction>();
  private readonly changing: Scanner | null;
  private readonly flagging: Scanner | null;
  private readonly packLabel: string;
  private readonly hits: BigramHits | null;
  private readonly raised = new Map<string, number>();
  private emitPos = 0;
  private out: string[] = [];
  private pieces: ReleasePiece[] = [];
  private pending: PendingEvent[] = [];
  private seq = 0;
  private blocked = false;
  private ended = false;
  private readonly stats: GuardCounters = {
    chunks: 0,
    chars: 0,
    holds: 0,
    longestHold: 0,
    held: 0,
    eventsByRule: {},
    timeMs: 0,
  };

  constructor(
    readonly pack: CompiledPack,
    private readonly options: GuardOptions = {},
  ) {
    this.packLabel = `${pack.name}@${pack.version}`;
    for (const [rule, action] of activeRules(pack, options)) {
      this.actions.set(rule, action);
      (action === 'flag' ? this.flaggingRules : this.changingRules).push(rule);
    }
    this.changing = this.scannerFor(this.changingRules, 1);
    this.flagging = this.scannerFor(this.flaggingRules, 0);
    this.hits = sharedHits([this.changing, this.flagging]);
  }

  /** Feeds the next chunk; returns what may be released now. */
  push(text: string): GuardResult {
    if (this.ended) throw new Error('push() after end()');
    const started = this.options.now?.();
    this.stats.chunks++;
    this.stats.chars += text.length;
    if (!this.blocked) {
      const before = this.input.end;
      this.input.append(text);
      // Tiny chunks (token deltas) are cheaper to scan directly than to index first.
      if (this.hits !== null && text.length >= SHARED_PASS_MIN_CHUNK) {
        const { text: retained, base } = this.input.view();
        // Bigrams starting from the last unit of the previous chunk up to the next-to-last unit.
        this.hits.compute(retained, base, Math.max(base, before - 1), this.input.end - 1);
      }
      this.scan(false);
      if (!this.blocked) this.release(false);
    }
    return this.result(started);
  }

  /** Ends the stream: everything still held is decided and released. */
  end(): GuardResult {
    if (this.ended) throw new Error('end() called twice');
    const started = this.options.now?.();
    this.ended = true;
    if (!this.blocked) {
      this.scan(true);
      if (!this.blocked) this.release(true);
    }
    this.options.session?.completeTurn(this.raised);
    return this.result(started);
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

  private scannerFor(rules: CompiledRule[], rank: number): Scanner | null {
    if (rules.length === 0) return null;
    const scanner: Scanner = new Scanner(
      rules,
      this.pack.keywordAutomaton(rules),
      this.pack.alphabet,
      this.input,
      (match) => this.commit(rules, scanner, rank, match),
    );
    return scanner;
  }

  /**
   * Runs both scanners to the end of the input (`final`: and finishes them);
   * any failure blocks the stream with a typed error event (fail closed). A
   * flag, not a callback: this runs per chunk.
   */
  private scan(final: boolean): void {
    try {
      if (final) {
        this.flagging?.finish();
        this.changing?.finish();
      } else {
        this.flagging?.advance(this.input.end);
        this.changing?.advance(this.input.end);
      }
    } catch (error) {
      this.fail(error);
    }
  }

  /** A failure while scanning: the stream is blocked with a typed error event (fail closed). */
  private fail(error: unknown): void {
    const at = Math.min(
      this.input.end,
      error instanceof RuleFailure ? error.at : (this.changing?.determinedAt ?? this.input.end),
    );
    const event: GuardEvent = {
      type: 'error',
      message: error instanceof Error ? error.message : String(error),
      at: this.input.codePointOffset(Math.max(at, this.input.start)),
      pack: this.packLabel,
    };
    if (error instanceof RuleFailure) event.rule = error.rule;
    this.block(at);
    this.pending.push({ event, at, rank: 2, seq: this.seq++ });
  }

  private commit(
    rules: CompiledRule[],
    scanner: Scanner,
    rank: number,
    match: Candidate,
  ): 'continue' | 'stop' {
    const rule = rules[match.rule] as CompiledRule;
    const action = this.actions.get(rule) as ActiveAction;
    const at = scanner.determinedAt;
    const event: MatchEvent = {
      type: 'match',
      rule: rule.id,
      kind: rule.kind,
      action,
      start: this.input.codePointOffset(match.start),
      end: this.input.codePointOffset(match.end),
      pack: this.packLabel,
    };
    if (this.options.attachMatchedText === true) {
      event.matched = this.input.slice(match.start, match.end);
    }
    this.pending.push({ event, at, rank, seq: this.seq++ });
    this.stats.eventsByRule[rule.id] = (this.stats.eventsByRule[rule.id] ?? 0) + 1;
    const raise = rule.spec.raises;
    if (raise !== undefined) {
      this.raised.set(raise.flag, Math.max(this.raised.get(raise.flag) ?? 0, raise.turns));
    }
    if (action === 'flag') return 'continue';
    if (match.start < this.emitPos) {
      throw new Error(`internal: match at ${match.start} precedes released text (${this.emitPos})`);
    }
    this.keep(match.start);
    if (action === 'block') {
      this.block(at);
      return 'stop';
    }
    const text = rule.replacement.replaceAll('{host}', match.host || 'a relative URL');
    this.out.push(text);
    this.pieces.push({ kind: 'replace', from: match.start, to: match.end, text });
    this.emitPos = match.end;
    return 'continue';
  }

  /** Nothing more is released; events determined after `at` are dropped. */
  private block(at: number): void {
    this.blocked = true;
    this.pending = this.pending.filter((p) => p.at <= at);
    this.cutoff = at;
  }

  private cutoff = Infinity;

  private release(final: boolean): void {
    let to = this.input.end;
    if (!final && this.changing !== null) {
      // The hold reads the rules a partial keyword may begin, so it can meet a malformed
      // rule of a loaded pack first (load-compiled-pack.ts): as in a scan, fail closed.
      try {
        to = this.changing.holdFrom();
      } catch (error) {
        this.fail(error);
        return;
      }
    }
    // Never end a release between the halves of a surrogate pair: a consumer
    // that encodes each release separately would turn both into U+FFFD.
    if (!final && to > this.emitPos && isHighSurrogate(this.input.unitAt(to - 1))) to--;
    this.keep(to);
  }

  /** Releases the input up to `to` unchanged. */
  private keep(to: number): void {
    if (to <= this.emitPos) return;
    this.out.push(this.input.slice(this.emitPos, to));
    this.pieces.push({ kind: 'keep', from: this.emitPos, to });
    this.emitPos = to;
  }

  private result(started: number | undefined): GuardResult {
    const events =
      this.pending.length === 0
        ? []
        : this.pending
            .filter((p) => p.at <= this.cutoff)
            .sort((a, b) => a.at - b.at || a.rank - b.rank || a.seq - b.seq)
            .map((p) => p.event);
    if (this.pending.length > 0) this.pending = [];
    const emit = this.out.join('');
    this.out = [];
    const pieces = this.pieces;
    this.pieces = [];
    this.trim();
    const held = this.blocked ? 0 : this.input.end - this.emitPos;
    this.stats.held = held;
    if (held > 0 && !this.ended) {
      this.stats.holds++;
      this.stats.longestHold = Math.max(this.stats.longestHold, held);
    }
    const now = this.options.now;
    if (now !== undefined && started !== undefined) this.stats.timeMs += now() - started;
    return { emit, events, blocked: this.blocked, pieces, released: this.emitPos };
  }

  private trim(): void {
    if (this.blocked || this.ended) {
      this.input.trimBefore(this.input.end);
      return;
    }
    let keep = this.emitPos;
    // Release just stopped at (or before) the changing scanner's hold point.
    if (this.changing) keep = Math.min(keep, this.changing.needFrom(this.emitPos));
    if (this.flagging) keep = Math.min(keep, this.flagging.needFrom());
    this.input.trimBefore(keep);
  }
}

/** Below this chunk size each scanner reads the units itself (see `BigramHits`). */
const SHARED_PASS_MIN_CHUNK = 64;

/** Union tables per pair of scanner tables (the tables are cached per pack subset). */
const unionCache = new WeakMap<Uint8Array, WeakMap<Uint8Array, Uint8Array>>();

function unionOf(a: Uint8Array, b: Uint8Array): Uint8Array {
  let inner = unionCache.get(a);
  if (inner === undefined) {
    inner = new WeakMap();
    unionCache.set(a, inner);
  }
  let union = inner.get(b);
  if (union === undefined) {
    union = orOf(a, b);
    inner.set(b, union);
  }
  return union;
}

/**
 * a | b for two bigram tables (0x10000 bytes, each an array of its own: scanner.ts),
 * four bytes at a time: a quarter of the steps on the page's main thread.
 */
function orOf(a: Uint8Array, b: Uint8Array): Uint8Array {
  const union = a.slice();
  const words = new Uint32Array(union.buffer);
  const other = new Uint32Array(b.buffer, b.byteOffset, words.length);
  for (let i = 0; i < words.length; i++) words[i] = (words[i] as number) | (other[i] as number);
  return union;
}

/** One hit list for all scanners with a bigram prefilter, over the union of their tables. */
function sharedHits(scanners: (Scanner | null)[]): BigramHits | null {
  const tables = scanners.flatMap((s) => (s?.bigramTable ? [s.bigramTable] : []));
  const [first, second] = tables;
  if (first === undefined) return null;
  const hits = new BigramHits(second === undefined ? first : unionOf(first, second));
  for (const s of scanners) if (s?.bigramTable) s.useHits(hits);
  return hits;
}

/** The rules a guard with `options` runs, each with its effective action (never `off`). */
export function activeRules(
  pack: CompiledPack,
  options: GuardOptions,
): [CompiledRule, Exclude<RuleAction, 'off'>][] {
  const active = options.session?.activeFlags() ?? new Set<string>();
  const out: [CompiledRule, Exclude<RuleAction, 'off'>][] = [];
  for (const rule of pack.rules) {
    if (options.alwaysOnOnly === true && rule.keyword) continue;
    const action = effectiveAction(rule, options.policy, active, options.policyMode);
    if (action !== 'off') out.push([rule, action]);
  }
  return out;
}

function effectiveAction(
  rule: CompiledRule,
  policy: Partial<Record<RuleKind, RuleAction>> | undefined,
  activeFlags: ReadonlySet<string>,
  mode: PolicyMode | undefined,
): RuleAction {
  const escalation = rule.spec.escalation;
  if (escalation !== undefined && activeFlags.has(escalation.whenFlag)) return escalation.action;
  return combineKindPolicy(rule.action, policy?.[rule.kind], mode);
}
