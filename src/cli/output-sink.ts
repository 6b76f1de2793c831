/**
 * Writes text to a stream in order, waiting for `drain` when the stream's buffer
 * is full, so a large scan never piles its whole output up in memory. A stream
 * error (e.g. EPIPE when the reader went away) rejects the next write.
 */
import type { Writable } from 'node:stream';

export class OutputSink {
  private failure: Error | null = null;

  constructor(private readonly stream: Writable) {
    stream.on('error', (error: Error) => {
      this.failure ??= error;
    });
  }

  async write(text: string | Uint8Array): Promise<void> {
    if (this.failure) throw this.failure;
    if (text.length === 0) return;
    if (!this.stream.write(text)) await this.drained();
    if (this.failure) throw this.failure;
  }

  /** Resolves on `drain` or `error`, removing both listeners either way. */
  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.stream.off('drain', done);
        this.stream.off('error', done);
        resolve();
      };
      this.stream.on('drain', done);
      this.stream.on('error', done);
    });
  }
}
