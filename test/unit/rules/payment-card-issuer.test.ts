import { describe, expect, it } from 'vitest';
import { issuedCardNumber } from '../../../src/core/rules/validators/payment-card-issuer.ts';

describe('issuedCardNumber (issue 17 §4: a card starts with an issuer prefix)', () => {
  it.each([
    ['Visa, 16 digits', '4000 0012 3456 7899'],
    ['Visa, 13 digits', '4222222222222'],
    ['Mastercard 51-55', '5527 2040 1234 5675'],
    ['Mastercard 2-series, low end', '2221000000000000'],
    ['Mastercard 2-series, high end', '2720-9999-0000-0000'],
    ['American Express, 15 digits', '3714 496353 98431'],
    ['Discover 6011', '6011492018733447'],
    ['Discover 644-649', '6445000000000000'],
    ['JCB', '3530111333300000'],
    ['Diners Club, 14 digits', '30569309025904'],
    ['UnionPay, 19 digits', '6212345678901234567'],
    ['Maestro', '6759000000000'],
    ['Mir', '2202000000000000'],
  ])('accepts %s', (_what, n) => {
    expect(issuedCardNumber(n)).toBe(true);
  });

  it.each([
    ['a prefix no network issues (58)', '5802117345029814'],
    ['a prefix no network issues (21)', '2100473956120780'],
    ['just below the Mastercard 2-series', '2220999999999999'],
    ['just above the Mastercard 2-series', '2721000000000000'],
    ['Amex prefix in a 16-digit number', '3714496353984310'],
    ['Mastercard prefix in a 19-digit number', '5527204012345675123'],
    ['Visa prefix in a 15-digit number', '400001234567899'],
    ['a number longer than any card', '4000 0012 3456 7899 1234'],
  ])('rejects %s', (_what, n) => {
    expect(issuedCardNumber(n)).toBe(false);
  });
});
