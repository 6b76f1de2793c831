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
import { type GuardOptions, StreamGuard } from '../guard/stream-guard.ts';
import type { CompiledPack } from '../rules/compile-pack.ts';

interface LedgerPiece {
  piece: ReleasePiece;
  /** The output this piece stands for (kept input, or the replacement). */
  text: string;
}

export class ChannelLedger {
  private readonly guard: StreamGuard;
  /**
   * Every input unit fed so far, as a rope: appending is O(1) and it is only
   * flattened when a snapshot or echo slot compares against it.
   */
  private input = '';
  private fedLength = 0;
  /** The input from `tailStart` on: the part the guard has not released yet, plus the newest chunk. */
  private tail = '';
  private tailStart = 0;
  /** Concatenated output, rebuilt only when a cumulative slot asks for it. */
  private outputCache: string | null = '';
  private readonly pieces: LedgerPiece[] = [];
  /** Index of the first piece that may still overlap an unrendered delta span. */
  private cursor = 0;
  private released = 0;
  private finished = false;
  /** Replaced by a new generation: what was held is never released (see `abandon`). */
  private abandoned = false;

  constructor(
    readonly name: string,
    pack: CompiledPack,
    options: GuardOptions,
    private readonly onEvents: (channel: string, events: GuardEvent[]) => void,
  ) {
    this.guard = new StreamGuard(pack, options);
  }

  /** Input units fed so far. */
  get fed(): number {
    return this.fedLength;
  }

  get isBlocked(): boolean {
    return this.guard.isBlocked;
  }

  get isFinished(): boolean {
    return this.finished;
  }

  /** The whole input so far (for snapshot and echo slots). */
  get inputText(): string {
    return this.input;
  }

  /** Feeds text; returns where it starts in the input (it ends at `fed`). */
  feed(text: string): number {
    const from = this.fedLength;
    if (this.finished || text.length === 0) return from;
    this.input += text;
    this.tail += text;
    this.fedLength += text.length;
    this.record(this.guard.push(text));
    return from;
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.record(this.guard.end());
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

  /** Guarded text of input [0, to): what a cumulative snapshot up to `to` must show. */
  textUpTo(to: number): string {
    this.outputCache ??= this.pieces.map((p) => p.text).join('');
    let end = 0;
    for (const { piece, text } of this.pieces) {
      if (piece.from >= to) break;
      end += piece.kind === 'replace' ? text.length : Math.min(piece.to, to) - piece.from;
    }
    return this.outputCache.slice(0, end);
  }

  private record(result: GuardResult): void {
    for (const piece of result.pieces) {
      const text =
        piece.kind === 'replace'
          ? piece.text
          : this.tail.slice(piece.from - this.tailStart, piece.to - this.tailStart);
      this.pieces.push({ piece, text });
    }
    if (result.pieces.length > 0) this.outputCache = null;
    this.released = result.released;
    // Released input is never read again: keep only the tail the guard still holds.
    if (this.released > this.tailStart) {
      this.tail = this.tail.slice(Math.min(this.released, this.fedLength) - this.tailStart);
      this.tailStart = Math.min(this.released, this.fedLength);
    }
    if (result.events.length > 0) this.onEvents(this.name, result.events);
  }
}
