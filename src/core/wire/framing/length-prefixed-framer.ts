/**
 * Length-prefixed framing of Google's `)]}'` bodies (Gemini web `StreamGenerate`,
 * `batchexecute`; WIRE-FORMATS.md §3.3).
 *
 * The body starts with the anti-JSON-hijacking line `)]}'`, then frames of
 * `<decimal length><exactly that many UTF-16 code units>`. The count starts
 * right after the digits, so with Google's convention (`<len>\n<json>\n`) it
 * covers both newlines: `[["e",4,null,null,216]]` is 23 units, sent as `25`.
 * The framer does not assume that convention: it trusts the declared slice only
 * when it holds exactly one JSON value (plus whitespace), as the page's parser
 * would read it, and otherwise falls back to the line after the digits. Either
 * way every input unit lands in exactly one frame, so an unchanged body is
 * re-emitted byte for byte.
 *
 * A frame's `raw` is `<leading whitespace><digits><body>`; its `payload` is the
 * JSON text inside the body. `renderLengthPrefixed` puts a new payload in and
 * moves the declared length by the change in UTF-16 units, which keeps whatever
 * the server counted besides the JSON (the two newlines) exactly as it was.
 */
import type { Framer, RawFrame } from '../raw-frame.ts';

export const ANTI_HIJACK_PREFIX = ")]}'";

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** Index after the first character at or after `from` that is not whitespace, or -1. */
function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** True when `body` is one JSON value surrounded by optional whitespace. */
function isJsonBody(body: string): boolean {
  const start = skipSpace(body, 0);
  if (start === body.length) return false;
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}

/** The parts of a length-prefixed frame; `payload` is empty for frames without one. */
export interface LengthPrefixedParts {
  /** Whitespace before the digits (the blank line after `)]}'`, stray newlines). */
  lead: string;
  /** The declared length as sent, or '' when the frame had none (a bare JSON line). */
  digits: string;
  before: string;
  payload: string;
  after: string;
}

export function splitLengthPrefixed(raw: string): LengthPrefixedParts {
  const leadEnd = skipSpace(raw, 0);
  let digitsEnd = leadEnd;
  while (digitsEnd < raw.length && isDigit(raw.charCodeAt(digitsEnd))) digitsEnd++;
  const bodyStart = skipSpace(raw, digitsEnd);
  let bodyEnd = raw.length;
  while (bodyEnd > bodyStart && isSpace(raw.charCodeAt(bodyEnd - 1))) bodyEnd--;
  return {
    lead: raw.slice(0, leadEnd),
    digits: raw.slice(leadEnd, digitsEnd),
    before: raw.slice(digitsEnd, bodyStart),
    payload: raw.slice(bodyStart, bodyEnd),
    after: raw.slice(bodyEnd),
  };
}

/**
 * The frame with `payload` in place of its JSON, the declared length moved by
 * the difference in UTF-16 code units (§3.3: "if you change any text you must
 * recompute every length in UTF-16 units").
 */
export function renderLengthPrefixed(raw: string, payload: string): string {
  const parts = splitLengthPrefixed(raw);
  let digits = parts.digits;
  if (digits !== '' && payload.length !== parts.payload.length) {
    digits = String(Number(digits) + payload.length - parts.payload.length);
  }
  return parts.lead + digits + parts.before + payload + parts.after;
}

/** A new frame in Google's own convention: the count covers `\n<json>\n`. */
export function lengthPrefixedFrame(json: string): string {
  return `${json.length + 2}\n${json}\n`;
}

export class LengthPrefixedFramer implements Framer {
  private buffer = '';
  private prologueSeen = false;
  /**
   * The buffer length a declared frame that has not fully arrived needs (0 when
   * none waits). Until then a push only appends: draining would read, and so copy,
   * the whole buffer per push, quadratic in a large frame that comes in many
   * pieces (issue 19 §4).
   */
  private awaiting = 0;

  push(text: string): RawFrame[] {
    this.buffer += text;
    if (this.buffer.length < this.awaiting) return [];
    return this.drain(false);
  }

  end(): RawFrame[] {
    const frames = this.drain(true);
    if (this.buffer.length > 0) frames.push(frameOf(this.buffer));
    this.buffer = '';
    return frames;
  }

  private drain(final: boolean): RawFrame[] {
    const frames: RawFrame[] = [];
    this.awaiting = 0;
    for (;;) {
      const buffer = this.buffer;
      if (!this.prologueSeen) {
        if (buffer.startsWith(ANTI_HIJACK_PREFIX)) {
          frames.push({ raw: ANTI_HIJACK_PREFIX });
          this.buffer = buffer.slice(ANTI_HIJACK_PREFIX.length);
          this.prologueSeen = true;
          continue;
        }
        // Wait until the body can no longer turn out to start with the prefix.
        if (!final && ANTI_HIJACK_PREFIX.startsWith(buffer)) break;
        this.prologueSeen = true; // a body without the guard line is read all the same
      }
      const digitsStart = skipSpace(buffer, 0);
      if (digitsStart === buffer.length) break;
      let digitsEnd = digitsStart;
      while (digitsEnd < buffer.length && isDigit(buffer.charCodeAt(digitsEnd))) digitsEnd++;
      if (digitsEnd === buffer.length && !final) break; // more digits may follow
      let end = -1;
      if (digitsEnd > digitsStart) {
        const declaredEnd = digitsEnd + Number(buffer.slice(digitsStart, digitsEnd));
        if (declaredEnd <= buffer.length) {
          if (isJsonBody(buffer.slice(digitsEnd, declaredEnd))) end = declaredEnd;
        } else if (!final) {
          this.awaiting = declaredEnd; // the declared frame has not fully arrived
          break;
        }
      }
      // No usable declared length: the frame is the next non-blank line (NDJSON-style).
      if (end < 0) end = lineEnd(buffer, digitsEnd, final);
      if (end < 0) break;
      frames.push(frameOf(buffer.slice(0, end)));
      this.buffer = buffer.slice(end);
    }
    return frames;
  }
}

/** Index after the newline that ends the first non-blank line at or after `from`; -1 if not yet known. */
function lineEnd(text: string, from: number, final: boolean): number {
  const start = skipSpace(text, from);
  const nl = start < text.length ? text.indexOf('\n', start) : -1;
  if (nl >= 0) return nl + 1;
  return final ? text.length : -1;
}

/** A frame; it has a payload when its body starts like the JSON arrays Google sends. */
function frameOf(raw: string): RawFrame {
  const { payload } = splitLengthPrefixed(raw);
  return payload.startsWith('[') || payload.startsWith('{') ? { raw, payload } : { raw };
}
