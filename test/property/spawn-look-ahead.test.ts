/**
 * Issue 19 §3: a thread that `stepRun` starts (at a keyword or where an
 * always-on rule can begin) is stepped a few units ahead over text the run
 * reads anyway, and one that would finish without a match is not made
 * (scanner.ts `diesUnread`). For any text built around where keyword, URL and
 * always-on rules begin, with hidden units and comments in places, and any
 * split, every push returns what it returns without the look-ahead (the slow
 * path) and holds as much; and the output equals one code unit per push.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { peekShortcut } from '../../src/core/guard/scanner.ts';
import { getCorePack } from '../../src/core/rules/builtin-packs.ts';
import { shortcutDifferential, stepsWithShortcut } from '../support/guard-steps.ts';
import { PROPERTY_RUNS, splitBySizes } from '../support/text-arbitraries.ts';

const pack = getCorePack();

/** Every push's result and hold with the look-ahead on (as shipped). */
function run(chunks: readonly string[]): unknown[] {
  return stepsWithShortcut(peekShortcut, true, pack, chunks);
}

/** Starts that die within a few units, starts that match, and hidden units between them. */
const pieces = [
  'The ',
  'you ',
  'you are now ',
  'act as ',
  'ignore ',
  'ignore the previous instructions',
  'system prompt',
  'from now on',
  'GB',
  'DE89',
  '12',
  '4111 1111 1111 1111',
  '0000',
  ' 1234',
  '11010519491231002X',
  '13812345678',
  '+1415',
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
  // After `https://`, a match settled (`@`) within the look-ahead.
  'a:Xy7q@',
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
  .array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 4 })), { maxLength: 40 })
  .map((parts) => parts.join(''));
const sizes = fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 16 });

describe('look-ahead at spawn (issue 19 §3)', () => {
  shortcutDifferential(
    'every push equals the guard without look-ahead',
    peekShortcut,
    textOf,
    sizes,
  );

  it('any split: the output equals one code unit per push', { timeout: 300_000 }, () => {
    const emitted = (steps: unknown[]): string =>
      steps.map((s) => (s as { emit: string }).emit).join('');
    fc.assert(
      fc.property(textOf, sizes, (text, lengths) => {
        const units = run(text.split(''));
        expect(emitted(run(splitBySizes(text, lengths)))).toBe(emitted(units));
        expect(emitted(run([text]))).toBe(emitted(units));
      }),
      { numRuns: Math.ceil(PROPERTY_RUNS / 2) },
    );
  });
});
