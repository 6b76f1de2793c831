/**
 * The `not-placeholder` validator: a candidate secret counts only when it does
 * not look like a stand-in for one (issue 6, seed 004 §5). Secret scanners
 * (gitleaks allow-lists, secretlint's placeholder checks) drop the same shapes:
 * documentation writes `xxxxxxxx`, `XXXXXXXX` or `00000000` where a key goes,
 * templates write `${VAR}`, `{{ var }}` or `<your-key>`, and READMEs spell the
 * value out as `your_api_key_here` or `changeme`.
 *
 * It rejects the word "example" only at the end of a value (AWS documents
 * `AKIAIOSFODNN7EXAMPLE` and `…/bPxRfiCYEXAMPLEKEY`): other documented keys
 * are exact strings handled by each rule's `allow` list, and a key-shaped value
 * that merely contains the word is still treated as a key (fail closed).
 *
 * The validator also rejects a value that is exactly a time-based (v1, v2, v6)
 * UUID: not a stand-in, but not a credential either (see time-based-uuid.ts).
 */
import { entropyAtLeast } from './entropy.ts';
import { isTimeBasedUuid } from './time-based-uuid.ts';

/**
 * A long run of one character (8 or more: `00000000`, `aaaaaaaa`) or a short
 * run of a masking character (`xxxx`, `XXXX`, `****`, `####`). Shorter runs of
 * other characters are left alone: base64 of binary data (Vault batch tokens,
 * macaroons) legitimately contains `AAAAA`.
 */
const REPEATED_RUN = /(.)\1{7,}|([xX*#])\2{3,}/;

/** `user:password` with both halves equal, as in `mysql://mysql:mysql@localhost`. */
const SAME_USER_AND_PASSWORD = /^([^:]+):\1$/;

/** Template and masking syntax that never occurs inside a real key. */
const TEMPLATE_SYNTAX = /\$\{|\{\{|\}\}|<[A-Za-z][\w -]*>|%\(|\*\*\*|\.\.\./;

/** Words a real random key does not spell; placeholders and README prose do. */
const PLACEHOLDER_WORDS =
  /your|placeholder|change_?me|redacted|dummy|replace|insert|secret_?here|key_?here|token_?here|example(?:key)?$/i;

/**
 * A whole value (or `user:value`) that is only a stand-in word, as in
 * `https://user:password@host` or `curl -u username:token`.
 */
const STAND_IN =
  /^(?:[A-Za-z_-]{1,32}:)?(?:password|passwd|pass|pwd|secret|token|apikey|api_key|changeme|username|user|test|admin|root|guest|abc|foo|bar)$/i;

/** True when `value` looks like a placeholder rather than a secret. */
export function looksLikePlaceholder(value: string): boolean {
  return (
    REPEATED_RUN.test(value) ||
    SAME_USER_AND_PASSWORD.test(value) ||
    TEMPLATE_SYNTAX.test(value) ||
    PLACEHOLDER_WORDS.test(value) ||
    STAND_IN.test(value)
  );
}

/**
 * The validator: accepts a value that is not a placeholder, not a time-based
 * UUID and, when `minEntropy` is given, has at least that many bits of entropy
 * per character.
 */
export function notPlaceholder(value: string, minEntropy?: number): boolean {
  if (value.length === 0 || looksLikePlaceholder(value) || isTimeBasedUuid(value)) return false;
  return minEntropy === undefined || entropyAtLeast(value, minEntropy);
}
