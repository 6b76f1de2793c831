/**
 * Perplexity (www.perplexity.ai), WIRE-FORMATS-2.md §4.1 and part 1 §5.5.
 * Confidence MED: gpt4free and Chat2API read the same shape; no live capture,
 * and no history route is known (§4.1), so only the answer stream is read.
 *
 * The answer to `POST /rest/sse/perplexity_ask` is SSE whose `data:` objects
 * carry `blocks[]`; the answer's text is in a block's
 * `diff_block: {field: "markdown_block", patches: [{op, path, value}]}`,
 * RFC-6902-style patches on the block's chunk list (part 1 §5.5):
 * - `add` (or `replace`) of a string at `/chunks/<n>`: the next chunk, a delta;
 * - `replace` at `""` with `{chunks: […]}` (or a string): the block's whole
 *   text anew (a reset): its first chunk a snapshot of the channel (a rewind
 *   when it does not extend what came before), the rest deltas.
 * One channel per block, named by its `intended_usage` (`ask_text`). Every
 * other block, patch and field passes byte for byte; a markdown patch of
 * another shape is reported, not guessed at.
 *
 * A block ends the answer the way the stream ends (§5.5): `event: end_of_stream`.
 */
import type { LocatedText } from '../located-text.ts';
import type { JsonPath } from '../json-string-span.ts';
import type { RawFrame } from '../raw-frame.ts';
import { isRecord, sseJson } from '../sse-json-render.ts';
import { sseLocatedEvent } from '../sse-located-event.ts';
import {
  type AdapterSession,
  type WireAdapter,
  type WireEvent,
  passThrough,
} from '../wire-event.ts';
import { recognisers } from '../wire-recognisers.ts';

const END_EVENT = 'end_of_stream';
const CHUNK_PATH = /^\/chunks\/(?:\d+|-)$/;

/** A patch's located texts, or undefined for a markdown patch of a shape the document does not show. */
function patchSlots(patch: unknown, channel: string, at: JsonPath): LocatedText[] | undefined {
  if (!isRecord(patch)) return undefined;
  const { op, path, value } = patch;
  if (op !== 'add' && op !== 'replace') return op === 'remove' ? [] : undefined;
  if (typeof path === 'string' && CHUNK_PATH.test(path) && typeof value === 'string') {
    return [{ slot: { channel, mode: 'delta', text: value }, path: [...at, 'value'] }];
  }
  if (path !== '' || op !== 'replace') return undefined;
  if (typeof value === 'string') {
    return [{ slot: { channel, mode: 'snapshot', text: value }, path: [...at, 'value'] }];
  }
  if (!isRecord(value) || !Array.isArray(value.chunks)) return undefined;
  const chunks: unknown[] = value.chunks;
  if (!chunks.every((c) => typeof c === 'string')) return undefined;
  return (chunks as string[]).map((text, i) => ({
    slot: { channel, mode: i === 0 ? 'snapshot' : 'delta', text },
    path: [...at, 'value', 'chunks', i],
  }));
}

/** The texts of one block's markdown diff, or the reason it is not understood. */
function blockSlots(block: unknown, k: number): LocatedText[] | string {
  if (!isRecord(block) || !isRecord(block.diff_block)) return [];
  const diff = block.diff_block;
  if (diff.field !== 'markdown_block' || !Array.isArray(diff.patches)) return [];
  const usage = typeof block.intended_usage === 'string' ? block.intended_usage : String(k);
  const patches: unknown[] = diff.patches;
  const located: LocatedText[] = [];
  for (const [p, patch] of patches.entries()) {
    const slots = patchSlots(patch, `block:${usage}`, ['blocks', k, 'diff_block', 'patches', p]);
    if (slots === undefined) return 'perplexity: markdown patch of an unknown shape';
    located.push(...slots);
  }
  return located;
}

function decodeFrame(frame: RawFrame): WireEvent {
  if (frame.sse === undefined || frame.sse.event === END_EVENT) return passThrough(frame);
  const json = sseJson(frame);
  if (!isRecord(json)) return passThrough(frame, 'perplexity: data is not a JSON object');
  if (!Array.isArray(json.blocks)) return passThrough(frame);
  const blocks: unknown[] = json.blocks;
  const located: LocatedText[] = [];
  for (const [k, block] of blocks.entries()) {
    const slots = blockSlots(block, k);
    if (typeof slots === 'string') return passThrough(frame, slots);
    located.push(...slots);
  }
  return sseLocatedEvent(frame, located);
}

function perplexitySession(): AdapterSession {
  let ended = false;
  return {
    decode: decodeFrame,
    emitted(event) {
      if (event.frame.sse?.event === END_EVENT) ended = true;
    },
    blockEnding: () => (ended ? '' : `event: ${END_EVENT}\ndata: {}\n\n`),
  };
}

export const perplexity: WireAdapter = {
  ...recognisers.perplexity,
  open: perplexitySession,
};
