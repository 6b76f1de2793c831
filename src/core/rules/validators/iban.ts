/**
 * IBAN check (ISO 13616): country code, two check digits, country-specific
 * length, and the ISO 7064 MOD 97-10 checksum.
 *
 * Spaces between characters are allowed (`DE89 3704 …`); letters may be upper
 * or lower case. Country codes not in the IBAN registry are rejected: without a
 * known length a 1-in-97 checksum alone is too weak to call a string an IBAN.
 */

/** IBAN lengths per country, from the SWIFT IBAN registry. */
// prettier-ignore
export const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BI: 27,
  BR: 29, BY: 28, CH: 21, CR: 22, CY: 28, CZ: 24, DE: 22, DJ: 27, DK: 18, DO: 28,
  EE: 20, EG: 29, ES: 24, FI: 18, FK: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23,
  GL: 18, GR: 27, GT: 28, HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23, IS: 26, IT: 27,
  JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20, LV: 21, LY: 25,
  MC: 27, MD: 24, ME: 22, MK: 19, MN: 20, MR: 27, MT: 31, MU: 30, NI: 28, NL: 18,
  NO: 15, OM: 23, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, RU: 33,
  SA: 24, SC: 31, SD: 18, SE: 24, SI: 19, SK: 24, SM: 27, SO: 23, ST: 25, SV: 28,
  TL: 23, TN: 24, TR: 26, UA: 29, VA: 22, VG: 24, XK: 20, YE: 30,
};

/** Remainder of the rearranged IBAN (`BBAN + country + check digits`) modulo 97. */
export function ibanMod97(compact: string): number {
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let rem = 0;
  for (let i = 0; i < rearranged.length; i++) {
    const code = rearranged.charCodeAt(i);
    if (code >= 48 && code <= 57) {
      rem = (rem * 10 + (code - 48)) % 97;
    } else {
      // A–Z count as 10–35: two decimal digits.
      rem = (rem * 100 + (code - 55)) % 97;
    }
  }
  return rem;
}

export function ibanValid(text: string): boolean {
  // Single spaces between characters only; no leading, trailing or doubled spaces.
  if (!/^[A-Za-z0-9]+(?: [A-Za-z0-9]+)*$/.test(text)) return false;
  const compact = text.replace(/ /g, '').toUpperCase();
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]+$/.test(compact)) return false;
  const expected = IBAN_LENGTHS[compact.slice(0, 2)];
  if (expected === undefined || compact.length !== expected) return false;
  // Check digits are always 02–98; 00, 01 and 99 are congruent to valid ones mod 97.
  const check = compact.slice(2, 4);
  if (check === '00' || check === '01' || check === '99') return false;
  return ibanMod97(compact) === 1;
}
