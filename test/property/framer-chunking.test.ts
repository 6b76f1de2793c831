/**
 * DESIGN.md §3.1 at the framing layer: for any body and any split into pieces,
 * each framer gives the frames it gives for the whole body in one push, and the
 * frames' text is the body. The framers read a push's own text and only append
 * to what is buffered while a line, a declared frame or a JSON value is still
 * arriving (issue 19 §4, linear time for a large frame in many pieces); these
 * shortcuts must not move a single frame boundary, nor hold a frame back past
 * the push that completes it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONNECT_DATA, CONNECT_END_STREAM } from '../../src/core/wire/framing/connect-framer.ts';
import {
  ConnectFramer,
  renderConnectEnvelope,
} from '../../src/core/wire/framing/connect-framer.ts';
import {
  ANTI_HIJACK_PREFIX,
  LengthPrefixedFramer,
  lengthPrefixedFrame,
} from '../../src/core/wire/framing/length-prefixed-framer.ts';
import { NdjsonFramer } from '../../src/core/wire/framing/ndjson-framer.ts';
import { StructuralFramer } from '../../src/core/wire/framing/structural-framer.ts';
import type { Framer, RawFrame } from '../../src/core/wire/raw-frame.ts';
import { cut, cutsArbitrary } from '../support/text-arbitraries.ts';

/** Text for inside JSON strings and lines: quotes, escapes, brackets, line ends, astral. */
const word = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 6 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom('{', '}', '[', ']', '"', '\\', '\\"', ',', ' ', 'é', '\ud83d\ude00'),
  },
  { weight: 1, arbitrary: fc.constant('long '.repeat(80)) },
);
const text = fc.array(word, { maxLength: 8 }).map((w) => w.join(''));
const lineText = text.map((t) => t.replace(/[\r\n]/g, ' '));

/** A JSON value, nested a little, as a page's JSON sequence would carry it. */
const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.integer(),
    fc.constantFrom(true, false, null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'text', '}'), tie('value'), { maxKeys: 3 }),
  ),
})).value;

const lineEnd = fc.constantFrom('\n', '\r\n');

const BODIES: Record<string, [() => Framer, fc.Arbitrary<string>]> = {
  NDJSON: [
    () => new NdjsonFramer(),
    fc
      .tuple(fc.array(fc.tuple(lineText, lineEnd), { maxLength: 8 }), lineText)
      .map(([lines, last]) => lines.map(([l, e]) => l + e).join('') + last),
  ],
  'length-prefixed': [
    () => new LengthPrefixedFramer(),
    fc
      .tuple(
        fc.boolean(),
        fc.array(
          fc.oneof(
            { weight: 4, arbitrary: jsonValue.map((v) => lengthPrefixedFrame(JSON.stringify(v))) },
            // A declared length that does not fit: read as a line instead.
            { weight: 1, arbitrary: jsonValue.map((v) => `7\n${JSON.stringify(v)}\n`) },
            { weight: 1, arbitrary: lineText.map((l) => `${l}\n`) },
          ),
          { maxLength: 6 },
        ),
        fc.constantFrom('', '12', '40\n[[', '\n'),
      )
      .map(
        ([guard, frames, tail]) =>
          (guard ? `${ANTI_HIJACK_PREFIX}\n` : '') + frames.join('') + tail,
      ),
  ],
  connect: [
    () => new ConnectFramer(),
    fc
      .tuple(
        fc.array(
          jsonValue.map((v) => renderConnectEnvelope(CONNECT_DATA, JSON.stringify(v))),
          { maxLength: 6 },
        ),
        fc.constantFrom('', renderConnectEnvelope(CONNECT_END_STREAM, '{}'), '\u0000\u0000', 'x'),
      )
      .map(([envelopes, tail]) => envelopes.join('') + tail),
  ],
  'structural, JSON values': [
    () => new StructuralFramer(),
    fc
      .tuple(
        fc.array(fc.tuple(jsonValue, fc.constantFrom('', ' ', '\n', '\r\n', ' \n\n')), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.constantFrom('', '{"open":"', '[1,'),
      )
      .map(([values, tail]) => {
        const body = values.map(([v, gap]) => JSON.stringify(v) + gap).join('');
        // A leading scalar would make the body text, not JSON: start with a container.
        return `[${body.length}]\n${body}${tail}`;
      }),
  ],
  'structural, prefixed lines': [
    () => new StructuralFramer(),
    fc
      .array(fc.tuple(jsonValue, lineEnd), { minLength: 1, maxLength: 8 })
      .map((lines) => lines.map(([v, e]) => `0:${JSON.stringify(v)}${e}`).join('')),
  ],
};

function frameAll(framer: Framer, chunks: readonly string[]): RawFrame[] {
  const frames = chunks.flatMap((c) => framer.push(c));
  frames.push(...framer.end());
  return frames;
}

describe('framers: the same frames for any split', () => {
  it.each(Object.entries(BODIES))('%s', (_, [make, body]) => {
    fc.assert(
      fc.property(
        fc.tuple(body, cutsArbitrary).map(([b, at]) => [b, cut(b, at)] as const),
        ([whole, chunks]) => {
          const once = frameAll(make(), [whole]);
          expect(once.map((f) => f.raw).join('')).toBe(whole);
          expect(frameAll(make(), chunks)).toEqual(once);
          // No frame waits longer in pieces: after each push, the frames given so far are
          // those one push of the same prefix gives.
          const framer = make();
          const given: RawFrame[] = [];
          let prefix = '';
          for (const chunk of chunks) {
            given.push(...framer.push(chunk));
            prefix += chunk;
            expect(given).toEqual(make().push(prefix));
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
