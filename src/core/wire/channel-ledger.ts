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
  /** Where this piece's text starts in the channel's output. */
  outStart: number;
}

export class ChannelLedger {
  private readonly guard: StreamGuard;
  /** Every input unit fed so far (the page holds the whole answer too). */
  private input = '';
  private output = '';
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
    return this.input.length;
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

  /** Feeds text; returns the input span [from, to) it occupies. */
  feed(text: string): { from: number; to: number } {
    const from = this.input.length;
    if (this.finished || text.length === 0) return { from, to: from };
    this.input += text;
    this.record(this.guard.push(text));
    return { from, to: this.input.length };
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
      const { piece, outStart } = this.pieces[i] as LedgerPiece;
      if (piece.from >= to) break;
      if (piece.kind === 'replace') {
        if (piece.from >= from) out += piece.text;
      } else {
        const a = Math.max(piece.from, from);
        const b = Math.min(piece.to, to);
        if (a < b)
          out += this.output.slice(outStart + (a - piece.from), outStart + (b - piece.from));
      }
    }
    return out;
  }

  /** Guarded text of input [0, to): what a cumulative snapshot up to `to` must show. */
  textUpTo(to: number): string {
    let end = 0;
    for (const { piece, outStart } of this.pieces) {
      if (piece.from >= to) break;
      end =
        piece.kind === 'replace'
          ? outStart + piece.text.length
          : outStart + (Math.min(piece.to, to) - piece.from);
    }
    return this.output.slice(0, end);
  }

  private record(result: GuardResult): void {
    for (const piece of result.pieces) {
      this.pieces.push({ piece, outStart: this.output.length });
      this.output += piece.kind === 'replace' ? piece.text : this.input.slice(piece.from, piece.to);
    }
    this.released = result.released;
    if (result.events.length > 0) this.onEvents(this.name, result.events);
  }
}
