/**
 * Wraps a guard (bytes, or text for the plain-text path) so its stream's end is reported exactly once, however it
 * ends: the guard's output closed (`complete`, or `blocked`/`failed` when the
 * guard's events said so), the guard errored (`failed`), or the page cancelled
 * the body or the upstream failed (`aborted`). Plain underlying sources and sinks
 * are used because every browser calls their `cancel`/`abort`, unlike the newer
 * `Transformer.cancel`.
 *
 * The bytes pass unchanged; a read waits for the guard (no buffering of our own).
 * No extension APIs here.
 */
import type { StreamOutcome } from '../protocol/page-channel.ts';

export interface StreamEndReport {
  /** What the guard's events imply when its output closes. */
  readonly impliedOutcome: StreamOutcome;
  end(outcome: StreamOutcome): void;
}

export function reportingGuard<T = Uint8Array>(
  inner: ReadableWritablePair<T, T>,
  report: StreamEndReport,
): ReadableWritablePair<T, T> {
  let ended = false;
  const end = (outcome: StreamOutcome) => {
    if (ended) return;
    ended = true;
    report.end(outcome);
  };
  const writer = inner.writable.getWriter();
  const reader = inner.readable.getReader();
  const writable = new WritableStream<T>({
    write: (chunk) => writer.write(chunk),
    close: () => writer.close(),
    abort: (reason) => {
      end('aborted');
      return writer.abort(reason);
    },
  });
  const readable = new ReadableStream<T>(
    {
      async pull(controller) {
        let result: ReadableStreamReadResult<T>;
        try {
          result = await reader.read();
        } catch (error) {
          end('failed');
          throw error;
        }
        if (result.done) {
          end(report.impliedOutcome);
          controller.close();
        } else {
          controller.enqueue(result.value);
        }
      },
      cancel: (reason) => {
        end('aborted');
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return { writable, readable };
}
