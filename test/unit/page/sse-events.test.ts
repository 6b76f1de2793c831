/**
 * The EventSource hook's small SSE reader (src/page/sse-events.ts) against
 * `eventsource-parser`, the ecosystem's parser: the same events for any text and any
 * split of it into chunks; and EventSource's last event ID, which carries over.
 */
import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sseEvents } from '../../../src/page/sse-events.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';

type Dispatched = [type: string, data: string, lastEventId: string];

function ours(chunks: string[]): Dispatched[] {
  const out: Dispatched[] = [];
  const events = sseEvents((type, data, lastEventId) => out.push([type, data, lastEventId]));
  for (const chunk of chunks) events.feed(chunk);
  return out;
}

/** eventsource-parser's events. */
function reference(text: string): Dispatched[] {
  const out: Dispatched[] = [];
  const parser = createParser({
    onEvent: (event) => out.push([event.event || 'message', event.data, event.id ?? '']),
  });
  parser.feed(text);
  return out;
}

const EOL = fc.constantFrom('\n', '\r', '\r\n');
const line = fc.oneof(
  fc.tuple(fc.constantFrom('data', 'event', 'id', 'retry', '', 'other'), fc.string()),
  fc.constant(['data', '{"choices":[{"delta":{"content":"a\u00e9"}}]}'] as [string, string]),
);
const stream = fc
  .array(
    fc.tuple(fc.array(fc.tuple(line, fc.constantFrom(': ', ':', ''), EOL), { maxLength: 4 }), EOL),
    { maxLength: 6 },
  )
  .map((events) =>
    events
      .map(
        ([lines, end]) =>
          lines
            .map(([[field, value], sep, eol]) =>
              sep === ''
                ? `${field}${eol}`
                : `${field}${sep}${value.replace(/[\r\n]/g, ' ')}${eol}`,
            )
            .join('') + end,
      )
      .join(''),
  )
  // A text that ends in a lone CR is not compared: eventsource-parser waits for a possible
  // LF there. (The guard's texts end with a blank line.)
  .map((text) => (text.endsWith('\r') ? `${text}\n` : text));

describe('sseEvents', () => {
  it('reads events as EventSource does', () => {
    const text =
      ': comment\n\ndata: a\ndata:b\r\nevent: delta\nid: 7\n\ndata\n\nid\ndata: c\r\r' +
      'event: x\n\ndata: tail without end';
    expect(ours([text])).toEqual([
      ['delta', 'a\nb', '7'],
      ['message', '', '7'],
      ['message', 'c', ''],
    ]);
    // Cut everywhere, a CR and its LF in different chunks included.
    expect(ours([...text])).toEqual(ours([text]));
  });

  it('matches eventsource-parser for any text cut anywhere', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const chunks: string[] = [];
        let from = 0;
        for (const to of at) {
          chunks.push(text.slice(from, to));
          from = to;
        }
        chunks.push(text.slice(from));
        // Types and data: eventsource-parser reports an id with its own event only, where
        // EventSource keeps the last one (the first test checks ids).
        const strip = (events: Dispatched[]) => events.map(([type, data]) => [type, data]);
        expect(strip(ours(chunks))).toEqual(strip(reference(text)));
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });
});
