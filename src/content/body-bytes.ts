/**
 * A guarded body's bytes in the ISOLATED world (issue 19 §5): the MAIN world
 * hands over each network chunk's bytes as they came (page-channel.ts
 * `guard-chunk`); here they are decoded for the guard, and what the guard
 * releases goes back as bytes. When the guard released exactly the text the
 * bytes since the last release hold (no rule fired: the common case, and a
 * history document the guard did not change), the very bytes go back: nothing
 * is re-encoded, and the page reads what the network sent.
 *
 * Exactness: the bytes go back only when they decode, on their own, to the
 * text released, so the page's own decoding of them gives that text:
 * - the released text equals the text decoded since the last release;
 * - that stretch of bytes starts and ends on a character boundary (the
 *   streaming decoder held no part of a character there: `heldAtEnd`).
 * Otherwise the released text is encoded, as the MAIN world did before.
 *
 * UTF-8 (byte-order mark kept, as sent), or, for a byte-level format
 * (wire-event.ts `readsBytes`: Kimi's Connect envelopes), one code unit per
 * byte (core/wire/byte-string.ts), which the guard's framer reads as is.
 *
 * No extension APIs here.
 */

export interface BodyBytes {
  /** The text of the next bytes, for the guard. */
  decode(bytes: Uint8Array): string;
  /** What the decoder still holds at the end of the body (U+FFFD for a cut character). */
  flush(): string;
  /**
   * The guard released `text` for the bytes decoded since the last release: the
   * bytes for the page. `end` is the body's end (everything was decoded).
   */
  release(text: string, end: boolean): Uint8Array<ArrayBuffer>;
}

/**
 * How many bytes at the end of `tail` (the stream's last bytes) a streaming UTF-8
 * decoder still holds: the start of a character not yet complete. A lead byte
 * among the last three whose character needs more bytes than follow it; 0 for
 * anything else (a decoder holds nothing after ASCII, a complete character or
 * bytes it replaced). It may name a hold where the decoder replaced an invalid
 * sequence instead, never the other way: then the bytes are only re-encoded.
 */
export function heldAtEnd(tail: Uint8Array): number {
  for (let back = 1; back <= 3 && back <= tail.length; back++) {
    const byte = tail[tail.length - back] as number;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    if (byte < 0xc0) return 0; // ASCII
    const needs = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    return back < needs ? back : 0;
  }
  return 0;
}

const EMPTY = new Uint8Array(0);

/** `parts` as one array (the only one, copied: the caller may post it on). */
function joined(parts: readonly Uint8Array[], length: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function byteStringBytes(text: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

function byteString(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x2000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x2000));
  }
  return text;
}

export function createBodyBytes(byteLevel: boolean): BodyBytes {
  // ignoreBOM keeps a byte-order mark in the text, so it is re-emitted as sent.
  const decoder = byteLevel ? undefined : new TextDecoder('utf-8', { ignoreBOM: true });
  const encoder = new TextEncoder();
  /** Since the last release: the bytes, their length, the text decoded from them. */
  let parts: Uint8Array[] = [];
  let length = 0;
  let decoded = '';
  /** The last up to three bytes decoded (to know whether the decoder holds some). */
  let tail = EMPTY;
  /** The stretch since the last release starts on a character boundary. */
  let startsClean = true;

  const keepTail = (bytes: Uint8Array) => {
    if (bytes.length >= 3) {
      tail = bytes.slice(bytes.length - 3);
      return;
    }
    const both = new Uint8Array(tail.length + bytes.length);
    both.set(tail);
    both.set(bytes, tail.length);
    tail = both.slice(Math.max(0, both.length - 3));
  };

  return {
    decode(bytes) {
      const text =
        decoder === undefined ? byteString(bytes) : decoder.decode(bytes, { stream: true });
      if (bytes.length > 0) {
        parts.push(bytes);
        length += bytes.length;
        if (decoder !== undefined) keepTail(bytes);
      }
      decoded += text;
      return text;
    },
    flush() {
      const text = decoder === undefined ? '' : decoder.decode();
      decoded += text;
      tail = EMPTY;
      return text;
    },
    release(text, end) {
      // Nothing released: the bytes wait for the text that will stand for them.
      if (text === '') return EMPTY;
      const endsClean = end || heldAtEnd(tail) === 0;
      const same = startsClean && endsClean && text.length === decoded.length && text === decoded;
      const out = same
        ? parts.length === 1 && parts[0]?.length === parts[0]?.buffer.byteLength
          ? (parts[0] as Uint8Array<ArrayBuffer>)
          : joined(parts, length)
        : decoder === undefined
          ? byteStringBytes(text)
          : encoder.encode(text);
      parts = [];
      length = 0;
      decoded = '';
      startsClean = endsClean;
      return out;
    },
  };
}
