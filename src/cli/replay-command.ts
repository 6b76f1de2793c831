/**
 * `csg replay CAPTURE [--format F] [--url URL] [--events OUT] [--compare] [--rules PACK]`
 * (DESIGN.md §5, issue 3): a captured response body, or every LLM response in
 * a HAR file exported from DevTools, run through its wire adapter and the
 * guard as the page hook would run it.
 *
 * - A raw body (a file, or "-" for standard input): the format is detected from
 *   the content (a WireProbe with the `--url` given, else none, a content type
 *   sniffed from the first characters, the first ~1 KB), or forced with
 *   `--format NAME`. Standard output gets exactly the re-serialised stream.
 * - A HAR (`--format har`, or auto when the JSON has `log.entries`): each entry
 *   whose response an adapter recognises (URL, method, mimeType, body; base64
 *   bodies decoded) is replayed (a byte-level format, Kimi's Connect envelopes,
 *   from the body's bytes: wire-event.ts `readsBytes`); standard output gets the same HAR with those
 *   bodies replaced (re-encoded as stored), every other byte kept. Entries no
 *   adapter recognises are left as they are and listed on stderr as
 *   `csg: unguarded: <method> <url> (<mimeType>)`, never passed as safe silently.
 *   A WebSocket entry (`_webSocketMessages`) whose URL or first received frame a
 *   socket format claims (Copilot, Open WebUI) has its received frames guarded
 *   and recorded back in the same structure (har-socket-replay.ts).
 * - `--events OUT`: JSON Lines, a guard event per line with `stream` (the HAR
 *   entry index; 0 for a raw body) and `channel` before the `csg scan --events`
 *   fields; then the stream's wire issues as
 *   `{"type":"wire-issue","stream","kind","detail"}`. Wire issues also go to stderr.
 * - `--compare`: per stream, one line on standard output saying whether the
 *   chunked replays equal the whole one (chunking-comparison.ts), nothing else;
 *   for a WebSocket entry, that each frame is one unit and chunking within a
 *   frame does not apply to sockets.
 *
 * Exit status: 1 when --compare found a difference; otherwise 3 when a stream
 * was blocked, else 0; 2 (one line `csg: …`) for bad usage, an unreadable
 * capture, an unknown format, a body no adapter recognises, a malformed HAR.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { CompiledPack } from '../core/rules/compile-pack.ts';
import { adapterByFormat, detectAdapter, wireAdapters } from '../core/wire/adapter-registry.ts';
import { type CaptureFacts, captureProbe } from '../core/wire/capture-format.ts';
import { aiSdkRequestShapeOfBody } from '../core/wire/requests/ai-sdk-request-shape.ts';
import { type ReplayOutcome, replayBody } from '../core/wire/replay-body.ts';
import type { SocketFormat } from '../core/wire/socket-answer-guard.ts';
import { byteStringOf, bytesOfByteString } from '../core/wire/byte-string.ts';
import {
  type Framing,
  type WireAdapter,
  type WireFormat,
  type WireProbe,
  readsBytes,
} from '../core/wire/wire-event.ts';
import { loadBuiltinPack } from './builtin-pack.ts';
import { type FlagSpec, flagValue, parseArguments } from './cli-arguments.ts';
import { compareChunkings, comparisonLine } from './chunking-comparison.ts';
import { closestLine } from './closest-line.ts';
import { eventRecord } from './event-record.ts';
import { fileErrorMessage } from './file-error-message.ts';
import {
  type HarCapture,
  type HarEntryBody,
  type HarSocketMessage,
  harBodyBytes,
  harIfAny,
  parseHar,
  rewriteHar,
} from './har-capture.ts';
import {
  replaySocket,
  socketComparisonLine,
  socketFormatOfEntry,
  socketUnchanged,
} from './har-socket-replay.ts';
import { replayHelp } from './help-text.ts';
import { decodedReads, openInputSource } from './input-source.ts';
import { OutputSink } from './output-sink.ts';
import { loadPackFile } from './pack-file.ts';
import { UsageError } from './usage-error.ts';

const replayFlags: FlagSpec = {
  format: false,
  url: false,
  events: false,
  compare: true,
  rules: false,
};

export const REPLAY_DIFFERS_EXIT = 1;
export const REPLAY_BLOCKED_EXIT = 3;

/** `auto`, `har`, or the name of a registered adapter's format. */
type FormatChoice = 'auto' | 'har' | WireFormat;

/** The formats `--format` takes: the registered adapters' (so a new adapter needs no change here). */
export function formatNames(): string[] {
  return ['auto', 'har', ...new Set(wireAdapters.map((adapter) => adapter.format))];
}

function parseFormat(value: string | undefined): FormatChoice {
  if (value === undefined) return 'auto';
  const names = formatNames();
  if (!names.includes(value)) {
    throw new UsageError(`unknown --format "${value}" (one of: ${names.join(', ')})`);
  }
  return value as FormatChoice;
}

/** The framings a sniffed content type can carry, best first. */
function framingsOf(contentType: string): Framing[] {
  if (contentType.includes('event-stream')) return ['sse'];
  if (contentType.includes('ndjson')) return ['ndjson'];
  if (contentType.includes('json')) return ['whole-body', 'length-prefixed'];
  return [];
}

/**
 * The adapter of a named format for this body: one that recognises it, else
 * one whose framing fits the body (a JSON history is not read as SSE), else
 * the format's streaming adapter.
 */
function adapterOfFormat(format: WireFormat, probe: WireProbe): WireAdapter | undefined {
  const candidates = wireAdapters.filter((adapter) => adapter.format === format);
  const detected = candidates.find((adapter) => adapter.detect(probe));
  if (detected !== undefined) return detected;
  for (const framing of framingsOf(probe.contentType)) {
    const fitting = candidates.find((adapter) => adapter.framing === framing);
    if (fitting !== undefined) return fitting;
  }
  return adapterByFormat(format);
}

/**
 * One response to replay: a raw body (index 0) or a HAR entry (its index).
 * `text` is what the adapter's rewriter reads: the decoded body, or for a
 * byte-level adapter its bytes as a byte string (byte-string.ts).
 */
interface ReplayStream {
  index: number;
  adapter: WireAdapter;
  text: string;
}

/** A replayed body as stored back: text, or bytes for a byte-level adapter. */
function storedBody(stream: ReplayStream, output: string): string | Uint8Array {
  return readsBytes(stream.adapter) ? bytesOfByteString(output) : output;
}

/** The `--events OUT` file, opened before any work so a bad path fails first. */
class ReplayEventsFile {
  private readonly fd: number;

  constructor(path: string) {
    try {
      this.fd = openSync(path, 'w');
    } catch (error) {
      throw new UsageError(`cannot write events to ${path}: ${fileErrorMessage(error)}`);
    }
  }

  write(stream: number, outcome: ReplayOutcome): void {
    let lines = '';
    for (const { channel, event } of outcome.events) {
      const head = `{"stream":${stream},"channel":${JSON.stringify(channel)},`;
      lines += head + eventRecord(event).slice(1) + '\n';
    }
    for (const issue of outcome.issues) {
      const { kind, detail } = issue;
      lines += JSON.stringify({ type: 'wire-issue', stream, kind, detail }) + '\n';
    }
    if (lines.length > 0) writeSync(this.fd, lines);
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** The reads as they come, each also kept as bytes (a byte-level body is replayed from them). */
async function* keepingBytes(reads: AsyncIterable<Buffer | string>, into: Buffer[]) {
  for await (const read of reads) {
    into.push(typeof read === 'string' ? Buffer.from(read, 'utf8') : read);
    yield read;
  }
}

async function readCapture(path: string): Promise<{ label: string; text: string; bytes: Buffer }> {
  const source = await openInputSource(path);
  const raw: Buffer[] = [];
  const parts: string[] = [];
  const reads = keepingBytes(source.reads, raw);
  for await (const text of decodedReads({ ...source, reads })) parts.push(text);
  return { label: source.label, text: parts.join(''), bytes: Buffer.concat(raw) };
}

/** What a HAR entry's body was recorded with, for detection (and for naming the closest format). */
function entryFacts(entry: HarEntryBody & { text: string }): CaptureFacts {
  const requestShape =
    entry.requestBody === undefined ? undefined : aiSdkRequestShapeOfBody(entry.requestBody);
  const recorded = entry.mimeType === 'x-unknown' ? '' : entry.mimeType;
  return {
    text: entry.text,
    url: entry.url,
    method: entry.method,
    headers: entry.headers,
    contentType: recorded,
    ...(requestShape === undefined ? {} : { requestShape }),
  };
}

/** The adapter of a HAR entry, or undefined (unguarded). */
function entryAdapter(entry: HarEntryBody): WireAdapter | undefined {
  if (entry.text === undefined) return undefined;
  // The request's shape and the marker headers tell AI SDK streams on any URL
  // (WIRE-FORMATS-2.md §1, "Detection pitfall"); the text stream has no other sign.
  const facts = entryFacts({ ...entry, text: entry.text });
  // The recorded type first; then the one the body shows (DevTools may record
  // none, or a generic one, for a stream).
  return (
    detectAdapter(captureProbe(facts)) ??
    (facts.contentType === ''
      ? undefined
      : detectAdapter(captureProbe({ ...facts, contentType: '' })))
  );
}

/** A WebSocket entry a socket format claims (har-socket-replay.ts). */
interface SocketStream {
  index: number;
  format: SocketFormat;
  messages: HarSocketMessage[];
}

function harStreams(har: HarCapture): { streams: ReplayStream[]; sockets: SocketStream[] } {
  const streams: ReplayStream[] = [];
  const sockets: SocketStream[] = [];
  for (const entry of har.entries) {
    const socket = socketFormatOfEntry(entry);
    if (socket !== undefined && entry.socketMessages !== undefined) {
      sockets.push({ index: entry.index, format: socket, messages: entry.socketMessages });
      continue;
    }
    const adapter = entryAdapter(entry);
    if (adapter !== undefined && entry.text !== undefined) {
      const text = readsBytes(adapter) ? byteStringOf(harBodyBytes(entry)) : entry.text;
      streams.push({ index: entry.index, adapter, text });
    } else {
      const { text } = entry;
      const closest = text === undefined ? '' : `; ${closestLine(entryFacts({ ...entry, text }))}`;
      process.stderr.write(
        `csg: unguarded: ${entry.method} ${entry.url} (${entry.mimeType})${closest}\n`,
      );
    }
  }
  return { streams, sockets };
}

function rawStream(
  { text, bytes }: { text: string; bytes: Buffer },
  format: FormatChoice,
  url: string | undefined,
): ReplayStream {
  const probe = captureProbe(url === undefined ? { text } : { text, url });
  const adapter =
    format === 'auto' || format === 'har' ? detectAdapter(probe) : adapterOfFormat(format, probe);
  if (adapter === undefined) {
    const closest = closestLine(url === undefined ? { text } : { text, url });
    throw new UsageError(`cannot recognise the capture format (${closest}); use --format`);
  }
  return { index: 0, adapter, text: readsBytes(adapter) ? byteStringOf(bytes) : text };
}

function reportIssues(stream: { index: number; format: string }, outcome: ReplayOutcome): void {
  for (const issue of outcome.issues) {
    process.stderr.write(
      `csg: stream ${stream.index} ${stream.format}: ${issue.kind}: ${issue.detail}\n`,
    );
  }
}

export async function replayCommand(argv: readonly string[]): Promise<number> {
  const args = parseArguments('replay', argv, replayFlags, 1);
  if (args.help) {
    process.stdout.write(replayHelp);
    return 0;
  }
  const path = args.positionals[0];
  if (path === undefined) {
    throw new UsageError(
      'missing CAPTURE (a response body or HAR file, or "-" for standard input)',
    );
  }
  const format = parseFormat(flagValue(args, 'format'));
  const rulesPath = flagValue(args, 'rules');
  const pack: CompiledPack =
    rulesPath === undefined ? await loadBuiltinPack() : await loadPackFile(rulesPath);
  const eventsPath = flagValue(args, 'events');
  const eventsFile = eventsPath === undefined ? null : new ReplayEventsFile(eventsPath);
  try {
    const capture = await readCapture(path);
    const { label, text } = capture;
    const har =
      format === 'har' ? parseHar(text, label) : format === 'auto' ? harIfAny(text, label) : null;
    const url = flagValue(args, 'url');
    if (har !== null && url !== undefined) {
      throw new UsageError('--url is for a response body; a HAR names the URL of each entry');
    }
    const { streams, sockets } =
      har === null ? { streams: [rawStream(capture, format, url)], sockets: [] } : harStreams(har);
    const out = OutputSink.stdout();
    let blocked = false;
    let differs = false;
    const bodies = new Map<number, string | Uint8Array>();
    for (const stream of streams) {
      let outcome: ReplayOutcome;
      if (args.flags.has('compare')) {
        const comparison = compareChunkings(stream.adapter, pack, stream.text);
        outcome = comparison.whole;
        if (comparison.difference !== null) differs = true;
        await out.write(comparisonLine(stream.index, stream.adapter.format, comparison) + '\n');
      } else {
        outcome = replayBody(stream.adapter, pack, [stream.text]);
        if (outcome.output !== stream.text) {
          bodies.set(stream.index, storedBody(stream, outcome.output));
        }
      }
      blocked ||= outcome.blocked;
      eventsFile?.write(stream.index, outcome);
      reportIssues({ index: stream.index, format: stream.adapter.format }, outcome);
    }
    const socketFrames = new Map<number, HarSocketMessage[]>();
    for (const socket of sockets) {
      const replay = replaySocket(socket.format, pack, socket.messages);
      const name = socket.format.adapter.format;
      if (args.flags.has('compare')) {
        await out.write(socketComparisonLine(socket.index, name, replay) + '\n');
      } else if (!socketUnchanged(socket.messages, replay)) {
        socketFrames.set(socket.index, replay.messages);
      }
      blocked ||= replay.outcome.blocked;
      eventsFile?.write(socket.index, replay.outcome);
      reportIssues({ index: socket.index, format: name }, replay.outcome);
    }
    if (!args.flags.has('compare')) {
      // An unchanged raw body goes out as read: its bytes, when they were what was replayed.
      const unchanged =
        streams[0] !== undefined && readsBytes(streams[0].adapter) ? capture.bytes : text;
      if (har === null) await out.write(bodies.get(0) ?? unchanged);
      else await out.write(rewriteHar(text, har.entries, bodies, socketFrames));
    }
    if (differs) return REPLAY_DIFFERS_EXIT;
    return blocked ? REPLAY_BLOCKED_EXIT : 0;
  } finally {
    eventsFile?.close();
  }
}
