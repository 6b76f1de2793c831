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
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { OutputSink } from '../../../src/cli/output-sink.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';
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

  it('writes any strings as UTF-8 exactly as Buffer.from encodes them, whatever their sizes', async () => {
    // Any UTF-16 units, lone surrogates included; some strings are repeated past the size
    // the sink's reused buffer takes (1 MiB, i.e. ~350K units), so both paths and every
    // reuse of the buffer after a longer or shorter string are covered.
    const units = fc
      .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 40 })
      .map((codes) => String.fromCharCode(...codes));
    const piece = fc.oneof(
      { weight: 8, arbitrary: units },
      { weight: 1, arbitrary: fc.tuple(units, fc.integer({ min: 1, max: 400_000 })) },
    );
    const texts = fc
      .array(piece, { maxLength: 8 })
      .map((pieces) =>
        pieces.map((p) =>
          typeof p === 'string' ? p : p[0].repeat(Math.ceil(p[1] / Math.max(1, p[0].length))),
        ),
      );
    await fc.assert(
      fc.asyncProperty(texts, async (strings) => {
        const path = files.path('any.txt');
        const fd = openSync(path, 'w');
        const sink = new OutputSink(null, fd);
        for (const text of strings) await sink.write(text);
        closeSync(fd);
        const read = openSync(path, 'r');
        const written = drain(read);
        closeSync(read);
        expect(written.equals(Buffer.concat(strings.map((t) => Buffer.from(t, 'utf8'))))).toBe(
          true,
        );
      }),
      { numRuns: Math.min(PROPERTY_RUNS, 100) },
    );
  });

  /**
   * Writes `first` then `after` through a sink on a non-blocking FIFO that nobody
   * reads until the end; what came out of the pipe and what the fallback took.
   */
  async function throughFullPipe(
    name: string,
    first: string | Buffer,
    after: string,
  ): Promise<{ piped: Buffer; taken: Buffer[] }> {
    const fifo = files.path(name);
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    const fallback = new PassThrough();
    const taken: Buffer[] = [];
    fallback.on('data', (chunk: Buffer) => taken.push(chunk));
    try {
      const sink = new OutputSink(null, writer, () => fallback);
      await sink.write(first);
      await sink.write(after);
      // Everything written to the fallback has come out of it.
      fallback.end();
      await finished(fallback);
      return { piped: drain(reader), taken };
    } finally {
      closeSync(writer);
      closeSync(reader);
    }
  }

  it('hands the rest of a long string to the fallback stream when a non-blocking pipe is full', async () => {
    // Encoded in the sink's reused buffer (300K units, under its 1 MiB), larger than a pipe.
    const first = 'ß'.repeat(150_000) + 'end of first';
    const { piped, taken } = await throughFullPipe('fifo-text', first, '∂ after');
    expect(piped.length).toBeGreaterThan(0);
    expect(Buffer.concat([piped, ...taken]).toString()).toBe(`${first}∂ after`);
  });

  it('hands the rest to the fallback stream when a non-blocking pipe is full', async () => {
    // Larger than any pipe's buffer here (64 KiB): the descriptor fills, then EAGAIN.
    const first = Buffer.alloc(300_000, 'a');
    first.write('start', 0);
    const { piped, taken } = await throughFullPipe('fifo', first, 'and after');
    expect(piped.length).toBeGreaterThan(0);
    expect(piped.length).toBeLessThan(first.length);
    expect(Buffer.concat([piped, ...taken]).toString()).toBe(`${first.toString()}and after`);
  });
});
