/**
 * Byte strings: a body read as bytes carried in a JS string, one code unit
 * (0–255) per byte, the way `latin1` maps them. The byte-level wire path
 * (issue 20, Kimi's Connect envelopes, WIRE-FORMATS-2.md §2.3) runs through the
 * same StreamRewriter as every text format: its framer counts bytes as units,
 * so a length prefix in bytes stays a length in units, and any split of the
 * bytes is a split of the string at the same place (no decoder holds a partial
 * character between chunks). Only a whole frame's payload is decoded as UTF-8.
 */

/** Above this many bytes `String.fromCharCode(...)` is called per slice (argument limits). */
const SLICE = 0x2000;

export function byteStringOf(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += SLICE) {
    out += String.fromCharCode(...bytes.subarray(i, i + SLICE));
  }
  return out;
}

/** The bytes of a byte string; a code unit above 255 is a bug upstream, never truncated silently. */
export function bytesOfByteString(text: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit > 0xff)
      throw new RangeError(`not a byte string: unit ${String(unit)} at ${String(i)}`);
    bytes[i] = unit;
  }
  return bytes;
}

const encoder = new TextEncoder();

/** The UTF-8 bytes of `text`, as a byte string. */
export function utf8ByteString(text: string): string {
  return byteStringOf(encoder.encode(text));
}

/**
 * The text a byte string holds as UTF-8, or undefined when it is not valid
 * UTF-8 (then the frame cannot be read, and passes through as it came).
 */
export function textOfUtf8ByteString(bytes: string): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(
      bytesOfByteString(bytes),
    );
  } catch {
    return undefined;
  }
}
