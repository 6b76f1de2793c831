/**
 * Chinese resident identity card number (GB 11643-1999), 18 characters:
 * 6-digit administrative division code, 8-digit birth date (YYYYMMDD),
 * 3-digit sequence code and one check character (ISO 7064 MOD 11-2).
 *
 * Checks: shape, a known province-level prefix, a plausible birth date
 * (1900-01-01 to 2099-12-31, real calendar day; fixed bounds so verdicts never
 * depend on the clock) and the check character. A lower-case `x` is accepted.
 */

const WEIGHTS: readonly number[] = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const CHECK_CHARS = '10X98765432';

/**
 * First two digits: province-level divisions (11–15, 21–23, 31–37, 41–46,
 * 50–54, 61–65), 71 Taiwan, 81 Hong Kong, 82 Macao, 83 (residence permits for
 * Taiwan residents), and 9x (permanent residence ID cards for foreigners, 2023 form).
 */
function plausibleRegion(code: string): boolean {
  const n = Number(code);
  if (code.startsWith('9')) return true;
  return (
    (n >= 11 && n <= 15) ||
    (n >= 21 && n <= 23) ||
    (n >= 31 && n <= 37) ||
    (n >= 41 && n <= 46) ||
    (n >= 50 && n <= 54) ||
    (n >= 61 && n <= 65) ||
    n === 71 ||
    n === 81 ||
    n === 82 ||
    n === 83
  );
}

function plausibleBirthDate(yyyymmdd: string): boolean {
  const year = Number(yyyymmdd.slice(0, 4));
  const month = Number(yyyymmdd.slice(4, 6));
  const day = Number(yyyymmdd.slice(6, 8));
  if (year < 1900 || year > 2099 || month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day <= daysInMonth;
}

/** The check character for the first 17 digits (no validation of its input). */
export function cnResidentIdCheckChar(first17: string): string {
  let sum = 0;
  for (let i = 0; i < 17; i++) {
    sum += (first17.charCodeAt(i) - 48) * (WEIGHTS[i] ?? 0);
  }
  return CHECK_CHARS.charAt(sum % 11);
}

export function cnResidentIdValid(text: string): boolean {
  if (!/^[0-9]{17}[0-9Xx]$/.test(text)) return false;
  if (!plausibleRegion(text.slice(0, 2))) return false;
  if (!plausibleBirthDate(text.slice(6, 14))) return false;
  return cnResidentIdCheckChar(text) === text.charAt(17).toUpperCase();
}
