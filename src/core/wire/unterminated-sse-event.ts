/**
 * The last frame of an SSE body may lack its blank line (a dropped connection, a
 * server that closes right after `data: …`). `SseFramer.end()` passes such a frame
 * through without parsed fields, but lenient page readers still apply it: DeepSeek's
 * page splits `responseText` on blank lines and parses every piece (WIRE-FORMATS.md
 * §4.4), ChatGPT's reader of WebSocket items dispatches a last unterminated event
 * (§1.7). So an adapter reads it as such a reader would (with `eventsource-parser`,
 * never by hand) and guards its text like any other frame.
 */
import { type EventSourceMessage, createParser } from 'eventsource-parser';
import type { RawFrame } from './raw-frame.ts';

/** The frame with its `sse` fields when its text is an event that only lacks its blank line. */
export function withUnterminatedEvent(frame: RawFrame): RawFrame {
  if (frame.sse !== undefined || !/(?:^|[\r\n])data:/.test(frame.raw)) return frame;
  let message: EventSourceMessage | undefined;
  const parser = createParser({
    onEvent: (m) => {
      message = m;
    },
  });
  parser.feed(`${frame.raw}\n\n`);
  if (message === undefined) return frame;
  const sse: NonNullable<RawFrame['sse']> = { data: message.data };
  if (message.event !== undefined) sse.event = message.event;
  if (message.id !== undefined) sse.id = message.id;
  return { ...frame, sse };
}
