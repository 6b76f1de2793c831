/**
 * src/cli/fd-reads.ts: `csg` reads standard input and files by descriptor, not
 * through Node's streams (issue 19 §2). The reads give exactly the bytes, in
 * order; a descriptor in non-blocking mode with nothing to read yet (EAGAIN)
 * hands over to the fallback without losing a byte.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readSync, writeSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { fdReads } from '../../../src/cli/fd-reads.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';
import { TempFiles } from './temp-files.ts';

const files = new TempFiles();
afterAll(() => files.remove());

async function collect(reads: AsyncIterable<Buffer | string>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const read of reads) parts.push(typeof read === 'string' ? Buffer.from(read) : read);
  return Buffer.concat(parts);
}

describe('fdReads', () => {
  it('gives exactly the bytes of a file, in reads of at most 64 KiB, and closes it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 200_000 }), async (bytes) => {
        const path = files.write('input.bin', Buffer.from(bytes));
        const fd = openSync(path, 'r');
        const sizes: number[] = [];
        const reads = fdReads(fd, { close: true });
        const parts: Buffer[] = [];
        for await (const read of reads) {
          sizes.push(read.length);
          parts.push(read as Buffer);
        }
        expect(Buffer.concat(parts)).toEqual(Buffer.from(bytes));
        expect(sizes.every((n) => n > 0 && n <= 64 * 1024)).toBe(true);
        expect(() => closeSync(fd)).toThrow(/EBADF/);
      }),
      { numRuns: Math.min(PROPERTY_RUNS, 50) },
    );
  });

  it('reads a regular file from where its descriptor stands, as standard input redirected from it', async () => {
    // `csg scan < file` after a parent has read part of the file: the reads start at the
    // descriptor's position, not at the start of the file.
    const bytes = Buffer.from('skipped by the parent; the rest is ours\n'.repeat(3000));
    const path = files.write('positioned.txt', bytes);
    const fd = openSync(path, 'r');
    const skipped = readSync(fd, Buffer.alloc(23), 0, 23, null);
    expect(skipped).toBe(23);
    expect(await collect(fdReads(fd, { close: true }))).toEqual(bytes.subarray(23));
  });

  it('hands a non-blocking descriptor with nothing to read to the fallback', async () => {
    const fifo = files.path('fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY);
    try {
      writeSync(writer, 'first ');
      // The first read gets what is there; the next finds nothing yet: EAGAIN.
      const got = await collect(
        fdReads(reader, {
          close: false,
          fallback: async function* () {
            yield 'rest';
          },
        }),
      );
      expect(got.toString()).toBe('first rest');
    } finally {
      closeSync(writer);
      closeSync(reader);
    }
  });

  it('passes on any other read error', async () => {
    const fd = openSync(files.dir, 'r'); // a directory: EISDIR on read
    await expect(
      collect(
        fdReads(fd, {
          close: true,
          fallback: async function* () {
            yield 'never';
          },
        }),
      ),
    ).rejects.toThrow(/EISDIR/);
  });
});
