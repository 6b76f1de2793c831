/**
 * The byte string codec of a byte-level format (wire-event.ts `readsBytes`: Kimi's
 * Connect envelopes, whose lengths count bytes) for the send hook's request bodies
 * (outgoing-hook.ts): one code unit per byte (core/wire/byte-string.ts), which the
 * guard's framer reads as is. Response bodies cross to the bridge as bytes and are
 * decoded there (content/body-bytes.ts).
 *
 * Page code may have replaced any global by the time a body arrives, so the
 * byte codec uses only built-ins captured when this script started, and reads
 * and writes only typed arrays and strings.
 */
import { apply } from './intrinsics.ts';

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
