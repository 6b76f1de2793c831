/**
 * Bytes in, bytes out: a `TransformStream` that decodes UTF-8 in streaming
 * mode (a character split across network chunks never becomes U+FFFD), runs
 * the rewriter, and encodes what it releases. On a block the readable side
 * closes after the provider's ending, and the upstream is cancelled.
 */
import type { CompiledPack } from '../rules/compile-pack.ts';
import { type RewriterOptions, StreamRewriter } from './stream-rewriter.ts';
import type { WireAdapter } from './wire-event.ts';

export function createWireTransform(
  adapter: WireAdapter,
  pack: CompiledPack,
  options: RewriterOptions = {},
): TransformStream<Uint8Array, Uint8Array> {
  // ignoreBOM keeps a byte-order mark in the text, so it is re-emitted as sent.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const encoder = new TextEncoder();
  const rewriter = new StreamRewriter(adapter, pack, options);
  const deliver = (text: string, controller: TransformStreamDefaultController<Uint8Array>) => {
    if (text.length > 0) controller.enqueue(encoder.encode(text));
    if (rewriter.isBlocked) controller.terminate();
  };
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (rewriter.isBlocked) return;
      deliver(rewriter.push(decoder.decode(chunk, { stream: true })), controller);
    },
    flush(controller) {
      if (rewriter.isBlocked) return;
      const tail = rewriter.push(decoder.decode());
      deliver(tail + rewriter.end(), controller);
    },
  });
}
