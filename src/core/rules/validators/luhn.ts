/**
 * Luhn (mod 10) check for payment card numbers.
 *
 * Accepts 12–19 digits, optionally separated by single spaces or dashes
 * (`4111 1111 1111 1111`, `4111-1111-1111-1111`). Anything else (letters,
 * other separators, leading/trailing or doubled separators) is not a candidate.
 * All-zero numbers pass the arithmetic but are never real cards, so they are
 * rejected.
 */
export function luhnValid(text: string): boolean {
  let sum = 0;
  let digits = 0;
  let nonZero = false;
  let previousWasSeparator = true; // rejects a leading separator
  // Walk from the right so that the doubling position is known without a second pass.
  for (let i = text.length - 1; i >= 0; i--) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) {
      let d = code - 48;
      if (d !== 0) nonZero = true;
      if (digits % 2 === 1) {
        d *= 2;
        if (d > 9) d -= 9;
      }
      sum += d;
      digits++;
      previousWasSeparator = false;
    } else if (code === 32 || code === 45) {
      if (previousWasSeparator) return false; // trailing or doubled separator
      previousWasSeparator = true;
    } else {
      return false;
    }
  }
  if (previousWasSeparator) return false; // leading separator (or empty text)
  return digits >= 12 && digits <= 19 && nonZero && sum % 10 === 0;
}
