/**
 * A text built by many small appends and read rarely: ChatGPT web's message text
 * so far (chatgpt-web.ts), appended once per `{"v":"…"}` delta, read only for a
 * citation's offsets, a truncate or a memory write (WIRE-FORMATS.md §1.4).
 *
 * `text += piece` per delta keeps every piece alive in a rope of one node per
 * delta for the whole answer (about 30 bytes a node over a 4-unit piece): the
 * young-generation collector copies each node and piece it finds alive and then
 * promotes them, so the adapter's cost per event grew with the answer (issue 20's
 * wire ≤ 2× target). Here the pieces wait in an array and are joined into one flat
 * string every FOLD_AFTER appends, so most of them die young and the rope has one
 * node per FOLD_AFTER pieces. `value` is always the plain concatenation.
 */

/** Pieces joined at once: enough that the rope stays short, few enough that they die young. */
const FOLD_AFTER = 256;

export class AppendedText {
  private folded = '';
  private readonly pieces: string[] = [];

  constructor(text = '') {
    this.folded = text;
  }

  /** The text: what was set, followed by every piece appended since, in order. */
  get value(): string {
    if (this.pieces.length > 0) this.fold();
    return this.folded;
  }

  /** Whether the text is empty, without joining the waiting pieces. */
  get isEmpty(): boolean {
    if (this.folded.length > 0) return false;
    for (const piece of this.pieces) if (piece.length > 0) return false;
    return true;
  }

  append(piece: string): void {
    if (this.pieces.push(piece) >= FOLD_AFTER) this.fold();
  }

  set(text: string): void {
    this.folded = text;
    this.pieces.length = 0;
  }

  private fold(): void {
    this.folded += this.pieces.join('');
    this.pieces.length = 0;
  }
}
