import { describe, expect, it } from 'vitest';
import { IBAN_LENGTHS, ibanValid } from '../../../src/core/rules/validators/iban.ts';

/** Independent reference (BigInt): check digits for `country` + `bban`. */
function makeIban(country: string, bban: string): string {
  const digits = [...`${bban}${country}00`]
    .map((c) => (/[0-9]/.test(c) ? c : String(c.charCodeAt(0) - 55)))
    .join('');
  const check = 98n - (BigInt(digits) % 97n);
  return `${country}${check.toString().padStart(2, '0')}${bban}`;
}

describe('ibanValid', () => {
  it.each([
    'DE27100200300012345678',
    'GB38ABCD20304012345678',
    'FR4112345678900123456789012',
    'NL74EXMP0123456789',
    'NO5412340567891', // shortest (15)
    'MT32ABCD123450000000000012345AB', // 31
    'ES6812345678061234567890',
    'BE53123456789012',
    'SA3510000000123456789012',
    'DE27 1002 0030 0012 3456 78', // printed form
    'gb38abcd20304012345678', // lower case
  ])('accepts %s', (iban) => {
    expect(ibanValid(iban)).toBe(true);
  });

  it('agrees with an independent mod-97 computation', () => {
    const cases: Array<[string, string]> = [
      ['AT', '1234500000123456'],
      ['CH', '00123000004567890'],
      ['PL', '109010140000071219812874'],
      ['IT', 'X1234512345000000123456'],
    ];
    for (const [country, bban] of cases) {
      const iban = makeIban(country, bban);
      expect(iban.length).toBe(IBAN_LENGTHS[country]);
      expect(ibanValid(iban), iban).toBe(true);
    }
  });

  it.each([
    ['DE28100200300012345678', 'wrong check digits'],
    ['DE27100200300012345687', 'transposed digits'],
    ['DE2710020030001234567', 'too short for DE'],
    ['DE271002003000123456789', 'too long for DE'],
    ['XX27100200300012345678', 'unknown country'],
    ['DEAB100200300012345678', 'check digits not numeric'],
    ['DE27-1002-0030-0012-3456-78', 'dashes'],
    ['DE27  1002 0030 0012 3456 78', 'doubled space'],
    ['', 'empty'],
  ])('rejects %s (%s)', (iban) => {
    expect(ibanValid(iban)).toBe(false);
  });

  it('rejects check digits 00, 01 and 99 even where they are congruent mod 97', () => {
    const bban = '12340567891';
    for (const bad of ['00', '01', '99']) {
      expect(ibanValid(`NO${bad}${bban}`)).toBe(false);
    }
    // Find a BBAN whose correct check digits are 02, and check 99 (≡ 02 mod 97) is refused.
    for (let n = 0; n < 10000; n++) {
      const b = String(10000000000 + n);
      const iban = makeIban('NO', b);
      if (iban.slice(2, 4) === '02') {
        expect(ibanValid(iban)).toBe(true);
        expect(ibanValid(`NO99${b}`)).toBe(false);
        return;
      }
    }
    throw new Error('no BBAN with check digits 02 found');
  });
});
