/**
 * How the MAIN world turns a guarded body's network bytes into the text the
 * guard reads, and the guard's text back into bytes (remote-guard.ts):
 * - UTF-8 for every format but one: decoded in streaming mode (a character
 *   split across chunks is decoded whole), encoded piece by piece
 *   (piecewise-encoder.ts);
 * - bytes for a byte-level format (wire-event.ts `readsBytes`: Kimi's Connect
 *   envelopes, whose lengths count bytes): one code unit per byte, a byte
 *   string (core/wire/byte-string.ts), which the guard's framer reads as is.
 *
 * Page code may have replaced any global by the time a body arrives, so the
 * byte codec uses only built-ins captured when this script started, and reads
 * and writes only typed arrays and strings.
 */
import {
  apply,
  decodeText,
  KEEP_BOM,
  NativeTextDecoder,
  NativeTextEncoder,
  STREAM,
} from './intrinsics.ts';
import { PiecewiseEncoder } from './piecewise-encoder.ts';

export interface BodyCodec {
  /** The text of the next network chunk. */
  decode(chunk: Uint8Array): string;
  /** What the decoder still holds at the end of the body. */
  flush(): string;
  /** Adds a piece of guarded text to the chunk being rebuilt. */
  add(piece: string): void;
  readonly empty: boolean;
  /** The bytes of the pieces added since the last `take`. */
  take(): Uint8Array<ArrayBuffer>;
}

export function utf8BodyCodec(): BodyCodec {
  // ignoreBOM keeps a byte-order mark in the text, so it is re-emitted as sent.
  const decoder = new NativeTextDecoder('utf-8', KEEP_BOM);
  const pending = new PiecewiseEncoder(new NativeTextEncoder());
  return {
    decode: (chunk) => decodeText(decoder, chunk, STREAM),
    flush: () => decodeText(decoder),
    add: (piece) => pending.add(piece),
    get empty() {
      return pending.empty;
    },
    take: () => pending.take(),
  };
}

const fromCharCode = String.fromCharCode;
const charCodeAt = String.prototype.charCodeAt;
const NativeUint8Array = Uint8Array;

/** One call per byte: simple, and small in the MAIN-world script (its size is budgeted). */
function byteStringOf(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i++) text += fromCharCode(bytes[i] as number);
  return text;
}

export function byteBodyCodec(): BodyCodec {
  let pending = '';
  return {
    decode: byteStringOf,
    flush: () => '',
    add: (piece) => {
      pending += piece;
    },
    get empty() {
      return pending === '';
    },
    take: () => {
      const bytes = new NativeUint8Array(pending.length);
      for (let i = 0; i < pending.length; i++) bytes[i] = apply(charCodeAt, pending, [i]) as number;
      pending = '';
      return bytes;
    },
  };
}
