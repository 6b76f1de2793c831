/**
 * Issue 19 §3: the quiet skip also runs one unit into a keyword (scanner.ts,
 * `skipQuiet`: a depth-1 partial continues only through a marked bigram). Fed
 * one code unit per push, a scanner never takes that skip (nothing lies past
 * the unit it reads), so unit-by-unit scanning is the step-by-step reference:
 * for any text built around the pack's keyword openings, and any split (large
 * chunks take the shared bigram hits), output and events equal that reference.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanChunks } from '../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../src/core/rules/builtin-packs.ts';
import { PROPERTY_RUNS, cut, cutsArbitrary } from '../support/text-arbitraries.ts';

const pack = getCorePack();

/** Keyword openings (one and two units, and whole keywords) with filler and hidden units. */
function fragments(): string[] {
  const keywords = [...new Set(pack.rules.flatMap((r) => r.keywords ?? []))];
  // A keyword with a hidden unit after its first: a rule reading the text as seen still
  // finds it, so the skip must not read the bigram across the hidden unit.
  const openings = keywords.flatMap((k) => [
    k.slice(0, 1),
    k.slice(0, 2),
    k,
    `${k.slice(0, 1)}\u200b${k.slice(1)}`,
  ]);
  const filler = [
    'a',
    'e',
    'Z',
    '0',
    '7',
    ' ',
    '\n',
    '-',
    '_',
    '=',
    ':',
    '"',
    '.',
    '/',
    '@',
    'é',
    '中',
  ];
  const hidden = ['\u200b', '**', '<!--', '-->', '`', '\u00ad'];
  return [...new Set([...openings, ...filler, ...hidden])];
}

const pieces = fragments();
const textOf = fc
  .array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 6 })), { maxLength: 60 })
  .map((parts) => parts.join(''));

describe('quiet skip one unit into a keyword (core pack)', () => {
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
