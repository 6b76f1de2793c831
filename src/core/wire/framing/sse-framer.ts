/**
 * SSE framing. Event boundaries (a blank line after CRLF, LF or CR line
 * endings) are found here so that each event's exact bytes can be re-emitted;
 * the fields inside an event are parsed by `eventsource-parser` (the WHATWG
 * algorithm), never by hand.
 */
import { type EventSourceMessage, createParser } from 'eventsource-parser';
import type { Framer, RawFrame } from '../raw-frame.ts';

const LINE_END = /\r\n|\r|\n/g;

export class SseFramer implements Framer {
  private buffer = '';
  /** Where the next line starts in `buffer`. */
  private lineStart = 0;
  private dispatched: EventSourceMessage | undefined;
  private readonly parser = createParser({
    onEvent: (message) => {
      this.dispatched = message;
    },
  });

  push(text: string): RawFrame[] {
    this.buffer += text;
    const frames: RawFrame[] = [];
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
      if (blank) {
        frames.push(this.frame(this.buffer.slice(frameStart, lineEnd)));
        frameStart = lineEnd;
      }
    }
    if (frameStart > 0) {
      this.buffer = this.buffer.slice(frameStart);
      this.lineStart -= frameStart;
    }
    return frames;
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
    if (rest.length === 0) return [];
    const frame = this.frame(rest, '\n\n');
    this.parser.reset();
    return [frame];
  }

  private frame(raw: string, terminator = ''): RawFrame {
    this.dispatched = undefined;
    this.parser.feed(raw + terminator);
    const message = this.dispatched as EventSourceMessage | undefined;
    if (message === undefined) return { raw };
    const sse: RawFrame['sse'] = { data: message.data };
    if (message.event !== undefined) sse.event = message.event;
    if (message.id !== undefined) sse.id = message.id;
    return { raw, sse };
  }
}
