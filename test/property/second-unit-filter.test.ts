/**
 * Issue 19 §3: an always-on rule's thread is not started where the next unit,
 * already pushed, would end it without a match (second-unit-filter.ts,
 * scanner.ts `stepRun`). For any prose around the values the always-on rules
 * look for (IBANs, cards, resident IDs, phone numbers, link definitions,
 * invisible characters), with hidden units in places and any chunking, every
 * push returns what it returns with every thread started, and holds as much.
 */
import fc from 'fast-check';
import { describe } from 'vitest';
import { secondUnitFilter } from '../../src/core/guard/second-unit-filter.ts';
import { proseOf, shortcutDifferential } from '../support/guard-steps.ts';

const word = fc.oneof(
  fc.stringMatching(/^[A-Za-z]{1,9}$/),
  fc.stringMatching(/^[A-Z]{1,3}[0-9]{0,4}$/),
  fc.stringMatching(/^[0-9]{1,6}$/),
  fc.stringMatching(/^[0-9 -]{1,12}$/),
);
const value = fc.oneof(
  // IBAN, card, resident ID, mobile and E.164 shapes, valid or not.
  fc.stringMatching(/^[A-Z]{2}[0-9]{2}( ?[0-9A-Z]{4}){3,5}$/),
  fc.constantFrom('GB82 WEST 1234 5698 7654 32', 'DE89370400440532013000'),
  fc.stringMatching(/^4[0-9]{3}([ -]?[0-9]{4}){3}$/),
  fc.constantFrom('4111 1111 1111 1111', '5500-0000-0000-0004'),
  fc.stringMatching(/^[1-9][0-9]{16}[0-9X]$/),
  fc.constantFrom('11010519491231002X', '13812345678', '+14155552671', '+44 20 7946 0958'),
  fc.stringMatching(/^1[3-9][0-9]{9}$/),
  fc.stringMatching(/^\+[1-9][0-9]{6,13}$/),
  fc.constantFrom('[ref]: https://evil.example/?q=a+b', 'a\u200Bb', '\u2062x', 'e\u0301'),
);
const gap = fc.constantFrom(' ', ' ', ' ', '\n', ': ', '\u200B', '*', ' **', '(', ')', '-');
const prose = proseOf(word, value, gap);
const sizes = fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 16 });

describe('always-on starts filtered by their second unit (issue 19 §3)', () => {
  shortcutDifferential('every push equals starting every thread', secondUnitFilter, prose, sizes);
});
