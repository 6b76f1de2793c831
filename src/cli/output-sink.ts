/**
 * Writes text to a stream in order, waiting for `drain` when the stream's buffer
 * is full, so a large scan never piles its whole output up in memory. A stream
 * error (e.g. EPIPE when the reader went away) rejects the next write.
 *
 * `OutputSink.stdout()` writes to descriptor 1 directly instead (issue 19 §2):
 * `process.stdout` on a pipe is a `net.Socket`, and creating it loads and
 * compiles `net` and the stream machinery (fd-reads.ts). Each write completes
 * before the next, as `process.stdout` writes to pipes and files on Linux do;
 * EPIPE is thrown by the write itself. A descriptor in non-blocking mode that is
 * full (EAGAIN) hands the rest, and every later write, to `process.stdout`, which
 * waits for room.
 *
 * A string is encoded into one reused buffer, not a new one per write: `csg scan`
 * writes each push's release, and `Buffer.from` allocated ~4 MB of short-lived
 * buffers for a 4 MB file (docs/cli-startup.md "Scanning a 4 MB file").
 * `Buffer.write` encodes exactly as `Buffer.from` does (a lone surrogate as U+FFFD).
 */
import { writeSync } from 'node:fs';
import type { Writable } from 'node:stream';

/** UTF-8 takes at most 3 bytes per UTF-16 unit (a surrogate pair: 4 for 2). */
const MAX_BYTES_PER_UNIT = 3;
/** Larger strings get a buffer of their own rather than growing the reused one. */
const SCRATCH_MAX = 1 << 20;

export class OutputSink {
  private failure: Error | null = null;
  private scratch: Buffer | null = null;

  /** Standard output, written by descriptor until it would block. */
  static stdout(): OutputSink {
    return new OutputSink(null);
  }

  /**
   * `stream` null: descriptor `fd` (see `stdout`) until it would block, then the
   * stream `fallback()` gives (for descriptor 1, `process.stdout`).
   */
  constructor(
    private stream: Writable | null,
    private readonly fd = 1,
    private readonly fallback: () => Writable = () => process.stdout,
  ) {
    stream?.on('error', (error: Error) => {
      this.failure ??= error;
    });
  }

  async write(text: string | Uint8Array): Promise<void> {
    if (this.failure) throw this.failure;
    if (text.length === 0) return;
    const rest = this.stream === null ? this.writeToDescriptor(text) : text;
    if (rest === null || this.stream === null) return;
    if (!this.stream.write(rest)) await this.drained();
    if (this.failure) throw this.failure;
  }

  /** Writes all of `text` to the descriptor; what is left when it would block, or null. */
  private writeToDescriptor(text: string | Uint8Array): Uint8Array | null {
    const bytes = typeof text === 'string' ? this.encode(text) : text;
    let at = 0;
    try {
      while (at < bytes.length) at += writeSync(this.fd, bytes, at, bytes.length - at);
      return null;
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (code !== 'EAGAIN' && code !== 'EWOULDBLOCK') throw error;
      const stream = this.fallback();
      stream.on('error', (failure: Error) => {
        this.failure ??= failure;
      });
      this.stream = stream;
      // May lie in the reused buffer: safe to hand over, since every later write goes to
      // the stream and the buffer is never written again.
      return bytes.subarray(at);
    }
  }

  /** `text` as UTF-8, in the reused buffer when it fits there. */
  private encode(text: string): Uint8Array {
    const most = text.length * MAX_BYTES_PER_UNIT;
    if (most > SCRATCH_MAX) return Buffer.from(text, 'utf8');
    if (this.scratch === null || this.scratch.length < most) {
      this.scratch = Buffer.allocUnsafe(Math.min(SCRATCH_MAX, Math.max(most, 64 * 1024)));
    }
    return this.scratch.subarray(0, this.scratch.write(text, 0, 'utf8'));
  }

  /** Resolves on `drain` or `error`, removing both listeners either way. */
  private drained(): Promise<void> {
    const stream = this.stream as Writable;
    return new Promise((resolve) => {
      const done = (): void => {
        stream.off('drain', done);
        stream.off('error', done);
        resolve();
      };
      stream.on('drain', done);
      stream.on('error', done);
    });
  }
}
