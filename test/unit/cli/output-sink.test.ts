/**
 * src/cli/output-sink.ts: `csg` writes standard output by descriptor (issue 19
 * §2). Every byte arrives once and in order; a descriptor in non-blocking mode
 * that is full (EAGAIN) hands the rest, and every later write, to the fallback
 * stream, which waits for room.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { OutputSink } from '../../../src/cli/output-sink.ts';
import { TempFiles } from './temp-files.ts';

const files = new TempFiles();
afterAll(() => files.remove());

/** Everything the reader end holds now. */
function drain(fd: number): Buffer {
  const parts: Buffer[] = [];
  const buffer = Buffer.alloc(1 << 16);
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buffer, 0, buffer.length, null);
    } catch (error) {
      if ((error as { code?: string }).code === 'EAGAIN') break;
      throw error;
    }
    if (n === 0) break;
    parts.push(Buffer.from(buffer.subarray(0, n)));
  }
  return Buffer.concat(parts);
}

describe('OutputSink by descriptor', () => {
  it('writes every byte in order, to a file', async () => {
    const path = files.path('out.txt');
    const fd = openSync(path, 'w');
    const sink = new OutputSink(null, fd);
    await sink.write('one ');
    await sink.write(new Uint8Array([0x74, 0x77, 0x6f]));
    await sink.write('');
    await sink.write(' ∂rei\n');
    closeSync(fd);
    const read = openSync(path, 'r');
    expect(drain(read).toString()).toBe('one two ∂rei\n');
    closeSync(read);
  });

  it('hands the rest to the fallback stream when a non-blocking pipe is full', async () => {
    const fifo = files.path('fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    const fallback = new PassThrough();
    const taken: Buffer[] = [];
    fallback.on('data', (chunk: Buffer) => taken.push(chunk));
    try {
      const sink = new OutputSink(null, writer, () => fallback);
      // Larger than any pipe's buffer here (64 KiB): the descriptor fills, then EAGAIN.
      const first = Buffer.alloc(300_000, 'a');
      first.write('start', 0);
      await sink.write(first);
      await sink.write('and after');
      // Everything written to the fallback has come out of it.
      fallback.end();
      await finished(fallback);
      const piped = drain(reader);
      expect(piped.length).toBeGreaterThan(0);
      expect(piped.length).toBeLessThan(first.length);
      expect(Buffer.concat([piped, ...taken]).toString()).toBe(`${first.toString()}and after`);
    } finally {
      closeSync(writer);
      closeSync(reader);
    }
  });
});
