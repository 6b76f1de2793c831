/**
 * One channel (content block, choice, message fragment) of a wire stream: its
 * own guard stream, and a ledger of what the guard released for which input
 * span, so each wire frame can be given the guarded text of its own input.
 *
 * A replaced span (a redaction) belongs to the frame in which it starts; the
 * frames it reaches into get the text after it. So no frame ever carries a
 * fragment of a secret, and concatenating the frames gives the guard's output.
 */
import type { GuardEvent, GuardResult, ReleasePiece } from '../guard/guard-event.ts';
import type { GuardOptions, StreamGuard } from '../guard/stream-guard.ts';
import { giveBack, takeGuard } from '../guard/spare-guards.ts';
import type { CompiledPack } from '../rules/compile-pack.ts';

interface LedgerPiece {
  piece: ReleasePiece;
  /** The output this piece stands for (kept input, or the replacement). */
  text: string;
}

/** Chunks of input kept apart before they are joined to the rest (`inputText`). */
const JOIN_EVERY = 256;
/** Pieces behind the delta cursor that are folded at once (`fold`). */
const FOLD_AFTER = 256;

export class ChannelLedger {
  /**
   * The channel's guard until it ends; then given back for the next channel of the
   * same options (spare-guards.ts, issue 19 §5), and only its block is kept.
   */
  private guard: StreamGuard | null;
  private blockedAtEnd = false;
  /**
   * Every input unit fed so far: `input` and then `recent`, joined into `input`
   * every JOIN_EVERY chunks and when read, so a long answer keeps a few long
   * strings rather than a rope of one cell per chunk for the collector to walk.
   */
  private input = '';
  private recent: string[] = [];
  private fedLength = 0;
  /** Concatenated output, rebuilt only when a cumulative slot asks for it. */
  private outputCache: string | null = '';
  /** Release pieces not folded into `foldedOutput` yet, in input order. */
  private pieces: LedgerPiece[] = [];
  /**
   * The output of the pieces no span will ask for again, concatenated: without it
   * a long answer kept an object per guard push to its end (issue 19 §3: the
   * collector's share of the wire's cost grew with the stream).
   */
  private foldedOutput = '';
  /** Index of the first piece that may still overlap an unrendered delta span. */
  private cursor = 0;
  private released = 0;
  private finished = false;
  /** Replaced by a new generation: what was held is never released (see `abandon`). */
  private abandoned = false;

  constructor(
    readonly name: string,
    pack: CompiledPack,
    private readonly options: GuardOptions,
    private readonly onEvents: (channel: string, events: GuardEvent[]) => void,
  ) {
    this.guard = takeGuard(pack, options);
  }

  /** Input units fed so far. */
  get fed(): number {
    return this.fedLength;
  }

  get isBlocked(): boolean {
    return this.guard === null ? this.blockedAtEnd : this.guard.isBlocked;
  }

  get isFinished(): boolean {
    return this.finished;
  }

  /** The whole input so far (for snapshot and echo slots). */
  get inputText(): string {
    this.joinRecent();
    return this.input;
  }

  /** Feeds text; returns where it starts in the input (it ends at `fed`). */
  feed(text: string): number {
    const from = this.fedLength;
    if (this.finished || text.length === 0) return from;
    this.recent.push(text);
    if (this.recent.length === JOIN_EVERY) this.joinRecent();
    this.fedLength += text.length;
    this.record((this.guard as StreamGuard).push(text));
    return from;
  }

  /**
   * Ends the channel; `last` is its last text, fed with the end in one guard call
   * (the same output as `feed(last)` then `finish()`).
   */
  finish(last = ''): void {
    if (this.finished) return;
    this.finished = true;
    if (last.length > 0) {
      this.recent.push(last);
      if (this.recent.length === JOIN_EVERY) this.joinRecent();
      this.fedLength += last.length;
    }
    const guard = this.guard as StreamGuard;
    this.record(guard.end(last));
    this.blockedAtEnd = guard.isBlocked;
    this.guard = null;
    giveBack(guard, this.options);
  }

  private joinRecent(): void {
    if (this.recent.length === 0) return;
    this.input += this.recent.join('');
    this.recent = [];
  }

  /** True when the guard has decided every input unit before `to`. */
  settled(to: number): boolean {
    return this.released >= to || this.abandoned;
  }

  /**
   * The server rewrote this channel's earlier text (a snapshot that does not
   * extend the previous one). Frames still queued on it show only what was
   * already released; the held tail is dropped, never flushed, since it may be
   * the start of a secret whose end now arrives in the new generation.
   */
  abandon(): void {
    this.abandoned = true;
    this.finished = true;
  }

  /** Input offset up to which the guard has released (on a block: the block point). */
  get releasedTo(): number {
    return this.released;
  }

  /** Guarded text of input span [from, to): kept units inside it and replacements starting in it. */
  textOf(from: number, to: number): string {
    let out = '';
    let i = this.cursor;
    while (i < this.pieces.length && (this.pieces[i] as LedgerPiece).piece.to <= from) i++;
    if (i >= FOLD_AFTER) i -= this.fold(i);
    this.cursor = i;
    for (; i < this.pieces.length; i++) {
      const { piece, text } = this.pieces[i] as LedgerPiece;
      if (piece.from >= to) break;
      if (piece.kind === 'replace') {
        if (piece.from >= from) out += text;
      } else {
        const a = Math.max(piece.from, from);
        const b = Math.min(piece.to, to);
        if (a < b) out += text.slice(a - piece.from, b - piece.from);
      }
    }
    return out;
  }

  /**
   * Folds the first `count` pieces, all before the cursor, into `foldedOutput`;
   * returns how many it folded. Spans are rendered in input order, so a delta
   * span never asks for them again (they end at or before its start), and a
   * cumulative span ends at or after that start, so it counts all of their
   * output (`textUpTo`): their text length, as it counted them one by one. An
   * empty piece is not folded (`textUpTo` leaves out one that starts at its end).
   */
  private fold(count: number): number {
    let n = 0;
    while (
      n < count &&
      (this.pieces[n] as LedgerPiece).piece.from < (this.pieces[n] as LedgerPiece).piece.to
    )
      n++;
    if (n === 0) return 0;
    this.foldedOutput += this.pieces
      .slice(0, n)
      .map((p) => p.text)
      .join('');
    this.pieces = this.pieces.slice(n);
    return n;
  }

  /** Guarded text of input [0, to): what a cumulative snapshot up to `to` must show. */
  textUpTo(to: number): string {
    this.outputCache ??= this.foldedOutput + this.pieces.map((p) => p.text).join('');
    let end = this.foldedOutput.length;
    for (const { piece, text } of this.pieces) {
      if (piece.from >= to) break;
      end += piece.kind === 'replace' ? text.length : Math.min(piece.to, to) - piece.from;
    }
    return this.outputCache.slice(0, end);
  }

  private record(result: GuardResult): void {
    // `emit` is the pieces' output in order (guard-event.ts): a kept piece's text is the
    // next (to - from) units of it, so the input needs no copy of its own here.
    let at = 0;
    for (const piece of result.pieces) {
      const text =
        piece.kind === 'replace' ? piece.text : result.emit.slice(at, at + piece.to - piece.from);
      at += text.length;
      this.pieces.push({ piece, text });
    }
    if (at !== result.emit.length) throw new Error('guard output and its pieces disagree');
    if (result.pieces.length > 0) this.outputCache = null;
    this.released = result.released;
    // The guard's list is read-only (shared when empty); listeners get a list of their own.
    if (result.events.length > 0) this.onEvents(this.name, [...result.events]);
  }
}
