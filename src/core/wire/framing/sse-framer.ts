/**
 * SSE framing. Event boundaries (a blank line after CRLF, LF or CR line
 * endings) are found here so that each event's exact bytes can be re-emitted;
 * the fields inside an event are parsed by `eventsource-parser` (the WHATWG
 * algorithm), except the one shape the algorithm's own fast path reads
 * directly, a lone `data:` line (`singleDataLine`; issue 19 §3: most events of
 * most streams, parsed per event).
 */
import { type EventSourceMessage, createParser } from 'eventsource-parser';
import type { Framer, RawFrame } from '../raw-frame.ts';

const LINE_END = /\r\n|\r|\n/g;

/**
 * The data of a frame that is one `data:` line and the blank line after it,
 * LF-terminated (`data: {…}\n\n`, the common event), as the parser would
 * dispatch it: the value after `data:` and one optional space, no event type,
 * no id. Undefined for any other frame, which the parser reads. Between frames
 * the parser holds nothing (every frame ends with a blank line, which
 * dispatches and clears its fields), so skipping it for such a frame changes
 * nothing it would do with the next one. `lfLines` is how many lines the
 * framer found in `raw`, or 0 when any of them did not end with a lone LF: the
 * framer has read every line end already, so the frame is not scanned again
 * (issue 20's wire target, the framer's cost per event).
 */
function singleDataLine(raw: string, lfLines: number): string | undefined {
  const end = raw.length - 2;
  // Two LF-ended lines, the second blank: the frame is `<line>\n\n` with no CR or LF inside.
  if (lfLines !== 2 || end < 5 || !raw.startsWith('data:')) return undefined;
  return raw.slice(raw.charCodeAt(5) === 0x20 ? 6 : 5, end);
}

export class SseFramer implements Framer {
  private buffer = '';
  /** Where the next line starts in `buffer`. */
  private lineStart = 0;
  private dispatched: EventSourceMessage | undefined;
  /** The parser has seen a frame (its first may start with a byte order mark, which it drops). */
  private fed = false;
  /** Lines found so far in the frame being read, all LF-ended; -1 once one ends otherwise. */
  private lfLines = 0;
  /**
   * `buffer` holds no CR from `lineStart` on. Kept rather than searched for on
   * every push: an event that arrives in many pieces (a long first event, a
   * history-sized data line) grows `buffer` piece by piece, and a search of it per
   * push made reading that event quadratic in its length (issue 19 §4, the
   * stream's long tasks).
   */
  private crFree = true;
  /**
   * The text the frames of the last `push` from `sourceFrom` on were cut from:
   * one after another from `sourceOffset`. Usually the pushed text itself (only
   * a frame begun in an earlier push is a new string), so the frames, and the
   * runs of unchanged frames the rewriter sends as one slice of it, keep no
   * copy of the body alive (issue 20's wire target).
   */
  source = '';
  sourceFrom = 0;
  sourceOffset = 0;
  private readonly parser = createParser({
    onEvent: (message) => {
      this.dispatched = message;
    },
  });

  push(text: string): RawFrame[] {
    // Most bodies end their lines with LF only: then a line ends at the next LF, which
    // indexOf finds without the regex's match objects (the same boundaries: with no CR
    // after `lineStart`, LINE_END matches exactly the LFs).
    if (this.crFree && text.indexOf('\r') === -1) return this.lfLineEnds(text);
    this.buffer += text;
    const frames: RawFrame[] = [];
    const frameStart = this.anyLineEnds(frames);
    this.source = this.buffer;
    this.sourceFrom = 0;
    this.sourceOffset = 0;
    if (frameStart > 0) {
      this.buffer = this.buffer.slice(frameStart);
      this.lineStart -= frameStart;
    }
    // Only a CR at the very end (half of a CRLF, perhaps) or none is left unread.
    this.crFree = this.buffer.indexOf('\r', this.lineStart) === -1;
    return frames;
  }

  /**
   * `push`'s scan when only LFs end lines, in `text` itself: the unframed rest
   * of earlier pushes (`buffer`) holds no LF after `lineStart`, so every line end
   * is in `text`. A frame wholly in `text` is a slice of it; only the one begun
   * before is joined.
   */
  private lfLineEnds(text: string): RawFrame[] {
    // `text` has no CR, and `buffer` none from `lineStart` on, which only moves forward.
    const carry = this.buffer;
    const base = carry.length;
    const frames: RawFrame[] = [];
    // Offsets below count from the start of `carry`, as if `text` followed it.
    let frameStart = 0;
    let lineStart = this.lineStart;
    this.source = text;
    this.sourceFrom = 0;
    this.sourceOffset = 0;
    for (;;) {
      const found = text.indexOf('\n', Math.max(lineStart - base, 0));
      if (found === -1) break;
      const lineEnd = base + found + 1;
      const blank = lineEnd === lineStart + 1;
      lineStart = lineEnd;
      if (this.lfLines >= 0) this.lfLines++;
      if (blank) {
        if (frameStart >= base) {
          frames.push(this.frame(text.slice(frameStart - base, lineEnd - base)));
        } else {
          frames.push(this.frame(carry.slice(frameStart) + text.slice(0, lineEnd - base)));
          this.sourceFrom = 1;
          this.sourceOffset = lineEnd - base;
        }
        frameStart = lineEnd;
      }
    }
    this.buffer = frameStart >= base ? text.slice(frameStart - base) : carry + text;
    this.lineStart = lineStart - frameStart;
    return frames;
  }

  /** `push`'s scan with CR, LF and CRLF line ends; returns where the unframed rest starts. */
  private anyLineEnds(frames: RawFrame[]): number {
    let frameStart = 0;
    for (;;) {
      LINE_END.lastIndex = this.lineStart;
      const m = LINE_END.exec(this.buffer);
      if (m === null) break;
      // A CR at the very end may be the first half of CRLF: wait for the next chunk.
      if (m[0] === '\r' && m.index + 1 === this.buffer.length) break;
      const lineEnd = m.index + m[0].length;
      const blank = m.index === this.lineStart;
      this.lineStart = lineEnd;
      // A line the regex ends is free of CR and LF inside; its end tells whether it is a lone LF.
      if (this.lfLines >= 0) this.lfLines = m[0] === '\n' ? this.lfLines + 1 : -1;
      if (blank) {
        frames.push(this.frame(this.buffer.slice(frameStart, lineEnd)));
        frameStart = lineEnd;
      }
    }
    return frameStart;
  }

  /**
   * The body ended without a blank line after its last event. Browsers' EventSource
   * drops such an event, but pages that split the text themselves (DeepSeek, SSE
   * polyfills) apply it, so it is parsed and guarded like any other; its bytes
   * stay as they were.
   */
  end(): RawFrame[] {
    const rest = this.buffer;
    this.buffer = '';
    this.lineStart = 0;
    this.crFree = true;
    // No blank line ends this frame: never the lone data line `singleDataLine` reads.
    this.lfLines = -1;
    if (rest.length === 0) return [];
    const frame = this.frame(rest, '\n\n');
    this.parser.reset();
    return [frame];
  }

  private frame(raw: string, terminator = ''): RawFrame {
    const data = this.fed ? singleDataLine(raw, this.lfLines) : undefined;
    this.lfLines = 0;
    if (data !== undefined) return { raw, sse: { data } };
    this.fed = true;
    this.dispatched = undefined;
    // A frame cut at a CR line end (`push` knows no LF follows) is whole, but the parser
    // waits for a possible LF: without one it would dispatch this frame's event while
    // reading the next frame, which would then carry it. An LF makes it a CRLF, the
    // same line end, read now.
    const cr = terminator === '' && raw.endsWith('\r') ? '\n' : '';
    this.parser.feed(raw + terminator + cr);
    const message = this.dispatched as EventSourceMessage | undefined;
    if (message === undefined) return { raw };
    const sse: RawFrame['sse'] = { data: message.data };
    if (message.event !== undefined) sse.event = message.event;
    if (message.id !== undefined) sse.id = message.id;
    return { raw, sse };
  }
}
