/**
 * The reads of a file descriptor, as they arrive, without Node's streams
 * (issue 19 §2): `process.stdin` on a pipe is a `net.Socket`, and creating it
 * loads and compiles `net` and the whole stream machinery, about 15 ms of a
 * ~130 ms `echo hi | csg scan`. `fs.read` on the descriptor reads the same bytes
 * in the same order, each read what was there (up to READ_SIZE), as the stream
 * would deliver them.
 *
 * A descriptor in non-blocking mode (a parent may leave a shared pipe so) has
 * nothing to read now rather than blocking: `fs.read` fails with EAGAIN. The
 * failed read consumed nothing, so the rest is read through `fallback()` (for
 * standard input, `process.stdin`, which waits for data properly).
 *
 * A regular file (a path, or standard input redirected from one) is read with
 * `readSync` instead: its reads never wait for another process, and an `fs.read`
 * goes to libuv's thread pool and back through the event loop, so the main thread
 * idled through every read: 45 ms of idle samples in a `--cpu-prof` of `csg scan`
 * of a 4 MB file (issue 19, `scan_file`; docs/cli-startup.md "Scanning a 4 MB file").
 */
import { closeSync, fstatSync, read, readSync } from 'node:fs';

/** As much as one read of `process.stdin` or a file stream takes at a time. */
const READ_SIZE = 64 * 1024;

function readOnce(fd: number, buffer: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    read(fd, buffer, 0, buffer.length, null, (error, bytes) => {
      if (error === null) resolve(bytes);
      else reject(error);
    });
  });
}

function isWouldBlock(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'EAGAIN' || code === 'EWOULDBLOCK';
}

function isRegularFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false; // let the first read report what is wrong with the descriptor
  }
}

/** A regular file's reads, synchronously: the same bytes in the same order as `fs.read`. */
function* fileReads(fd: number): Generator<Buffer> {
  for (;;) {
    // A fresh buffer per read: a consumer may keep what it was given (decodedReads does not).
    const buffer = Buffer.allocUnsafe(READ_SIZE);
    const bytes = readSync(fd, buffer, 0, buffer.length, null);
    if (bytes === 0) return;
    yield buffer.subarray(0, bytes);
  }
}

export async function* fdReads(
  fd: number,
  options: { close: boolean; fallback?: () => AsyncIterable<Buffer | string> },
): AsyncGenerator<Buffer | string> {
  try {
    if (isRegularFile(fd)) {
      yield* fileReads(fd);
      return;
    }
    for (;;) {
      const buffer = Buffer.allocUnsafe(READ_SIZE);
      let bytes: number;
      try {
        bytes = await readOnce(fd, buffer);
      } catch (error) {
        if (options.fallback === undefined || !isWouldBlock(error)) throw error;
        yield* options.fallback();
        return;
      }
      if (bytes === 0) return;
      yield buffer.subarray(0, bytes);
    }
  } finally {
    if (options.close) closeSync(fd);
  }
}
