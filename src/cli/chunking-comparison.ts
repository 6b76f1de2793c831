/**
 * `csg replay --compare` (seed 002 §7.1): a captured body replayed whole (one
 * network chunk) and chunked several ways — per 1, 3 and 17 UTF-16 code units
 * (splitting surrogate pairs and frames anywhere) and per 5 UTF-8 bytes through
 * a streaming decoder (splitting multi-byte characters) — must give the same
 * output, the same events per guard channel, the same block verdict and the
 * same wire issues (DESIGN.md §3.1). The first difference found is described
 * without quoting the text (it may hold a secret): lengths, offsets, rule ids.
 */
import type { GuardOptions } from '../core/guard/stream-guard.ts';
import type { CompiledPack } from '../core/rules/compile-pack.ts';
import { type ReplayOutcome, replayBody } from '../core/wire/replay-body.ts';
import type { WireAdapter } from '../core/wire/wire-event.ts';
import { eventRecord } from './event-record.ts';

export interface Chunking {
  /** As printed: `3` (code units per chunk) or `5 bytes`. */
  label: string;
  chunks(text: string): Iterable<string>;
}

function* unitChunks(text: string, size: number): Generator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

function* byteChunks(text: string, size: number): Generator<string> {
  const bytes = Buffer.from(text, 'utf8');
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  for (let i = 0; i < bytes.length; i += size) {
    yield decoder.decode(bytes.subarray(i, i + size), { stream: true });
  }
  yield decoder.decode();
}

/** A lone surrogate has no UTF-8 form: such a text cannot be cut into bytes and back. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function chunkingsFor(text: string): Chunking[] {
  const list: Chunking[] = [1, 3, 17].map((size) => ({
    label: String(size),
    chunks: (t: string) => unitChunks(t, size),
  }));
  if (!LONE_SURROGATE.test(text)) {
    list.push({ label: '5 bytes', chunks: (t: string) => byteChunks(t, 5) });
  }
  return list;
}

export interface Comparison {
  whole: ReplayOutcome;
  /** The first chunking that differs from the whole replay, and how; null when none does. */
  difference: { chunking: string; what: string } | null;
}

function eventsByChannel(outcome: ReplayOutcome): Map<string, string[]> {
  const byChannel = new Map<string, string[]>();
  for (const { channel, event } of outcome.events) {
    const list = byChannel.get(channel) ?? [];
    list.push(eventRecord(event));
    byChannel.set(channel, list);
  }
  return byChannel;
}

function firstDifference(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) return i;
  return n;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** What differs between the whole and a chunked replay, or null when nothing does. */
export function describeDifference(whole: ReplayOutcome, chunked: ReplayOutcome): string | null {
  if (whole.blocked !== chunked.blocked) {
    return `blocked: whole ${whole.blocked ? 'yes' : 'no'}, chunked ${chunked.blocked ? 'yes' : 'no'}`;
  }
  // Events are compared per guard channel: the order across channels follows
  // frame timing, the order within one channel is the guard's (DESIGN.md §3.1).
  const a = eventsByChannel(whole);
  const b = eventsByChannel(chunked);
  const channels = [...new Set([...a.keys(), ...b.keys()])].sort();
  for (const channel of channels) {
    const left = a.get(channel) ?? [];
    const right = b.get(channel) ?? [];
    const n = Math.max(left.length, right.length);
    for (let i = 0; i < n; i++) {
      if (left[i] === right[i]) continue;
      return (
        `events of channel ${channel}: whole has ${left.length}, chunked has ${right.length}; ` +
        `#${i}: whole ${left[i] ?? 'none'}, chunked ${right[i] ?? 'none'}`
      );
    }
  }
  if (whole.output !== chunked.output) {
    const at = firstDifference(whole.output, chunked.output);
    return (
      `output ${whole.output.length} vs ${plural(chunked.output.length, 'character')}, ` +
      `first difference at offset ${at}`
    );
  }
  const issues = (o: ReplayOutcome) =>
    o.issues
      .map((i) => `${i.kind}: ${i.detail}`)
      .sort()
      .join('; ');
  if (issues(whole) !== issues(chunked)) {
    return `wire issues: whole [${issues(whole)}], chunked [${issues(chunked)}]`;
  }
  return null;
}

export function compareChunkings(
  adapter: WireAdapter,
  pack: CompiledPack,
  text: string,
  guard: GuardOptions = {},
): Comparison {
  const whole = replayBody(adapter, pack, [text], guard);
  for (const chunking of chunkingsFor(text)) {
    const chunked = replayBody(adapter, pack, chunking.chunks(text), guard);
    const what = describeDifference(whole, chunked);
    if (what !== null) return { whole, difference: { chunking: chunking.label, what } };
  }
  return { whole, difference: null };
}

/** The `--compare` line of one stream (without its newline). */
export function comparisonLine(stream: number, format: string, comparison: Comparison): string {
  const head = `stream ${stream} ${format}: `;
  const { whole, difference } = comparison;
  if (difference !== null)
    return `${head}DIFFERS at chunking ${difference.chunking}: ${difference.what}`;
  const blocked = whole.blocked ? ', blocked' : '';
  return `${head}chunked = whole (${plural(whole.events.length, 'event')}${blocked})`;
}
