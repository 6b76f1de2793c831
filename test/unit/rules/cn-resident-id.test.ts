import { describe, expect, it } from 'vitest';
import {
  cnResidentIdCheckChar,
  cnResidentIdValid,
} from '../../../src/core/rules/validators/cn-resident-id.ts';

/** Independent reference (GB 11643-1999, ISO 7064 MOD 11-2). */
function withCheckChar(first17: string): string {
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(first17[i]) * (weights[i] ?? 0);
  return first17 + ('10X98765432'[sum % 11] ?? '?');
}

describe('cnResidentIdValid', () => {
  it.each([
    '440305199003071236',
    '110108200002294566', // 29 February 2000 (leap year)
    '31011519851231007X', // check character X
    '31011519851231007x', // lower-case x
    '510107197608153219',
    '650102202410108888',
    '810000199505051236', // Hong Kong residents' permit prefix
  ])('accepts %s', (id) => {
    expect(cnResidentIdValid(id)).toBe(true);
  });

  it('agrees with an independent check-character computation', () => {
    for (const first17 of ['33010619881111222', '21020319700101001', '46000020101010101']) {
      const id = withCheckChar(first17);
      expect(cnResidentIdCheckChar(first17)).toBe(id.slice(-1));
      expect(cnResidentIdValid(id), id).toBe(true);
    }
  });

  it.each([
    ['440305199003071235', 'wrong check character'],
    ['440305199003071X36', 'X in the body'],
    ['44030519900307123', '17 characters'],
    ['4403051990030712366', '19 characters'],
    [withCheckChar('11010819000229456'), '29 February 1900 (not a leap year)'],
    [withCheckChar('11010820230431456'), '31 April'],
    [withCheckChar('11010818991231456'), 'born before 1900'],
    [withCheckChar('11010820231301456'), 'month 13'],
    [withCheckChar('00010819900101456'), 'region 00'],
    [withCheckChar('24010819900101456'), 'region 24 does not exist'],
    ['44030519900307123 ', 'trailing space'],
  ])('rejects %s (%s)', (id) => {
    expect(cnResidentIdValid(id)).toBe(false);
  });
});
