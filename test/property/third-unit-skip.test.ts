/**
 * Issue 19 §3: the quiet skip checks the third and fourth units after a marked
 * bigram (third-unit-filter.ts; the shared hits and a scanner's own bigram
 * read) and runs up to three units into a keyword (scanner.ts `skipQuiet`). Fed one code
 * unit per push a scanner never skips (nothing lies past the unit it reads), so
 * unit-by-unit scanning is the step-by-step reference: for any text built
 * around the pack's keyword openings, their near misses (two units of a keyword
 * and a third that begins none), always-on rules' matches after units that
 * open keywords, and hidden units, and any split (chunks of 64
 * units and more take the shared hits), output and events equal that reference.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanChunks, scanText } from '../../src/core/guard/scan-text.ts';
import { missesAfter } from '../../src/core/guard/scanner.ts';
import { getCorePack } from '../../src/core/rules/builtin-packs.ts';
import { compilePack } from '../../src/core/rules/compile-pack.ts';
import type { CompiledPack } from '../../src/core/rules/compiled-pack.ts';
import { PROPERTY_RUNS, cut, cutsArbitrary } from '../support/text-arbitraries.ts';

const pack = getCorePack();

const keywords = [...new Set(pack.rules.flatMap((r) => r.keywords ?? []))];

/**
 * Keyword openings and their near misses: a third or fourth unit that begins no keyword with
 * the units before it, or a hidden unit there (a rule reading the text as seen reads on after
 * it, so the check must not read it).
 */
const openings = keywords.flatMap((k) => [
  k.slice(0, 2),
  k.slice(0, 3),
  k.slice(0, 4),
  k,
  k.toUpperCase(),
  `${k.slice(0, 2)}q`,
  `${k.slice(0, 2)}0`,
  `${k.slice(0, 3)}q`,
  `${k.slice(0, 3)}0`,
  `${k.slice(0, 2)}\u200b`,
  `${k.slice(0, 3)}\u200b`,
  `${k.slice(0, 2)}\u200b${k.slice(2)}`,
  `${k.slice(0, 3)}\u200b${k.slice(3)}`,
]);

/**
 * Always-on rules' matches (found in the pack's examples), each also after the first unit of
 * a keyword whose second unit it begins with: an always-on rule may begin at a bigram's second
 * unit whatever follows, though no keyword goes on with the third (`<` then an IBAN).
 */
const alwaysOn = new Set(pack.rules.filter((r) => !r.keyword).map((r) => r.id));
const matches = [
  ...new Set(
    pack.rules
      .filter((r) => alwaysOn.has(r.id))
      .flatMap(
        (r) => scanText(pack, r.spec.examples.match.join(' '), { attachMatchedText: true }).events,
      )
      .flatMap((e) => (e.type === 'match' && alwaysOn.has(e.rule) && e.matched ? [e.matched] : []))
      .flatMap((m) => [
        m,
        ...keywords
          .filter((k) => k.length > 2 && k.charAt(1).toLowerCase() === m.charAt(0).toLowerCase())
          .map((k) => k.charAt(0) + m),
      ]),
  ),
];

const others = [
  ...['her', 'there', 'secret', 'token', 'ever', 'content', 'http', 'key'],
  ...['a', 'e', 'Z', '0', ' ', '\n', '-', '_', '=', ':', '"', '.', '/', '@', '中'],
  ...['\u200b', '**', '<!--', '-->', '`', '\u00ad'],
];

const textOf = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...openings) },
      { weight: 2, arbitrary: fc.constantFrom(...matches) },
      { weight: 3, arbitrary: fc.constantFrom(...others) },
      { weight: 1, arbitrary: fc.string({ maxLength: 4 }) },
    ),
    { maxLength: 80 },
  )
  .map((parts) => parts.join(''));

/** Output, events and block state of `chunks` equal those of one unit per push. */
function sameAsUnitByUnit(p: CompiledPack, text: string, fractions: number[]): void {
  const reference = scanChunks(p, [...text.split('')]);
  const whole = scanChunks(p, [text]);
  const split = scanChunks(p, cut(text, fractions));
  for (const got of [whole, split]) {
    expect(got.output).toBe(reference.output);
    expect(got.events).toEqual(reference.events);
    expect(got.blocked).toBe(reference.blocked);
  }
}

/**
 * A pack where a keyword's first two units also open an always-on match that the keyword's
 * third unit does not continue (`<AX123`: `<abc` stops at `x`, `caps` starts at `A`), so the
 * third-unit check must keep bigrams an always-on rule can begin in.
 */
const crossingPack = () =>
  compilePack({
    name: 'third-unit-test',
    version: '1',
    rules: [
      {
        id: 'angle',
        kind: 'secret',
        description: 'keyword rule whose keyword opens with a non-word unit',
        pattern: '<abc[0-9]{2}',
        keywords: ['<abc'],
        action: 'redact',
        examples: { match: ['<abc12'], noMatch: ['<abd12'] },
      },
      {
        id: 'caps',
        kind: 'pii',
        description: 'always-on rule starting at a capital after a non-word unit',
        pattern: '\\b[A-Z]{2}[0-9]{3}\\b',
        action: 'redact',
        examples: { match: ['<AX123'], noMatch: ['xAX123'] },
      },
      {
        id: 'quad',
        kind: 'secret',
        description: 'keyword of five units sharing its first three with a keyword of three',
        pattern: '(?:xyzw|xyz)[0-9]{2}',
        keywords: ['xyzw', 'xyz'],
        action: 'redact',
        examples: { match: ['xyzw12', 'xyz12'], noMatch: ['xyq12'] },
      },
      {
        id: 'quad-seen',
        kind: 'secret',
        description: 'keyword of four units read as seen: a hidden unit inside it is passed over',
        pattern: 'qrst[0-9]{2}',
        keywords: ['qrst'],
        action: 'redact',
        examples: { match: ['qrst12'], noMatch: ['qrsx12'] },
      },
      {
        id: 'dash-flag',
        kind: 'injection',
        description: 'flag rule: keyword of three units',
        pattern: 'a-b[a-z]{1,8}',
        keywords: ['a-b'],
        action: 'flag',
        examples: { match: ['a-bc'], noMatch: ['a-c'] },
      },
    ],
  });
const crossing = crossingPack();

const crossingText = fc
  .array(
    fc.oneof(
      fc.constantFrom('<AX123', '<abc12', '<ab', '<aX', '<A', 'a-bc', 'a-', 'AX123', '<'),
      fc.constantFrom('xyzw12', 'xyz12', 'xyzq', 'xyz\u200bw12', 'XYZW34', 'xy', 'xyq12'),
      fc.constantFrom('qrst12', 'qrs\u200bt12', 'qr\u200bst12', 'q\u200brst12', 'qrsx', 'QRST99'),
      fc.constantFrom(' ', 'x', 'A', '1', '-', '\u200b', '**'),
      fc.string({ unit: fc.constantFrom(...'<aAbBcXyzw-1 '), maxLength: 6 }),
    ),
    { maxLength: 60 },
  )
  .map((parts) => parts.join(''));

describe('quiet skip with a third unit', () => {
  // A scanner builds its misses only after `missesAfter` units (scanner.ts): these texts
  // are shorter, so without this they would run on tables that prune nothing.
  const lazyUnits = missesAfter.units;
  beforeAll(() => {
    missesAfter.units = 0;
  });
  afterAll(() => {
    missesAfter.units = lazyUnits;
  });

  it(
    'core pack, any text, any split: same output and events as one unit per push',
    { timeout: 300_000 },
    () => {
      fc.assert(
        fc.property(textOf, cutsArbitrary, (text, fractions) =>
          sameAsUnitByUnit(pack, text, fractions),
        ),
        { numRuns: PROPERTY_RUNS },
      );
    },
  );

  it('misses built mid-stream, after any number of units: same as one unit per push', () => {
    fc.assert(
      fc.property(crossingText, cutsArbitrary, fc.nat(40), (text, fractions, after) => {
        // A pack of its own per run: the misses are cached per automaton, once built.
        const fresh = crossingPack();
        missesAfter.units = after;
        try {
          const reference = scanChunks(fresh, [...text.split('')]);
          const split = scanChunks(crossingPack(), cut(text, fractions));
          expect(split.output).toBe(reference.output);
          expect(split.events).toEqual(reference.events);
        } finally {
          missesAfter.units = 0;
        }
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('a keyword and an always-on rule opening alike: same as one unit per push', () => {
    fc.assert(
      fc.property(crossingText, cutsArbitrary, (text, fractions) =>
        sameAsUnitByUnit(crossing, text, fractions),
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });
});
