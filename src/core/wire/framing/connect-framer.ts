/**
 * Connect streaming envelopes (Kimi, WIRE-FORMATS-2.md §2.2–§2.3), framed on a
 * byte string (byte-string.ts: one code unit per byte), so that the 4-byte
 * big-endian length counts exactly what it counts on the wire: bytes.
 *
 * An envelope is `[flags:1][length:4, big-endian][payload: length bytes]`.
 * Flags: `0x00` data, `0x02` end of stream (a JSON trailer, often `{}`),
 * `0x01` compressed (not seen on the web, §2.3). A frame is released only
 * once its whole payload has arrived, and its payload is decoded as UTF-8 only
 * then: a split inside the header or inside a multi-byte character changes
 * nothing. A body that does not open like an envelope (a flags byte other
 * than 0x00–0x03: e.g. an HTML error page) is passed on as it comes, as is an
 * envelope cut short at the end of the body.
 *
 * A frame's `raw` is the envelope's bytes; its `payload` is the decoded JSON
 * text, present only for an uncompressed envelope whose payload is valid
 * UTF-8. `renderConnectEnvelope` writes an envelope with a new payload and the
 * length of its UTF-8 bytes (§2.2: "recompute the 4-byte **byte** length").
 */
import { textOfUtf8ByteString, utf8ByteString } from '../byte-string.ts';
import type { Framer, RawFrame } from '../raw-frame.ts';

export const CONNECT_HEADER_BYTES = 5;
export const CONNECT_DATA = 0x00;
export const CONNECT_COMPRESSED = 0x01;
export const CONNECT_END_STREAM = 0x02;

/** The flags byte of an envelope frame. */
export function connectFlags(frame: RawFrame): number {
  return frame.raw.charCodeAt(0);
}

/** True for a whole envelope whose payload could not be read because it is compressed. */
export function isCompressedEnvelope(frame: RawFrame): boolean {
  return (
    frame.raw.length >= CONNECT_HEADER_BYTES && (connectFlags(frame) & CONNECT_COMPRESSED) !== 0
  );
}

function declaredLength(bytes: string): number {
  // Multiplication, not `<<`: a first byte ≥ 0x80 would turn the shift negative.
  return (
    bytes.charCodeAt(1) * 0x1000000 +
    bytes.charCodeAt(2) * 0x10000 +
    bytes.charCodeAt(3) * 0x100 +
    bytes.charCodeAt(4)
  );
}

/** An envelope (byte string) with these flags and `payload` as its UTF-8 JSON. */
export function renderConnectEnvelope(flags: number, payload: string): string {
  const body = utf8ByteString(payload);
  const n = body.length;
  const header = String.fromCharCode(
    flags,
    (n >>> 24) & 0xff,
    (n >>> 16) & 0xff,
    (n >>> 8) & 0xff,
    n & 0xff,
  );
  return header + body;
}

export class ConnectFramer implements Framer {
  private buffer = '';
  /** Set once the body shows it is not made of envelopes: the rest passes as it comes. */
  private opaque = false;
  /**
   * The buffer length the envelope begun needs: until then a push only appends,
   * so a large envelope in many pieces is not read (copied) once per piece (issue
   * 19 §4).
   */
  private awaiting = 0;

  push(bytes: string): RawFrame[] {
    if (this.opaque) return bytes.length > 0 ? [{ raw: bytes }] : [];
    this.buffer += bytes;
    if (this.buffer.length < this.awaiting) return [];
    this.awaiting = 0;
    const frames: RawFrame[] = [];
    for (;;) {
      const buffer = this.buffer;
      if (buffer.length === 0) break;
      if (buffer.charCodeAt(0) > 0x03) {
        this.opaque = true;
        this.buffer = '';
        frames.push({ raw: buffer });
        break;
      }
      if (buffer.length < CONNECT_HEADER_BYTES) break;
      const end = CONNECT_HEADER_BYTES + declaredLength(buffer);
      if (buffer.length < end) {
        this.awaiting = end;
        break;
      }
      frames.push(envelopeFrame(buffer.slice(0, end)));
      this.buffer = buffer.slice(end);
    }
    return frames;
  }

  end(): RawFrame[] {
    const rest = this.buffer;
    this.buffer = '';
    this.awaiting = 0;
    return rest.length > 0 ? [{ raw: rest }] : [];
  }
}

function envelopeFrame(raw: string): RawFrame {
  if ((raw.charCodeAt(0) & CONNECT_COMPRESSED) !== 0) return { raw };
  const payload = textOfUtf8ByteString(raw.slice(CONNECT_HEADER_BYTES));
  return payload === undefined ? { raw } : { raw, payload };
}
