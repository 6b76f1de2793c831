/**
 * Where `csg scan` reads from: a file or standard input, as the byte reads that
 * arrive, decoded by a streaming UTF-8 decoder so a character split across two
 * reads is decoded whole. Invalid bytes become U+FFFD, as a browser decodes
 * a response; a byte order mark is kept (the output is exactly the guarded input).
 */
import { open } from 'node:fs';
import { fdReads } from './fd-reads.ts';
import { fileErrorMessage } from './file-error-message.ts';
import { UsageError } from './usage-error.ts';

export interface InputSource {
  /** For messages: the file name, or "standard input". */
  label: string;
  reads: AsyncIterable<Buffer | string>;
}

export async function openInputSource(file: string | undefined): Promise<InputSource> {
  // Read by descriptor, not through process.stdin or a file stream (fd-reads.ts says why).
  if (file === undefined || file === '-') {
    return {
      label: 'standard input',
      reads: fdReads(0, { close: false, fallback: () => process.stdin }),
    };
  }
  try {
    const fd = await new Promise<number>((resolve, reject) => {
      open(file, 'r', (error, opened) => (error === null ? resolve(opened) : reject(error)));
    });
    return { label: file, reads: fdReads(fd, { close: true }) };
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${fileErrorMessage(error)}`);
  }
}

/** The decoded text of each read (possibly empty), then whatever the decoder still holds. */
export async function* decodedReads(source: InputSource): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  try {
    for await (const read of source.reads) {
      yield typeof read === 'string' ? read : decoder.decode(read, { stream: true });
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${source.label}: ${fileErrorMessage(error)}`);
  }
  const rest = decoder.decode();
  if (rest.length > 0) yield rest;
}
