/**
 * Bytes in, bytes out: a `TransformStream` that turns network chunks into the
 * rewriter's text, runs the rewriter, and turns what it releases back into
 * bytes. On a block the readable side closes after the provider's ending, and
 * the upstream is cancelled.
 *
 * Two codecs (wire-event.ts `readsBytes`):
 * - text (every adapter but one): UTF-8 decoded in streaming mode, so a
 *   character split across network chunks never becomes U+FFFD;
 * - bytes (Connect envelopes, Kimi, WIRE-FORMATS-2.md §2.3): each byte one
 *   code unit of a byte string (byte-string.ts), so the framer counts the
 *   envelopes' byte lengths and decodes a payload only once it is whole.
 */
import type { CompiledPack } from '../rules/compile-pack.ts';
import { byteStringOf, bytesOfByteString } from './byte-string.ts';
import { type RewriterOptions, StreamRewriter } from './stream-rewriter.ts';
import { type WireAdapter, readsBytes } from './wire-event.ts';

/** How network bytes become the rewriter's text and back, chunk by chunk. */
interface WireCodec {
  decode(chunk: Uint8Array): string;
  /** What the decoder still holds when the body ends. */
  flush(): string;
  encode(text: string): Uint8Array;
}

function utf8Codec(): WireCodec {
  // ignoreBOM keeps a byte-order mark in the text, so it is re-emitted as sent.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const encoder = new TextEncoder();
  return {
    decode: (chunk) => decoder.decode(chunk, { stream: true }),
    flush: () => decoder.decode(),
    encode: (text) => encoder.encode(text),
  };
}

const byteCodec: WireCodec = {
  decode: byteStringOf,
  flush: () => '',
  encode: bytesOfByteString,
};

export function createWireTransform(
  adapter: WireAdapter,
  pack: CompiledPack,
  options: RewriterOptions = {},
): TransformStream<Uint8Array, Uint8Array> {
  const codec = readsBytes(adapter) ? byteCodec : utf8Codec();
  const rewriter = new StreamRewriter(adapter, pack, options);
  const deliver = (text: string, controller: TransformStreamDefaultController<Uint8Array>) => {
    if (text.length > 0) controller.enqueue(codec.encode(text));
    if (rewriter.isBlocked) controller.terminate();
  };
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (rewriter.isBlocked) return;
      deliver(rewriter.push(codec.decode(chunk)), controller);
    },
    flush(controller) {
      if (rewriter.isBlocked) return;
      const tail = rewriter.push(codec.flush());
      deliver(tail + rewriter.end(), controller);
    },
  });
}
