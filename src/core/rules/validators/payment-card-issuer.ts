/**
 * Whether a card number starts with a prefix a card network issues, in a length
 * that network issues (issue 17 §4: precision). The Luhn check alone passes one
 * random digit string in ten, so numbers in tables, hex dumps and counters
 * (`quanta 2650 1514 …`, `5858 4420 …`) passed as cards; a real card also
 * starts with its network's issuer identification number (IIN, ISO/IEC 7812).
 *
 * The ranges are the networks' published IIN ranges (as tabulated by
 * Wikipedia's "Payment card number" article and Braintree's credit-card-type):
 * Visa, Mastercard (51–55 and 2221–2720), American Express, Discover,
 * UnionPay, JCB, Diners Club, Maestro, Mir, RuPay, Verve, Elo, Hipercard,
 * InstaPayment, InterPayment and Dankort. Only the prefixes the payment-card
 * pattern can start with (2–6) matter; the table is by range so that a range
 * is read as the network publishes it.
 */

interface IssuerRange {
  /** Inclusive bounds of the prefix, as numbers of the same number of digits. */
  readonly from: number;
  readonly to: number;
  /** Lengths (in digits) of the numbers the network issues under it. */
  readonly lengths: readonly number[];
}

const SIXTEEN_TO_NINETEEN = [16, 17, 18, 19];
const TWELVE_TO_NINETEEN = [12, 13, 14, 15, 16, 17, 18, 19];

/** Issuer prefixes by network; `from`/`to` may have 1 to 6 digits. */
const ISSUER_RANGES: readonly IssuerRange[] = [
  // Visa
  { from: 4, to: 4, lengths: [13, 16, 19] },
  // Mastercard
  { from: 51, to: 55, lengths: [16] },
  { from: 2221, to: 2720, lengths: [16] },
  // American Express
  { from: 34, to: 34, lengths: [15] },
  { from: 37, to: 37, lengths: [15] },
  // Discover
  { from: 6011, to: 6011, lengths: SIXTEEN_TO_NINETEEN },
  { from: 644, to: 649, lengths: SIXTEEN_TO_NINETEEN },
  { from: 65, to: 65, lengths: SIXTEEN_TO_NINETEEN },
  // UnionPay (its 622126–622925 is co-branded with Discover)
  { from: 62, to: 62, lengths: SIXTEEN_TO_NINETEEN },
  // JCB
  { from: 3528, to: 3589, lengths: SIXTEEN_TO_NINETEEN },
  // Diners Club International and Carte Blanche
  { from: 300, to: 305, lengths: [14, 15, 16, 17, 18, 19] },
  { from: 3095, to: 3095, lengths: [14, 15, 16, 17, 18, 19] },
  { from: 36, to: 36, lengths: [14, 15, 16, 17, 18, 19] },
  { from: 38, to: 39, lengths: [14, 15, 16, 17, 18, 19] },
  // Maestro and Maestro UK
  { from: 5018, to: 5018, lengths: TWELVE_TO_NINETEEN },
  { from: 5020, to: 5020, lengths: TWELVE_TO_NINETEEN },
  { from: 5038, to: 5038, lengths: TWELVE_TO_NINETEEN },
  { from: 5893, to: 5893, lengths: TWELVE_TO_NINETEEN },
  { from: 6304, to: 6304, lengths: TWELVE_TO_NINETEEN },
  { from: 6759, to: 6759, lengths: TWELVE_TO_NINETEEN },
  { from: 6761, to: 6763, lengths: TWELVE_TO_NINETEEN },
  // Mir
  { from: 2200, to: 2204, lengths: SIXTEEN_TO_NINETEEN },
  // RuPay
  { from: 60, to: 60, lengths: [16] },
  { from: 353, to: 353, lengths: [16] },
  { from: 356, to: 356, lengths: [16] },
  { from: 508, to: 508, lengths: [16] },
  // Verve
  { from: 506099, to: 506198, lengths: [16, 18, 19] },
  { from: 507865, to: 507964, lengths: [16, 18, 19] },
  { from: 650002, to: 650027, lengths: [16, 18, 19] },
  // Elo (its other ranges fall inside Visa's, Discover's and UnionPay's)
  { from: 504175, to: 504175, lengths: [16] },
  { from: 5066, to: 5067, lengths: [16] },
  { from: 509, to: 509, lengths: [16] },
  // Hipercard
  { from: 606282, to: 606282, lengths: [16, 19] },
  { from: 3841, to: 3841, lengths: [16, 19] },
  // InterPayment, InstaPayment
  { from: 636, to: 636, lengths: SIXTEEN_TO_NINETEEN },
  { from: 637, to: 639, lengths: [16] },
  // Dankort
  { from: 5019, to: 5019, lengths: [16] },
];

function digitCount(n: number): number {
  return String(n).length;
}

/** True when the digits of `text` (separators ignored) begin with an issued prefix in an issued length. */
export function issuedCardNumber(text: string): boolean {
  const digits = text.replace(/[^0-9]/g, '');
  return ISSUER_RANGES.some((range) => {
    if (!range.lengths.includes(digits.length)) return false;
    const prefix = Number(digits.slice(0, digitCount(range.from)));
    return prefix >= range.from && prefix <= range.to;
  });
}
