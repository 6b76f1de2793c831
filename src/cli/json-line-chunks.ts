/**
 * `csg scan --chunks` input: JSON Lines, each line one JSON string that is one
 * chunk as it arrived (lone surrogates allowed: `"\ud83d"` parses to one). Blank
 * lines are allowed only at the end; a byte order mark before line 1 is
 * skipped. A bad line is a UsageError naming its number; the message never
 * quotes the line (it may hold a secret).
 */
import { UsageError } from './usage-error.ts';

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}

function parseChunkLine(line: string, lineNumber: number): string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    const where = position === undefined ? '' : ` at column ${Number(position) + 1}`;
    throw new UsageError(`line ${lineNumber}: not a JSON string (invalid JSON${where})`);
  }
  if (typeof value !== 'string') {
    throw new UsageError(`line ${lineNumber}: not a JSON string (${describe(value)})`);
  }
  return value;
}

/** The chunks encoded in JSON Lines text that arrives in pieces. */
export async function* jsonLineChunks(texts: AsyncIterable<string>): AsyncGenerator<string> {
  let buffered = '';
  let lineNumber = 0;
  /** Number of the first blank line of the current run of blank lines, if any. */
  let firstBlank: number | null = null;
  function* take(raw: string): Generator<string> {
    lineNumber++;
    // A byte order mark some editors put before the first line is not part of the JSON.
    const line = lineNumber === 1 && raw.startsWith('\ufeff') ? raw.slice(1) : raw;
    if (line.trim() === '') {
      firstBlank ??= lineNumber;
      return;
    }
    if (firstBlank !== null) {
      throw new UsageError(`line ${firstBlank}: not a JSON string (empty line)`);
    }
    yield parseChunkLine(line, lineNumber);
  }
  for await (const text of texts) {
    // Only the new text can hold a newline: a long line is not searched again per read.
    let nl = text.indexOf('\n');
    if (nl !== -1) nl += buffered.length;
    buffered += text;
    let from = 0;
    while (nl !== -1) {
      yield* take(buffered.slice(from, nl));
      from = nl + 1;
      nl = buffered.indexOf('\n', from);
    }
    buffered = buffered.slice(from);
  }
  if (buffered.length > 0) yield* take(buffered);
}
