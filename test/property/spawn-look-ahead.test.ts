/**
 * Issue 19 §3: a new thread is stepped a few units ahead over text the scan
 * reads anyway, and one that would finish without a match is not made
 * (scanner.ts, `diesUnread`). Fed one code unit per push, a scanner never
 * looks ahead (nothing lies past the unit it reads), so unit-by-unit scanning
 * is the reference: for any text built around where the always-on and URL
 * rules begin, and any split, output and events equal that reference.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanChunks } from '../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../src/core/rules/builtin-packs.ts';
import { PROPERTY_RUNS, cut, cutsArbitrary } from '../support/text-arbitraries.ts';

const pack = getCorePack();

/** Starts that die within a few units, starts that match, and hidden units between them. */
const pieces = [
  'The ',
  'GB',
  'DE',
  '12',
  '4',
  '9',
  '0000',
  ' 1234',
  '19',
  '20',
  '0101',
  'X',
  '+',
  '-',
  '[',
  ']',
  '](',
  ')',
  'https://',
  'http://',
  'host.example',
  '/p?d=',
  'user:pw@',
  '@',
  'a',
  'é',
  '中',
  ' ',
  '\n',
  '\u200b',
  '**',
  '<!--',
  '-->',
  '`',
];

const textOf = fc
  .array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 4 })), { maxLength: 60 })
  .map((parts) => parts.join(''));

describe('look-ahead at spawn (core pack)', () => {
  it(
    'any text, any split: same output and events as one unit per push',
    { timeout: 300_000 },
    () => {
      fc.assert(
        fc.property(textOf, cutsArbitrary, (text, fractions) => {
          const reference = scanChunks(pack, [...text.split('')]);
          const whole = scanChunks(pack, [text]);
          const split = scanChunks(pack, cut(text, fractions));
          for (const got of [whole, split]) {
            expect(got.output).toBe(reference.output);
            expect(got.events).toEqual(reference.events);
            expect(got.blocked).toBe(reference.blocked);
          }
        }),
        { numRuns: PROPERTY_RUNS },
      );
    },
  );
});
