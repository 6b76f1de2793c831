/**
 * UTF-8 bytes of a text that comes back from the guard in pieces, encoded as
 * each piece arrives. The page gets one chunk per network chunk (remote-guard.ts),
 * and its reader runs on in the task that enqueues it: encoding the whole chunk
 * there put the guard's share into the page's own long tasks (bench traces, up
 * to 10 ms for a chunk the network had coalesced; issue 4). Piece by piece, that
 * task only joins bytes.
 *
 * The bytes equal those of the pieces joined and encoded at once: UTF-8 is
 * encoded piece by piece everywhere except between a high and a low surrogate,
 * so a high surrogate ending a piece waits for the next one.
 */
export class PiecewiseEncoder {
  private parts: Uint8Array<ArrayBuffer>[] = [];
  /** A high surrogate that ended the last piece, or ''. */
  private carry = '';

  constructor(private readonly encoder: TextEncoder) {}

  /** True when nothing was added since the last `take`. */
  get empty(): boolean {
    return this.parts.length === 0 && this.carry === '';
  }

  add(piece: string): void {
    let text = this.carry + piece;
    this.carry = '';
    const lastUnit = text.charCodeAt(text.length - 1);
    if (lastUnit >= 0xd800 && lastUnit <= 0xdbff) {
      this.carry = text.slice(-1);
      text = text.slice(0, -1);
    }
    if (text === '') return;
    this.parts.push(this.encoder.encode(text));
  }

  /** The bytes of everything added since the last `take` (a waiting surrogate included). */
  take(): Uint8Array<ArrayBuffer> {
    if (this.carry !== '') {
      this.parts.push(this.encoder.encode(this.carry));
      this.carry = '';
    }
    const parts = this.parts;
    const size = parts.reduce((sum, part) => sum + part.length, 0);
    this.parts = [];
    if (parts.length === 1) return parts[0] as Uint8Array<ArrayBuffer>;
    const out = new Uint8Array(size);
    let at = 0;
    for (const part of parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }
}
