/**
 * The `not-placeholder` validator: a candidate secret counts only when it does
 * not look like a stand-in for one (issue 6, seed 004 §5; issue 17 §4). Secret
 * scanners (gitleaks allow-lists, secretlint's placeholder checks) drop the
 * same shapes, and so does this one, by class rather than by string:
 *
 * - masking and filler: runs of one character (`00000000`, `aaaaaaaa`), short
 *   runs of masking characters (`xxxx`, `****`, `####`);
 * - templates and references: `${VAR}`, `{{ var }}`, `{name}`, `<your-key>`,
 *   `%(pw)s`, `$(VAR)`, a whole `$VAR`, `%VAR%` or `$env:VAR`, a value wrapped in
 *   brackets (`[PASSWORD]`, `(token)`), `process.env.X`, `os.environ[…]`,
 *   `ENV[…]`, `getenv(…)`;
 * - documentation words: `your…`, `…here`, `changeme`, `REPLACE_ME`,
 *   `placeholder`, `redacted`, `dummy`, `sample`, `password`: a random key
 *   never spells a word, so a value that does is a stand-in; and vendors' documented
 *   example keys, which end in `EXAMPLE` (AWS's `AKIAIOSFODNN7EXAMPLE`,
 *   `…/bPxRfiCYEXAMPLEKEY`, `…EXAMPLEID`, `…EXAMPLETOKEN`). `EXAMPLE` elsewhere
 *   in a key-shaped value stays a key: tests and fixtures spell their synthetic
 *   tokens that way (`ghp_EXAMPLEexample…0123`) so that they are redacted like
 *   real ones, and other documented keys are exact strings on a rule's `allow`;
 * - the thing named instead of a value: `password`, `username:password`,
 *   `Benutzer:Passwort`, `null`, `TODO`;
 * - counting digits (issue 17 §4): `123456`, `1234-5678-1234-567`;
 *
 * Generic rules (an assignment whose value has no provider format; their
 * `part` names the value `(?<value>…)`, see validators/index.ts) are also told
 * the name the value is assigned to, and two more judgements apply, which a
 * provider format does not need (the format is the evidence, whatever the
 * name, and synthetic test tokens are built of words), `looksMadeUp`:
 * - hex-speak (`cafebabe:deadbeef`, `0xdeadbeef`; issue 17 §4), which a
 *   provider format is not judged by for the same reason (the Sidekiq format
 *   is 8 hex : 8 hex, and its own fixtures spell hex-speak);
 * - a stand-in word (`fake`, `mock`, `token`: `fakesecuritytoken`), a
 *   counting run (`0123456789`, `abcdefghij`), prose in
 *   another script (`password：请输入至少八位`), another assignment
 *   (`value=BASE64KEY`) or an IP address;
 * - words instead of a value (`wordsOnly`): identifiers, resource paths and
 *   metavariables (`OAUTH2_CLIENT_SECRET`, `projects/p1/secrets/my-secret/2`,
 *   `UID:GID:directory:shell`): every part reads as a
 *   word, where random keys mix case and digits in short, unpronounceable
 *   runs;
 * - a name that says the value is public or not a secret
 *   (`nameSaysNotSecret`: `publishable_key`, `key_id`, `token_url`,
 *   `api_key_example`);
 * - a single-case hex digest or fingerprint under a name without a credential
 *   word (`hexDigestUnderPlainName`: `GPG key: <40 hex>`).
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

/**
 * Ten or more characters counting up (`0123456789`, `1234567890`, `abcdefghij`):
 * filler typed by a person. Ten, so that a random hex key (one chance in 16 per
 * step) practically never has one.
 */
function countingRun(value: string): boolean {
  let run = 1;
  for (let i = 1; i < value.length; i++) {
    const step = value.charCodeAt(i) - value.charCodeAt(i - 1);
    const wraps = value.charAt(i - 1) === '9' && value.charAt(i) === '0';
    run = (step === 1 && /[0-9A-Za-z]/.test(value.charAt(i))) || wraps ? run + 1 : 1;
    if (run >= 10) return true;
  }
  return false;
}

/**
 * Hex-speak (issue 17 §4): a value whose every part is made of the hex letters
 * (and `0` for "o"), in one case, and reads as English (`cafebabe:deadbeef`,
 * `0xDEADBEEF`, `feedface`, `c0ffee00`): magic numbers and placeholders that
 * documentation writes where a hex key would go (generic rules only, see
 * `looksMadeUp`). A random hex key almost never
 * has no digit but 0 (7 of 16 symbols) and reads as words: a vowel (a, e, o)
 * in every three letters at least, never three consonants in a row.
 */
export function hexSpeak(value: string): boolean {
  const parts = value.split(/[^A-Za-z0-9]+/).filter((p) => p !== '');
  return parts.length > 0 && parts.every(hexSpeakPart);
}

function hexSpeakPart(part: string): boolean {
  const body = part.replace(/^0[xX]/, '');
  if (!/^[a-f0]{4,}$|^[A-F0]{4,}$/.test(body)) return false;
  const letters = body.toLowerCase().replace(/0/g, 'o');
  if (!/[a-f]/.test(letters)) return false;
  const vowels = (letters.match(/[aeo]/g) ?? []).length;
  return vowels / letters.length >= 0.3 && !/[bcdf]{3}/.test(letters);
}

/**
 * Digits that count (issue 17 §4): `123456`, `1234-5678-1234-567`,
 * `pass:1234-5678`, `9876 5432`: a number typed as a stand-in. Every group of
 * digits (split at separators; after an optional `word:` prefix, as in
 * openssl's `pass:`) counts up or down by one, wrapping past 9 or 0, six digits
 * or more in all. A random value almost never does (one chance in 5^5 for six
 * digits).
 */
export function countingDigits(value: string): boolean {
  const body = value.replace(/^[A-Za-z]+:/, '');
  if (!/^[0-9]+(?:[-_ ./][0-9]+)*$/.test(body)) return false;
  const groups = body.split(/[^0-9]+/);
  if (groups.join('').length < 6) return false;
  return groups.every((g) => g.length >= 2 && (countsByOne(g, 1) || countsByOne(g, 9)));
}

/** Each digit of `group` is the one before it plus `step` (mod 10). */
function countsByOne(group: string, step: number): boolean {
  for (let i = 1; i < group.length; i++) {
    if ((Number(group[i - 1]) + step) % 10 !== Number(group[i])) return false;
  }
  return true;
}

/** `user:password` with both halves equal, as in `mysql://mysql:mysql@localhost`. */
const SAME_USER_AND_PASSWORD = /^([^:]+):\1$/;

/** Template and masking syntax that never occurs inside a real key. */
const TEMPLATE_SYNTAX =
  /\$\{|\$\(|\{\{|\}\}|\{[A-Za-z_][\w.-]*\}|<[A-Za-z][\w -]*>|%\(|\*\*\*|\.\.\./;

/** A whole value that only refers to a value kept elsewhere, or is wrapped as a stand-in. */
const REFERENCE =
  /^(?:\$[A-Za-z_]\w*|%[A-Za-z_]\w*%|\$env:\w+|\[[^\]]*\]|\([^)]*\)|<[^>]*>|\{[^}]*\})$|^(?:process\.env|import\.meta\.env|os\.environ|os\.getenv|System\.getenv|Environment\.GetEnvironmentVariable|ENV\[|getenv\()/;

/** Words a real random key does not spell; placeholders and README prose do. */
const PLACEHOLDER_WORDS =
  /your|placeholder|change_?me|redacted|dummy|sample|replace|insert|here$|passw(?:or)?d|example(?:key|id|token|secret)?$/i;

/**
 * Words that make a value of unknown format a stand-in (`fakesecuritytoken`,
 * `mocktoken123`), judged for generic rules only: provider test fixtures spell
 * them inside real formats (`xoxb-…-slacktoken…`). Not `secret`: people do
 * make passwords of it (`secretKey456`).
 */
const STAND_IN_WORDS = /fake|mock|token/i;

/**
 * Another assignment where a value should be (`KEYID,value=BASE64KEY`,
 * `type=11,value=…:rick=…`): the name matched the middle of a list of
 * settings. Base64 has `=` only at its end.
 */
const NESTED_ASSIGNMENT = /^[A-Za-z_][\w.-]*=[^=]/;

/** An IP address (`10.0.4.17`, `fd31::1a:2b`, `static:::1a:2b:3c:4d`): an address, not a secret. */
const IP_ADDRESS =
  /^(?:[0-9]{1,3}\.){3}[0-9]{1,3}(?::[0-9]{1,5})?$|^(?:[A-Za-z]+:)?(?=[0-9A-Fa-f:]*::|(?:[0-9A-Fa-f]{1,4}:){7})(?:[0-9A-Fa-f]{0,4}:){2,8}[0-9A-Fa-f]{0,4}$/;

/** Two letters in a row of a script other than Latin (`请输入至少八位`, `введите`): prose, not a value. */
const PROSE_SCRIPT = /(?:(?!\p{Script=Latin})\p{L}){2}/u;

/**
 * A whole value (or `user:value`) that is only a stand-in word, as in
 * `https://user:password@host`, `curl -u username:token`, `Benutzer:Passwort`.
 */
const STAND_IN =
  /^(?:[\p{L}_-]{1,32}:)?(?:password|passwd|pass|pwd|secret|token|apikey|api_key|changeme|username|user|test|admin|root|guest|abc|foo|bar|passwort|kennwort|wachtwoord|contraseña|contrasena|senha|motdepasse|пароль|hasło|lösenord|null|none|nil|undefined|true|false|todo|tbd|fixme)$/iu;

/**
 * Reads as a word: letters only (not six or more hex letters a-f), lower-case,
 * UPPER-CASE, Capitalised or camelCase with parts of three or more letters,
 * pronounceable (a vowel in every six or seven letters at least, as in
 * `length` or `string`, and no run of five consonants).
 */
export function readsAsWord(part: string): boolean {
  // Six or more hex letters only (`cafebabe`, `deadbeef`) is a hex value, not a word
  // (hex-speak is a placeholder of its own, `hexSpeak`).
  if (!/^[A-Za-z]+$/.test(part) || /^[A-Fa-f]{6,}$/.test(part)) return false;
  const pieces = part.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])/g) ?? [];
  if (pieces.join('') !== part) return false;
  if (pieces.length > 1 && pieces.some((p) => p.length < 3)) return false;
  if (part.length < 6) return true;
  const vowels = (part.match(/[aeiouy]/gi) ?? []).length;
  return vowels / part.length >= 0.15 && !/[^aeiouy]{5}/i.test(part);
}

/**
 * Only words: identifiers, resource paths, metavariables, field layouts. Parts
 * are split at anything but letters and digits; with more than one part, a
 * part may be a number (`projects/1234567890/…`; no more numbers than words,
 * so `4821-9933` stays a value) or a word with a digit or two at its end (`v1`,
 * `OAUTH2`, `Key1`, `central1`). A single part must be a plain
 * word, or a compound name with a digit or two at its end
 * (`ExistingLabelValue1`; `hunter2` stays a value).
 */
export function wordsOnly(value: string): boolean {
  const parts = value.split(/[^A-Za-z0-9]+/).filter((p) => p !== '');
  if (parts.length === 0) return false;
  if (parts.length === 1) {
    // A single word; with a digit or two at its end only if it is a compound
    // name (`ExistingLabelValue1`), since `hunter2` is how people make passwords.
    const m = /^([A-Za-z]+)([0-9]{0,2})$/.exec(parts[0] ?? '');
    if (m === null || !readsAsWord(m[1] ?? '')) return false;
    return m[2] === '' || (m[1]?.match(/[A-Z][a-z]+/g) ?? []).length >= 2;
  }
  let words = 0;
  let numbers = 0;
  for (const p of parts) {
    if (/^[0-9]{1,12}$/.test(p)) {
      numbers++;
      continue;
    }
    const m = /^([A-Za-z]+)[0-9]{0,2}$/.exec(p);
    if (m === null || !readsAsWord(m[1] ?? '')) return false;
    words++;
  }
  return words > 0 && words >= numbers;
}

/** True when `value` looks like a placeholder rather than a secret. */
export function looksLikePlaceholder(value: string): boolean {
  return (
    REPEATED_RUN.test(value) ||
    SAME_USER_AND_PASSWORD.test(value) ||
    TEMPLATE_SYNTAX.test(value) ||
    REFERENCE.test(value) ||
    PLACEHOLDER_WORDS.test(value) ||
    STAND_IN.test(value) ||
    countingDigits(value)
  );
}

/** Name parts that say the value is public or made up. */
const PUBLIC_OR_MADE_UP = new Set([
  'public',
  'publishable',
  'pub',
  'pubkey',
  'example',
  'examples',
  'sample',
  'samples',
  'dummy',
  'fake',
  'placeholder',
]);

/** Last name parts that say the value is about a secret, not the secret itself. */
const NOT_THE_SECRET = new Set([
  'id',
  'ids',
  'url',
  'urls',
  'uri',
  'endpoint',
  'host',
  'hostname',
  'domain',
  'path',
  'file',
  'filename',
  'dir',
  'name',
  'type',
  'format',
  'version',
  'size',
  'length',
  'len',
  'count',
  'prefix',
  'region',
  'label',
  'header',
  'field',
  'param',
  'method',
  'mode',
  'algorithm',
  'alg',
  'expiry',
  'expires',
  'ttl',
  'timeout',
  'policy',
  'rotation',
  'enabled',
  'required',
]);

/**
 * Does the name a value is assigned to say it is not a secret? `text` is the
 * name as matched, with quotes and spaces; the name is the last identifier on
 * its last line (`"api_key_id"` → `api_key_id`), split at `_`, `-`, `.` and
 * camelCase humps. A public word anywhere in it (`publishable_key`), or a last
 * word that names something about a secret (`key_id`, `token_url`), says so.
 */
export function nameSaysNotSecret(text: string): boolean {
  const line = text.slice(text.lastIndexOf('\n') + 1);
  const names = line.match(/[A-Za-z][A-Za-z0-9_.-]*/g);
  const name = names?.[names.length - 1];
  if (name === undefined) return false;
  const words = (name.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+/g) ?? []).map((w) =>
    w.toLowerCase(),
  );
  const last = words[words.length - 1];
  return (
    words.some((w) => PUBLIC_OR_MADE_UP.has(w)) || (last !== undefined && NOT_THE_SECRET.has(last))
  );
}

/**
 * Single-case hex of the length of a digest or an OpenPGP fingerprint: SHA-1 and
 * v4 fingerprints (40), SHA-256 and v6 fingerprints (64), SHA-384 (96), SHA-512
 * (128). Not 32 (MD5): many services issue 32-hex API keys.
 */
const HEX_DIGEST =
  /^(?:[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{96}|[0-9a-f]{128}|[0-9A-F]{40}|[0-9A-F]{64}|[0-9A-F]{96}|[0-9A-F]{128})$/;

/** Name words that make a value a credential whatever its shape. */
const CREDENTIAL_WORD = /secret|token|pass|pwd|cred|auth|api|private|access|login/i;

/**
 * A public identifier where a generic rule expects a secret (issue 17 §4): a
 * digest of a file or commit, an OpenPGP fingerprint (`Release GPG key: <40
 * hex>`, `localKeyIdHex: '<40 hex>'`, a session's `Master-Key:` in a manual).
 * Only under a name that does not say credential: `API_TOKEN=<40 hex>` and
 * `secret_key_base: <128 hex>` stay secrets. An unknown name (`''`) never
 * makes one.
 */
export function hexDigestUnderPlainName(value: string, name: string): boolean {
  return name.trim() !== '' && HEX_DIGEST.test(value) && !CREDENTIAL_WORD.test(name);
}

/**
 * The judgements for a value of unknown format (generic rules): words only,
 * a stand-in word, a counting run, or a name that says it is no secret.
 */
export function looksMadeUp(value: string, name: string): boolean {
  return (
    wordsOnly(value) ||
    STAND_IN_WORDS.test(value) ||
    PROSE_SCRIPT.test(value) ||
    NESTED_ASSIGNMENT.test(value) ||
    IP_ADDRESS.test(value) ||
    countingRun(value) ||
    hexSpeak(value) ||
    nameSaysNotSecret(name) ||
    hexDigestUnderPlainName(value, name)
  );
}

/**
 * The validator: accepts a value that is not a placeholder, not a time-based
 * UUID and, when `minEntropy` is given, has at least that many bits of entropy
 * per character. `name` is given for generic rules only (`''` when the name is
 * not known): then a value of words only, or one assigned to a name that says
 * it is no secret, is rejected too.
 */
export function notPlaceholder(value: string, minEntropy?: number, name?: string): boolean {
  if (value.length === 0 || looksLikePlaceholder(value) || isTimeBasedUuid(value)) return false;
  if (name !== undefined && looksMadeUp(value, name)) return false;
  return minEntropy === undefined || entropyAtLeast(value, minEntropy);
}
