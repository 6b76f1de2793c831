/**
 * Issue 18 §3: a WebSocket's JSON messages through the generic structural adapter
 * (core/wire/adapters/structural.ts), with continuity across messages, so a secret
 * split across frames (OpenAI-style `choices[].delta` chunks pushed over a socket) is
 * redacted whole.
 *
 * The adapter reads a byte stream; a socket is a sequence of messages. Each message is
 * written as one line: a JSON value followed by a line feed, which the structural
 * framer reads as one frame per top-level value (NDJSON). The guard re-emits the same
 * frames with only their string values changed, each followed by its own line feed, so
 * the output is cut back into messages at the line feeds. A line feed cannot occur
 * inside a JSON string (it is escaped there), only as whitespace between tokens: those
 * (and carriage returns) are written as spaces, which parse the same. So a
 * pretty-printed message reaches the page on one line; its value is unchanged.
 *
 * Only messages that are one JSON value may be pushed (web-socket-hook.ts checks).
 * `cancel()` withdraws the stream when the socket failed for another reason.
 * The guard's stream ending before the socket did (a block: the answer was ended the
 * way its format ends a refused one) fails the socket closed: later messages could
 * carry the rest of what was blocked.
 *
 * MAIN world: no extension APIs.
 */
import type { ByteGuard } from './guarded-response.ts';
import type { SocketMessageGuard } from './page-hook-options.ts';
import type { SocketSink } from './remote-guard.ts';
import {
  call,
  decodeText,
  Encoder,
  getReader,
  NativeTextDecoder,
  NativeTextEncoder,
  readChunk,
  STREAM,
  WritableOf,
  Writer,
} from './intrinsics.ts';

const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** `message` on one line: its raw line breaks (whitespace between JSON tokens) as spaces. */
export function oneLine(message: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < message.length; i++) {
    const unit = message.charCodeAt(i);
    if (unit !== LINE_FEED && unit !== CARRIAGE_RETURN) continue;
    out += `${message.slice(from, i)} `;
    from = i + 1;
  }
  return from === 0 ? message : out + message.slice(from);
}

/**
 * A socket message guard over `guard` (a byte guard of the generic adapter); what the
 * page may receive goes to `sink`, one message per line the guard releases.
 */
export function socketJsonGuard(
  guard: ByteGuard,
  sink: SocketSink,
): SocketMessageGuard & { cancel(): void } {
  const encoder = new NativeTextEncoder();
  const decoder = new NativeTextDecoder();
  const writer = call<WritableStreamDefaultWriter<Uint8Array>>(
    WritableOf.getWriter,
    guard.writable,
  );
  const reader = getReader(guard.readable);
  let pending = '';
  let ended = false;
  let over = false;

  const fail = () => {
    if (over) return;
    over = true;
    sink.fail();
  };

  const release = (text: string) => {
    pending += text;
    const lines: string[] = [];
    for (let cut = pending.indexOf('\n'); cut >= 0; cut = pending.indexOf('\n')) {
      lines[lines.length] = pending.slice(0, cut);
      pending = pending.slice(cut + 1);
    }
    if (lines.length > 0) sink.deliver(lines);
  };

  const finish = () => {
    release(decodeText(decoder));
    if (pending.length > 0) sink.deliver([pending]);
    pending = '';
    if (over) return;
    if (!ended) {
      fail();
      return;
    }
    over = true;
    sink.done();
  };

  const pump = (): void => {
    readChunk(reader).then((result) => {
      if (over) return;
      if (result.done) {
        finish();
        return;
      }
      release(decodeText(decoder, result.value, STREAM));
      pump();
    }, fail);
  };
  pump();

  const write = (bytes: Uint8Array) =>
    call<Promise<void>>(Writer.write, writer, bytes).then(undefined, fail);

  return {
    push(message) {
      if (over || ended) return;
      write(call<Uint8Array>(Encoder.encode, encoder, `${oneLine(message)}\n`));
    },
    end() {
      if (over || ended) return;
      ended = true;
      call<Promise<void>>(Writer.close, writer).then(undefined, fail);
    },
    // The socket failed elsewhere: the stream is withdrawn, nothing more reaches the sink.
    cancel() {
      if (over) return;
      over = true;
      call<Promise<void>>(Writer.abort, writer).then(undefined, () => undefined);
    },
  };
}
