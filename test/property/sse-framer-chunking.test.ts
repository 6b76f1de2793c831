/**
 * The SSE framer against eventsource-parser itself: for any body (LF, CR and
 * CRLF line ends mixed, multi-line events, comments, fields without a value, a
 * byte order mark, a last event with no blank line after it) cut at any points,
 * the frames' text is the body, unchanged, and the events they carry are the
 * ones the WHATWG parser dispatches from the whole body at once. The framer reads
 * line ends itself (two paths: LF only, and any line end) and lets a lone
 * `data:` line skip the parser; both must agree with the parser for every split.
 */
import { type EventSourceMessage, createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseFramer } from '../../src/core/wire/framing/sse-framer.ts';
import type { SseFields } from '../../src/core/wire/raw-frame.ts';
import { cut, cutsArbitrary } from '../support/text-arbitraries.ts';

const lineEnd = fc.constantFrom('\n', '\n', '\n', '\r\n', '\r');
const value = fc.oneof(
  fc.string({ maxLength: 8 }).map((s) => s.replace(/[\r\n]/g, '')),
  fc.constantFrom('{"a":1}', ' spaced', '', 'é\ud83d\ude00', ':colon'),
);
const line = fc.oneof(
  { weight: 6, arbitrary: value.map((v) => `data:${v}`) },
  { weight: 4, arbitrary: value.map((v) => `data: ${v}`) },
  { weight: 1, arbitrary: value.map((v) => `event: ${v}`) },
  { weight: 1, arbitrary: value.map((v) => `id: ${v.replace(/\0/g, '')}`) },
  { weight: 1, arbitrary: value.map((v) => `: ${v}`) },
  { weight: 1, arbitrary: fc.constantFrom('data', 'retry: 10', 'unknown: x') },
);
const event = fc
  .tuple(fc.array(fc.tuple(line, lineEnd), { minLength: 1, maxLength: 4 }), lineEnd)
  .map(([lines, blank]) => lines.map(([l, e]) => l + e).join('') + blank);
const body = fc
  .tuple(
    fc.boolean(),
    fc.array(event, { maxLength: 10 }),
    fc.option(fc.tuple(line, fc.constantFrom('', '\n', '\r'))),
  )
  .map(
    ([bom, events, last]) =>
      (bom ? '\ufeff' : '') + events.join('') + (last === null ? '' : last[0] + last[1]),
  );

/** What the parser dispatches from the whole body; a last event without a blank line too. */
function parsed(text: string): SseFields[] {
  const out: SseFields[] = [];
  const parser = createParser({
    onEvent: (m: EventSourceMessage) => {
      const fields: SseFields = { data: m.data };
      if (m.event !== undefined) fields.event = m.event;
      if (m.id !== undefined) fields.id = m.id;
      out.push(fields);
    },
  });
  parser.feed(text + '\n\n');
  return out;
}

describe('SSE framer', () => {
  it('gives back the body unchanged and the parser’s events, for any body and split', () => {
    fc.assert(
      fc.property(
        fc.tuple(body, cutsArbitrary).map(([b, at]) => [b, cut(b, at)] as const),
        ([text, chunks]) => {
          const framer = new SseFramer();
          const frames = chunks.flatMap((c) => framer.push(c));
          frames.push(...framer.end());
          expect(frames.map((f) => f.raw).join('')).toBe(text);
          const events = frames.flatMap((f) => (f.sse === undefined ? [] : [f.sse]));
          expect(events).toEqual(parsed(text));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
