/**
 * Framing found from the body itself, for answers no adapter claims by URL or
 * content type (the structural adapter, adapters/structural.ts). The first
 * characters decide, never the content type or the time:
 *
 * - an SSE field line (`data:`, `event:`, `id:`, `retry:`) or a comment (`:`)
 *   first, after any blank lines: SSE (`SseFramer`), so kilobytes of
 *   anti-buffering comments are just frames without data;
 * - `{` or `[` first: a sequence of JSON values, one frame per top-level value
 *   (one for a whole JSON document, one per line for NDJSON), each with the
 *   blanks and the line ending that follow it;
 * - `<letter or digit>:` first (the Vercel AI SDK's data stream, `0:"text"`):
 *   one frame per line, the JSON after the prefix its payload;
 * - otherwise, a control character (NUL and the other C0 controls but tab,
 *   line feed, vertical tab, form feed, carriage return and escape) among the
 *   first `SNIFF_CHARS`, or as many U+FFFD (what bytes that are not UTF-8
 *   decode to) as an eighth of them: binary, which nobody can guard as text;
 * - anything else: plain text, one frame per push.
 *
 * Every frame carries its `shape`; concatenating the frames' `raw` gives the
 * body back exactly, and frame boundaries depend on the text only (not on how
 * it was cut into chunks), except plain text, whose frames are the pushes.
 */
import type { Framer, RawFrame } from '../raw-frame.ts';
import { LineSplitter } from './line-splitter.ts';
import { SseFramer } from './sse-framer.ts';

export type FrameShape = 'sse' | 'json' | 'prefixed' | 'text' | 'space' | 'binary';

/** A frame of a body framed by its structure. */
export interface ShapedFrame extends RawFrame {
  shape: FrameShape;
  /**
   * `json` and `prefixed`: what comes before `payload` in `raw` (blank lines,
   * the `0:` prefix); whatever follows the payload is the line ending.
   */
  lead?: string;
}

export type BodyFraming = 'sse' | 'json' | 'prefixed' | 'text' | 'binary';

/** How many leading characters the binary test reads (and the most plain text is held to decide). */
export const SNIFF_CHARS = 512;

const SSE_START = /^(?:(?:data|event|id|retry)[ \t]*:|:)/;
const SSE_FIELD_PREFIX =
  /^(?:d(?:a(?:t(?:a)?)?)?|e(?:v(?:e(?:n(?:t)?)?)?)?|i(?:d)?|r(?:e(?:t(?:r(?:y)?)?)?)?)[ \t]*$/;
const PREFIXED_START = /^[0-9a-z]:/;
/** C0 controls but tab, line feed, vertical tab, form feed, carriage return and escape. */
const CONTROL = /[\u0000-\u0008\u000e-\u001a\u001c-\u001f]/;

export function isShapedFrame(frame: RawFrame): frame is ShapedFrame {
  return 'shape' in frame;
}

/**
 * True when the opening characters of a body (its first `SNIFF_CHARS`) are
 * binary: a control character no text answer has, or replacement characters
 * (bytes that are not UTF-8) making up an eighth of them or more. One stray
 * U+FFFD in a text answer does not make it binary.
 */
export function looksBinary(opening: string): boolean {
  const head = opening.slice(0, SNIFF_CHARS);
  if (CONTROL.test(head)) return true;
  let replaced = 0;
  for (let i = head.indexOf('\ufffd'); i >= 0; i = head.indexOf('\ufffd', i + 1)) replaced++;
  return replaced > 0 && replaced * 8 >= head.length;
}

/**
 * The framing the opening characters of a body show, or undefined while they
 * cannot tell yet (`final`: the body ended, so they must). The verdict never
 * depends on how the text was cut: a start that shows SSE, JSON or prefixed
 * lines decides at once; a control character decides "binary" at once (it is
 * in the first `SNIFF_CHARS` however the rest goes); anything else waits for
 * `SNIFF_CHARS` characters or the end.
 */
export function sniffFraming(text: string, final: boolean): BodyFraming | undefined {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const start = body.search(/\S/);
  if (start >= 0) {
    const rest = body.slice(start);
    if (rest.startsWith('{') || rest.startsWith('[')) return 'json';
    if (SSE_START.test(rest)) return 'sse';
    const firstLine = /^[^\r\n]*/.exec(rest)?.[0] ?? '';
    // `dat` may still become `data:`: wait for the rest of the line.
    if (!final && firstLine === rest && SSE_FIELD_PREFIX.test(rest)) return undefined;
    if (PREFIXED_START.test(rest)) return 'prefixed';
  }
  if (CONTROL.test(text.slice(0, SNIFF_CHARS))) return 'binary';
  if (!final && text.length < SNIFF_CHARS) return undefined;
  return looksBinary(text) ? 'binary' : 'text';
}

/** Frames of one top-level JSON value after another. */
class JsonSequenceFramer implements Framer {
  private buffer = '';
  /** Scan position in `buffer`, and the state of the value being scanned. */
  private at = 0;
  private valueStart = -1;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Where the current value ended (-1 while it has not). */
  private valueEnd = -1;
  /** The current value is an object, an array or a string, scanned unit by unit (`scanUnits`). */
  private nested = false;

  push(text: string): ShapedFrame[] {
    if (this.nested && this.valueEnd < 0) {
      // Inside a value: only the new text is scanned, and the buffer is appended to,
      // not read (reading copies it), so a large value in many pieces costs time
      // linear in its length, not quadratic (issue 19 §4).
      const base = this.buffer.length;
      const end = this.scanUnits(text, 0);
      this.buffer += text;
      if (end < 0) {
        this.at = this.buffer.length;
        return [];
      }
      this.ended(base + end);
    } else {
      this.buffer += text;
    }
    return this.drain(false);
  }

  end(): ShapedFrame[] {
    const frames = this.drain(true);
    const rest = this.buffer;
    this.buffer = '';
    if (rest.length > 0) {
      // An unfinished value, or blanks: the generic adapter guards it as text.
      frames.push({ raw: rest, shape: rest.trim() === '' ? 'space' : 'text' });
    }
    return frames;
  }

  private drain(final: boolean): ShapedFrame[] {
    const frames: ShapedFrame[] = [];
    for (;;) {
      const frame = this.next(final);
      if (frame === undefined) return frames;
      frames.push(frame);
    }
  }

  /** The next complete frame, or undefined when more text is needed. */
  private next(final: boolean): ShapedFrame | undefined {
    const b = this.buffer;
    if (this.valueEnd < 0) {
      if (this.valueStart < 0) {
        while (this.at < b.length && /\s/.test(b[this.at] as string)) this.at++;
        if (this.at === b.length) return undefined;
        this.valueStart = this.at;
        const c = b[this.at] as string;
        if (c !== '{' && c !== '[' && c !== '"' && !/[-0-9tfn]/.test(c)) {
          // Not JSON: the rest of the line is guarded as text.
          const nl = b.indexOf('\n', this.at);
          if (nl < 0 && !final) return undefined;
          return this.cut(nl < 0 ? b.length : nl + 1, 'text');
        }
      }
      if (!this.scanValue(final)) return undefined;
    }
    // Take the blanks after the value up to and including its line ending.
    let end = this.valueEnd;
    while (end < b.length && (b[end] === ' ' || b[end] === '\t' || b[end] === '\r')) end++;
    if (end === b.length && !final) return undefined;
    if (b[end] === '\n') end++;
    const lead = b.slice(0, this.valueStart);
    const payload = b.slice(this.valueStart, this.valueEnd);
    return this.cut(end, 'json', lead, payload);
  }

  /** Scans the value from `at`; true once its end (`valueEnd`) is known. */
  private scanValue(final: boolean): boolean {
    const b = this.buffer;
    const first = b[this.valueStart] as string;
    if (first !== '{' && first !== '[' && first !== '"') {
      // A scalar ends at the first character that cannot continue it.
      let i = Math.max(this.at, this.valueStart);
      while (i < b.length && /[-+.0-9a-zA-Z]/.test(b[i] as string)) i++;
      this.at = i;
      if (i === b.length && !final) return false;
      this.valueEnd = i;
      return true;
    }
    this.nested = true;
    const end = this.scanUnits(b, this.at);
    if (end >= 0) return this.ended(end);
    this.at = b.length;
    return false;
  }

  /**
   * Reads `s` from `from` on as the continuation of the nested value, keeping the
   * depth and string state; where in `s` the value ends (after its last unit), or
   * -1 when it goes on past `s`.
   */
  private scanUnits(s: string, from: number): number {
    for (let i = from; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) {
          this.inString = false;
          if (this.depth === 0) return i + 1;
        }
      } else if (c === 0x22) this.inString = true;
      else if (c === 0x7b || c === 0x5b) this.depth++;
      else if (c === 0x7d || c === 0x5d) {
        this.depth--;
        if (this.depth <= 0) return i + 1;
      }
    }
    return -1;
  }

  private ended(end: number): boolean {
    this.valueEnd = end;
    this.at = end;
    return true;
  }

  private cut(end: number, shape: FrameShape, lead?: string, payload?: string): ShapedFrame {
    const raw = this.buffer.slice(0, end);
    this.buffer = this.buffer.slice(end);
    this.at = 0;
    this.valueStart = -1;
    this.valueEnd = -1;
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.nested = false;
    const frame: ShapedFrame = { raw, shape };
    if (lead !== undefined) frame.lead = lead;
    if (payload !== undefined) frame.payload = payload;
    return frame;
  }
}

/** One frame per line; `0:` and the like before the JSON of each. */
class PrefixedLineFramer implements Framer {
  private readonly lines = new LineSplitter();

  push(text: string): ShapedFrame[] {
    return this.lines.push(text).map(lineFrame);
  }

  end(): ShapedFrame[] {
    const rest = this.lines.end();
    return rest.length > 0 ? [lineFrame(rest)] : [];
  }
}

function lineFrame(raw: string): ShapedFrame {
  const line = raw.replace(/\r?\n$/, '');
  const m = /^([0-9a-z]:)/.exec(line);
  if (m === null) return { raw, shape: line.trim() === '' ? 'space' : 'text' };
  const lead = m[1] as string;
  return { raw, shape: 'prefixed', lead, payload: line.slice(lead.length) };
}

/** Plain text or binary: each push is one frame. */
export class PassageFramer implements Framer {
  constructor(private readonly shape: 'text' | 'binary') {}

  push(text: string): ShapedFrame[] {
    return text.length > 0 ? [{ raw: text, shape: this.shape }] : [];
  }

  end(): ShapedFrame[] {
    return [];
  }
}

class ShapedSseFramer implements Framer {
  private readonly inner = new SseFramer();

  push(text: string): ShapedFrame[] {
    return this.inner.push(text).map((f) => ({ ...f, shape: 'sse' as const }));
  }

  end(): ShapedFrame[] {
    return this.inner.end().map((f) => ({ ...f, shape: 'sse' as const }));
  }
}

export class StructuralFramer implements Framer {
  private buffer = '';
  private inner: Framer | undefined;
  private framing: BodyFraming | undefined;

  /** The framing the body showed (undefined until its first characters decide). */
  get detected(): BodyFraming | undefined {
    return this.framing;
  }

  push(text: string): RawFrame[] {
    if (this.inner !== undefined) return this.inner.push(text);
    this.buffer += text;
    return this.decide(false);
  }

  end(): RawFrame[] {
    const frames = this.inner === undefined ? this.decide(true) : [];
    const inner = this.inner as Framer | undefined;
    return inner === undefined ? frames : [...frames, ...inner.end()];
  }

  private decide(final: boolean): RawFrame[] {
    if (this.buffer.length === 0) return [];
    const framing = sniffFraming(this.buffer, final);
    if (framing === undefined) return [];
    this.framing = framing;
    this.inner = framerOf(framing);
    const buffered = this.buffer;
    this.buffer = '';
    return this.inner.push(buffered);
  }
}

function framerOf(framing: BodyFraming): Framer {
  switch (framing) {
    case 'sse':
      return new ShapedSseFramer();
    case 'json':
      return new JsonSequenceFramer();
    case 'prefixed':
      return new PrefixedLineFramer();
    case 'text':
    case 'binary':
      return new PassageFramer(framing);
  }
}
