import { describe, expect, it } from 'vitest';
import { luhnValid } from '../../../src/core/rules/validators/luhn.ts';

/** Independent reference: append the Luhn check digit to `body`. */
function withCheckDigit(body: string): string {
  let sum = 0;
  const digits = [...body].reverse();
  digits.forEach((ch, i) => {
    let d = Number(ch);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  });
  return body + String((10 - (sum % 10)) % 10);
}

describe('luhnValid', () => {
  it.each([
    '4000001234567899', // 16 digits
    '5105100000005109',
    '370000000000028', // 15 digits (Amex length)
    '6011000099999991',
    '6200000000000000000', // 19 digits
    '40000000000010', // 14 digits
    '4000 0012 3456 7899',
    '4000-0012-3456-7899',
    '3700 000000 00028',
  ])('accepts %s', (n) => {
    expect(luhnValid(n)).toBe(true);
  });

  it('agrees with an independent check-digit computation', () => {
    for (const body of ['40000012345', '51051000000051', '62000000000000001', '3530000000000']) {
      const n = withCheckDigit(body);
      expect(luhnValid(n), n).toBe(true);
      const wrong = n.slice(0, -1) + String((Number(n.slice(-1)) + 1) % 10);
      expect(luhnValid(wrong), wrong).toBe(false);
    }
  });

  it.each([
    ['4000001234567890', 'wrong check digit'],
    ['4000001234567989', 'transposed digits'],
    ['40000012345', 'too short (11 digits)'],
    ['400000000000000000006', 'too long (21 digits)'],
    ['0000 0000 0000 0000', 'all zeros'],
    ['4000 0012 3456 789X', 'a letter'],
    ['4000.0012.3456.7899', 'dots are not separators'],
    ['4000  0012 3456 7899', 'doubled separator'],
    [' 4000001234567899', 'leading separator'],
    ['4000001234567899-', 'trailing separator'],
    ['', 'empty'],
  ])('rejects %s (%s)', (n) => {
    expect(luhnValid(n)).toBe(false);
  });
});
