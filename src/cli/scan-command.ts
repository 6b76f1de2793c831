/**
 * `csg scan [FILE] [--chunks] [--trace] [--events OUT] [--rules PACK] [--direction in|out]`
 * (DESIGN.md §5): the input streams through one StreamGuard; every release is
 * written as soon as the guard makes it, and nothing else reaches stdout.
 *
 * Each read of the input (or each JSON line with --chunks) is one push. After
 * a block, the rest of the input is still read (and, with --chunks, checked)
 * so the trace has a line per chunk and the writer upstream is not cut off;
 * the guard releases nothing more. On a bad input line the scan stops where it
 * is: text the guard still held is never released.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { StreamGuard } from '../core/guard/stream-guard.ts';
import type { GuardEvent } from '../core/guard/guard-event.ts';
import { loadBuiltinPack } from './builtin-pack.ts';
import { type FlagSpec, flagValue, parseArguments } from './cli-arguments.ts';
import { eventRecord } from './event-record.ts';
import { fileErrorMessage } from './file-error-message.ts';
import { scanHelp } from './help-text.ts';
import { decodedReads, openInputSource } from './input-source.ts';
import { jsonLineChunks } from './json-line-chunks.ts';
import { OutputSink } from './output-sink.ts';
import { UsageError } from './usage-error.ts';

const scanFlags: FlagSpec = {
  chunks: true,
  trace: true,
  events: false,
  rules: false,
  direction: false,
};

export const SCAN_BLOCKED_EXIT = 3;

/** The `--events OUT` file, written synchronously batch by batch. */
class EventsFile {
  private readonly fd: number;

  constructor(readonly path: string) {
    try {
      this.fd = openSync(path, 'w');
    } catch (error) {
      throw new UsageError(`cannot write events to ${path}: ${fileErrorMessage(error)}`);
    }
  }

  write(events: readonly GuardEvent[]): void {
    if (events.length === 0) return;
    writeSync(this.fd, events.map((e) => eventRecord(e) + '\n').join(''));
  }

  close(): void {
    closeSync(this.fd);
  }
}

export async function scanCommand(argv: readonly string[]): Promise<number> {
  const args = parseArguments('scan', argv, scanFlags, 1);
  if (args.help) {
    process.stdout.write(scanHelp);
    return 0;
  }
  const direction = flagValue(args, 'direction') ?? 'in';
  if (direction !== 'in' && direction !== 'out') {
    throw new UsageError(`--direction must be "in" or "out", not "${direction}"`);
  }
  const rulesPath = flagValue(args, 'rules');
  // Outgoing text uses the same pack until the outgoing policy exists (issue 5).
  // The pack compiler is imported only for --rules: a scan with the built-in pack never
  // parses it (about a third of the code a scan would load; issue 19 §2).
  const pack =
    rulesPath === undefined
      ? await loadBuiltinPack()
      : await (await import('./pack-file.ts')).loadPackFile(rulesPath);
  const source = await openInputSource(args.positionals[0]);
  const eventsPath = flagValue(args, 'events');
  const eventsFile = eventsPath === undefined ? null : new EventsFile(eventsPath);
  const trace = args.flags.has('trace');
  const texts = decodedReads(source);
  const chunks = args.flags.has('chunks') ? jsonLineChunks(texts) : texts;
  const out = OutputSink.stdout();
  const guard = new StreamGuard(pack);
  try {
    let index = 0;
    for await (const chunk of chunks) {
      const result = guard.push(chunk);
      eventsFile?.write(result.events);
      if (trace) await out.write(JSON.stringify({ chunk: index, emit: result.emit }) + '\n');
      else await out.write(result.emit);
      index++;
    }
    const result = guard.end();
    eventsFile?.write(result.events);
    if (trace) await out.write(JSON.stringify({ end: true, emit: result.emit }) + '\n');
    else await out.write(result.emit);
  } finally {
    eventsFile?.close();
  }
  return guard.isBlocked ? SCAN_BLOCKED_EXIT : 0;
}
