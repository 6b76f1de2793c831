/**
 * UTF-8 bytes of a text that comes back from the guard in pieces, encoded as
 * each piece arrives. The page gets one chunk per network chunk (remote-guard.ts),
 * and its reader runs on in the task that enqueues it: encoding the whole chunk
 * there put the guard's share into the page's own long tasks (bench traces, up
 * to 10 ms for a chunk the network had coalesced; issue 4). Each piece is encoded
 * into one growing buffer (`encodeInto`), so that task only copies the chunk's
 * bytes out once: joining one array per piece there (a few hundred per chunk)
 * still took 1–2 ms, enough to make a page task of 49 ms a long one.
 *
 * The bytes equal those of the pieces joined and encoded at once: UTF-8 is
 * encoded piece by piece everywhere except between a high and a low surrogate,
 * so a high surrogate ending a piece waits for the next one.
 */

import { call, Encoder } from './intrinsics.ts';

/** UTF-8 takes at most 3 bytes per UTF-16 unit (4 per surrogate pair). */
const MAX_BYTES_PER_UNIT = 3;

export class PiecewiseEncoder {
  /** The bytes added since the last `take`: `buffer[0, length)`. */
  private buffer: Uint8Array<ArrayBuffer>;
  private length = 0;
  /** A high surrogate that ended the last piece, or ''. */
  private carry = '';

  constructor(
    private readonly encoder: TextEncoder,
    initialBytes = 16 * 1024,
  ) {
    this.buffer = new Uint8Array(initialBytes);
  }

  /** True when nothing was added since the last `take`. */
  get empty(): boolean {
    return this.length === 0 && this.carry === '';
  }

  add(piece: string): void {
    let text = this.carry + piece;
    this.carry = '';
    const lastUnit = text.charCodeAt(text.length - 1);
    if (lastUnit >= 0xd800 && lastUnit <= 0xdbff) {
      this.carry = text.slice(-1);
      text = text.slice(0, -1);
    }
    if (text !== '') this.write(text);
  }

  /**
   * The bytes of everything added since the last `take` (a waiting surrogate
   * included), in an array of their own: a page may read the chunk's `buffer`.
   */
  take(): Uint8Array<ArrayBuffer> {
    if (this.carry !== '') {
      this.write(this.carry);
      this.carry = '';
    }
    const bytes = this.buffer.slice(0, this.length);
    this.length = 0;
    return bytes;
  }

  private write(text: string): void {
    const needed = this.length + text.length * MAX_BYTES_PER_UNIT;
    if (needed > this.buffer.length) {
      const grown = new Uint8Array(Math.max(needed, 2 * this.buffer.length));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    const into = this.buffer.subarray(this.length);
    this.length += call<TextEncoderEncodeIntoResult>(
      Encoder.encodeInto,
      this.encoder,
      text,
      into,
    ).written;
  }
}
