/**
 * Drives a wire adapter the way the page does: bytes split into network
 * chunks, decoded, rewritten, re-encoded. Also the reference result a page
 * must end up with: the guard's single-chunk output of each channel's text.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getCorePack } from '../../src/core/rules/builtin-packs.ts';
import { type CompiledPack, compilePack } from '../../src/core/rules/compile-pack.ts';
import { byteStringOf, bytesOfByteString } from '../../src/core/wire/byte-string.ts';
import { replayBody } from '../../src/core/wire/replay-body.ts';
import { type WireAdapter, readsBytes } from '../../src/core/wire/wire-event.ts';
import { createWireTransform } from '../../src/core/wire/wire-transform.ts';

export function fixture(path: string): string {
  return readFileSync(fileURLToPath(new URL(`../fixtures/wire/${path}`, import.meta.url)), 'utf8');
}

/**
 * The wire bytes of a body as the adapter's rewriter reads it, and back: UTF-8
 * text, or a byte string for a byte-level adapter (wire-event.ts `readsBytes`).
 */
export function wireBytes(adapter: WireAdapter, text: string): Uint8Array {
  return readsBytes(adapter) ? bytesOfByteString(text) : new TextEncoder().encode(text);
}

export function wireText(adapter: WireAdapter, bytes: Uint8Array): string {
  return readsBytes(adapter) ? byteStringOf(bytes) : new TextDecoder().decode(bytes);
}

/** Splits bytes at the given fractions (cuts may fall inside UTF-8 sequences). */
export function splitBytes(bytes: Uint8Array, fractions: number[]): Uint8Array[] {
  const points = fractions.map((f) => Math.floor(f * (bytes.length + 1))).sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let last = 0;
  for (const p of points) {
    const at = Math.min(Math.max(p, last), bytes.length);
    out.push(bytes.slice(last, at));
    last = at;
  }
  out.push(bytes.slice(last));
  return out;
}

/** Runs chunks through the byte-level transform; returns the bytes the page receives. */
export async function throughTransform(
  adapter: WireAdapter,
  pack: CompiledPack,
  chunks: Uint8Array[],
): Promise<Uint8Array> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      controller.close();
    },
  });
  const body = source.pipeThrough(createWireTransform(adapter, pack));
  return new Uint8Array(await new Response(body).arrayBuffer());
}

export function wholeReplay(adapter: WireAdapter, pack: CompiledPack, text: string) {
  return replayBody(adapter, pack, [text]);
}

/** A `Response` carrying the given text as an SSE body, for the SDKs' stream readers. */
export function sseResponse(text: string): Response {
  return new Response(new TextEncoder().encode(text), {
    headers: { 'content-type': 'text/event-stream' },
  });
}

/** A pack holding one core rule with its action turned into `block`, for block-ending tests. */
export function blockingPack(ruleId: string): CompiledPack {
  const rule = getCorePack().rules.find((r) => r.id === ruleId);
  if (rule === undefined) throw new Error(`no core rule ${ruleId}`);
  return compilePack({
    name: 'block-test',
    version: '1',
    rules: [{ ...rule.spec, action: 'block' }],
  });
}
