/**
 * Text in, guarded text out, through a byte guard (`ByteGuard`, guarded-response.ts).
 *
 * XMLHttpRequest and EventSource hand the page decoded text, not bytes. The hooks still
 * use the very byte guard the fetch hook uses (`createWireGuard`): the text is encoded
 * to UTF-8 on the way in and decoded (streaming, so a character split across guard
 * chunks is never broken) on the way out. Why not a text-level guard: one factory for
 * every hook means one place where guard events are reported (the bridge wraps
 * `createWireGuard`), and the wire transform is the tested path. The cost is one
 * encode/decode per chunk, small next to the guard itself. The text a browser exposes
 * never holds a lone surrogate (it is decoded from bytes), so the round trip is exact.
 *
 * MAIN world: no extension APIs.
 */

import type { ByteGuard } from './guarded-response.ts';
import {
  call,
  decodeText,
  Encoder,
  getReader,
  KEEP_BOM,
  NativeTextDecoder,
  STREAM,
  NativeTextEncoder,
  Reader,
  readChunk,
  WritableOf,
  Writer,
} from './intrinsics.ts';

const ignore = () => undefined;

export interface GuardedTextSink {
  /** The next piece of guarded text, in order. */
  text(chunk: string): void;
  /** The guard released everything (the input ended, or the guard ended it: a block). */
  end(): void;
  /** The guard failed: nothing more comes (fail closed). */
  fail(error: unknown): void;
}

export class GuardedTextPump {
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly encoder = new NativeTextEncoder();
  private closed = false;
  private cancelled = false;

  constructor(guard: ByteGuard, sink: GuardedTextSink) {
    this.writer = call(WritableOf.getWriter, guard.writable);
    this.reader = getReader(guard.readable);
    void this.drain(sink);
  }

  /** Feeds the next piece of the original text. Ignored once closed or cancelled. */
  write(text: string): void {
    if (this.closed || this.cancelled || text === '') return;
    // A rejected write means the guard ended or failed: the reader reports which.
    const bytes = call(Encoder.encode, this.encoder, text);
    call<Promise<void>>(Writer.write, this.writer, bytes).catch(ignore);
  }

  /** The original text ended: the guard releases what it holds, then `sink.end()`. */
  close(): void {
    if (this.closed || this.cancelled) return;
    this.closed = true;
    call<Promise<void>>(Writer.close, this.writer).catch(ignore);
  }

  /** Stops everything; the sink hears nothing more. */
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    call<Promise<void>>(Writer.abort, this.writer).catch(ignore);
    call<Promise<void>>(Reader.cancel, this.reader).catch(ignore);
  }

  get isCancelled(): boolean {
    return this.cancelled;
  }

  private async drain(sink: GuardedTextSink): Promise<void> {
    // ignoreBOM: a byte-order mark the guard re-emits stays in the text, as sent.
    const decoder = new NativeTextDecoder('utf-8', KEEP_BOM);
    try {
      for (;;) {
        const { done, value } = await readChunk(this.reader);
        if (this.cancelled) return;
        if (done) {
          const tail = decodeText(decoder);
          if (tail !== '') sink.text(tail);
          sink.end();
          return;
        }
        const text = decodeText(decoder, value, STREAM);
        if (text !== '') sink.text(text);
      }
    } catch (error) {
      if (!this.cancelled) sink.fail(error);
    }
  }
}
