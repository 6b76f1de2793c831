import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runValidator } from '../../../src/core/rules/validators/index.ts';
import {
  looksLikePlaceholder,
  looksMadeUp,
  nameSaysNotSecret,
  notPlaceholder,
  wordsOnly,
} from '../../../src/core/rules/validators/not-placeholder.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';

const ctx = { allowedImageHosts: [] as string[] };

describe('looksLikePlaceholder', () => {
  it.each([
    'xxxxxxxxxxxxxxxxxxxx',
    'AKIAXXXXXXXXXXXXXXXX',
    'sk_live_AAAAAAAAAAAAAAAAAAAAAAAA',
    'glpat-XXXXXXXXXXX-XXXXXXXX',
    '00000000000000000000',
    '${OPENAI_API_KEY}',
    '{{ secrets.TOKEN }}',
    '<your-api-key>',
    'sk-...',
    '****',
    'YOUR_API_KEY',
    'your-token-here',
    'changeme',
    'REDACTED',
    'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    'password',
    'username:password',
    'mysql:mysql',
    // Issue 17 §4: brackets, braces, references, documentation words, vendors' EXAMPLE keys.
    '[PASSWORD]',
    '<token>',
    '<your-key-here>',
    '{password}',
    '{{ secret }}',
    '%(pw)s',
    '$DB_PASSWORD',
    '$(PGPASSWORD)',
    '%NUGET_PAT%',
    '$env:API_KEY',
    '(token)',
    'process.env.OPENAI_API_KEY',
    'os.environ["DB_PASSWORD"]',
    'REPLACE_ME',
    'your-api-key',
    'sample-key-1234',
    'AKIAI44QH8DHBEXAMPLE',
    'je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY',
    'password123',
    '123Abpassword',
    'Benutzer:Passwort',
    'gebruiker:wachtwoord',
    'null',
    'TODO',
    // Issue 17 §4: counting digits.
    '234567',
    '4567-8901-2345',
    'pin:3456-7890',
    '87654-3210',
  ])('%j is a placeholder', (value) => {
    expect(looksLikePlaceholder(value)).toBe(true);
  });

  it.each([
    'ghp_EXAMPLEexampleEXAMPLEexample01234567',
    'hvb.AAAAAQJgxDgqsGNorpoOR7hPZ5SU',
    'q7RvT2pLx9WdK4mZ',
    'app:Tq8mZ2xLk9',
    'AKIAEXAMPLE2EXAMPLE3',
    // Repeated short patterns are left alone: test fixtures build tokens that way.
    'ghp_a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2',
    // Words a provider format may spell by chance or in fixtures are judged for generic rules only.
    'xoxb-50014434-slacktokenx29U9X1bQ',
    'secretKey456',
    'OAUTH2_CLIENT_SECRET',
    'aBcDeFgHiJkLmNoPqRsT1234567890abcdefghij',
    // Brackets inside a generated password do not make it a template.
    'Tq8(mZ2]xLk9',
    // Hex-speak inside a provider format stays (judged for generic rules only), as do
    // hex with digits and digits that do not count.
    'facade00:beadfeed',
    'bdfcabdf',
    '9c4e1a7f:3b8d2e60',
    'DeadBeef',
    '2468-1357',
    '135792',
    '12345',
  ])('%j is not a placeholder', (value) => {
    expect(looksLikePlaceholder(value)).toBe(false);
  });

  it('flags any value that embeds a template or a run of masking characters', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 20 }),
        fc.constantFrom('${', '{{', 'xxxx', 'XXXX', '****', '00000000'),
        fc.string({ maxLength: 20 }),
        (before, marker, after) => looksLikePlaceholder(before + marker + after),
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });
});

describe('looksMadeUp: a value of unknown format (generic rules)', () => {
  it.each([
    ['OAUTH2_CLIENT_SECRET', ''],
    ['OAUTH2-CLIENT-SECRET', ''],
    ['projects/my-project/locations/global/keyRings/ring', ''],
    ['accessPolicies/123/accessLevels/a_level', ''],
    ['UID:GID:user_name:directory:shell', ''],
    ['mysecret:latest', ''],
    ['ExistingLabelValue1', ''],
    ['fakesecuritytoken', ''],
    ['aBcDeFgHiJkLmNoPqRsT1234567890abcdefghij', ''],
    ['请输入至少八位数字', ''],
    ['1234567890', ''],
    ['value=BASE64PUBLICKEY', ''],
    ['static:::1a:2b:3c:4d', ''],
    ['fd31:bf08:57cb::1', ''],
    ['10.0.4.17:5432', ''],
    ['projects/1234567890/locations/us-west1', ''],
    ['Xk29fLq8ZtWm', 'api_key_id'],
    ['Xk29fLq8ZtWm', '"token_url": "'],
    ['Xk29fLq8ZtWm', 'publishable_key'],
    ['Xk29fLq8ZtWm', 'apiKeyExample'],
    // Issue 17 §4: a digest or OpenPGP fingerprint under a name with no credential word.
    ['7F3A9C01E2B4D6F8A0C2E4B6D8F0A1C3E5B7D9F2', 'Signing key: '],
    ['3c9e0b7a1f4d2e8c6b5a09f7e3d1c2b4a6f8e0d9c7b5a3f1e2d4c6b8a0f9e7d5', 'checksumKey = '],
    ['9a4c01e7b3f25d8c6e0a7b1d4f9c2e8a5b3d7f10', "keyIdHex: '"],
    // Issue 17 §4: hex-speak.
    ['decafbad', ''],
    ['0xC0FFEEBABE', ''],
    ['facade00:beadfeed', 'password'],
  ])('%j assigned to %j is made up', (value, name) => {
    expect(looksMadeUp(value, name)).toBe(true);
  });

  it.each([
    ['Xk29fLq8ZtWm', 'DB_PASSWORD'],
    ['hunter2', 'password'],
    ['9c4e1a7f:3b8d2e60', ''],
    ['bdfcabdf', ''],
    ['correct-horse-battery-staple9x', ''],
    ['Summer2024!', 'password'],
    ['Tq8mZ2xLk9vR4nWb', 'client_secret'],
    ['Tq8mZ2xLk9vR4nWb', 'api_key'],
    ['Tq8mZ2xLk9vR4nWb', 'SONAR_LOGIN'],
    ['secretKey456', 'password'],
    ['4821-9933', 'pin'],
    ['2021-07-04:1999', 'password'],
    ['dGhlIHNlY3JldCBrZXk=', 'api_key'],
    ['EEGlnEPYJV//kbvvIqxKkQwOiS+UENyPncC4bF46ong=', 'PrivateKey'],
    ['9a4c01e7b3f25d8c6e0a7b1d4f9c2e8a5b3d7f10', 'API_TOKEN='],
    ['3c9e0b7a1f4d2e8c6b5a09f7e3d1c2b4a6f8e0d9c7b5a3f1e2d4c6b8a0f9e7d5', 'secret_key_base: '],
    ['9a4c01e7b3f25d8c6e0a7b1d4f9c2e8a5b3d7f10', ''],
    ['9a4C01e7b3f25d8c6e0a7b1d4f9c2e8a5b3d7f10', 'key: '],
    ['9a4c01e7b3f25d8c6e0a7b1d4f9c2e8a', 'key: '],
  ])('%j assigned to %j is a value', (value, name) => {
    expect(looksMadeUp(value, name)).toBe(false);
  });

  it('never reads a value with a digit between letters as words only', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z0-9_/:.-]{0,20}[A-Za-z][0-9]+[A-Za-z][A-Za-z0-9_/:.-]{0,20}$/),
        (value) => !wordsOnly(value),
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('reads a name by its words: public or made-up anywhere, about-a-secret at the end', () => {
    expect(nameSaysNotSecret('PUBLISHABLE_KEY=')).toBe(true);
    expect(nameSaysNotSecret('"api_key_id": "')).toBe(true);
    expect(nameSaysNotSecret('tokenUrl = ')).toBe(true);
    expect(nameSaysNotSecret('dummy_secret: ')).toBe(true);
    expect(nameSaysNotSecret('API_KEY=')).toBe(false);
    expect(nameSaysNotSecret('id_token=')).toBe(false);
    expect(nameSaysNotSecret('urlSigningKey: ')).toBe(false);
    expect(nameSaysNotSecret('')).toBe(false);
  });
});

describe('notPlaceholder', () => {
  it('rejects the empty value and placeholders', () => {
    expect(notPlaceholder('')).toBe(false);
    expect(notPlaceholder('xxxxxxxxxxxx')).toBe(false);
  });

  it('applies minEntropy only when given', () => {
    expect(notPlaceholder('abababzz')).toBe(true);
    expect(notPlaceholder('abababzz', 3)).toBe(false);
    expect(notPlaceholder('Xk29fLq8ZtWm', 3)).toBe(true);
  });

  it('judges the name and the made-up shapes only when the part names the value', () => {
    const generic = { name: 'not-placeholder' as const, part: '^(?<name>[^=]*)=(?<value>.*)$' };
    expect(runValidator(generic, 'api_key=Xk29fLq8ZtWm', ctx).ok).toBe(true);
    expect(runValidator(generic, 'api_key_id=Xk29fLq8ZtWm', ctx).ok).toBe(false);
    expect(runValidator(generic, 'api_key=OAUTH2_CLIENT_SECRET', ctx).ok).toBe(false);
    const provider = { name: 'not-placeholder' as const, part: '=(.*)$' };
    expect(runValidator(provider, 'SUMO_ACCESS_ID=su6vwoLyLrAAB9', ctx).ok).toBe(true);
    expect(runValidator(provider, 'api_key=OAUTH2_CLIENT_SECRET', ctx).ok).toBe(true);
    expect(notPlaceholder('Xk29fLq8ZtWm', 3, 'key_id')).toBe(false);
    expect(notPlaceholder('Xk29fLq8ZtWm', 3)).toBe(true);
  });

  it('is reachable through runValidator, with part', () => {
    expect(runValidator({ name: 'not-placeholder' }, 'ghp_Zr8Qm3Tk1VwX', ctx)).toEqual({
      ok: true,
    });
    expect(
      runValidator(
        { name: 'not-placeholder', minEntropy: 2, part: '^[^:]+://([^/@]*:[^@]*)@' },
        'postgres://app:${DB_PASSWORD}@db',
        ctx,
      ),
    ).toEqual({ ok: false });
    expect(
      runValidator(
        { name: 'not-placeholder', minEntropy: 2, part: '^[^:]+://([^/@]*:[^@]*)@' },
        'postgres://app:Tq8mZ2xLk9@db',
        ctx,
      ),
    ).toEqual({ ok: true });
  });
});
