/**
 * `value`, `generic` and `continuation` in the shipped packs (DESIGN.md §3.10,
 * issue 17 §2): a rule whose match holds a name, an operator or a quote before
 * the secret says which part is the value, so the engine redacts only it and a
 * person reads `OPENAI_API_KEY=[redacted:openai-api-key]`.
 *
 * For every rule with a `value`, on every match of its own match examples:
 * group 1 is found and non-empty, it ends where the match ends (or just before
 * a closing quote, or before the `@` that ends a URL's userinfo: URL rules
 * match `scheme://user:password@` and keep user and host), and the text before
 * it does not end inside the value's
 * own run of characters (the value is not cut in two). A value ends in a unit
 * of the rule's `continuation` class, when it has one.
 */
import { describe, expect, it } from 'vitest';
import type { RulePack, RuleSpec } from '../../../src/core/rules/rule.ts';
import { shippedPacks } from '../../support/shipped-packs.ts';
import { ruleMatches } from './rule-matches.ts';

const packs = shippedPacks();
const rules: RuleSpec[] = packs.flatMap(([, pack]: [string, RulePack]) => pack.rules);
const withValue = rules.filter((r) => r.value !== undefined);
const byId = new Map(rules.map((r) => [r.id, r]));

function rule(id: string): RuleSpec {
  const r = byId.get(id);
  if (r === undefined) throw new Error(`no rule ${id}`);
  return r;
}

/** Group 1 of `value` in `match`, with its offsets, or undefined. */
function valueOf(
  spec: RuleSpec,
  match: string,
): { text: string; start: number; end: number } | undefined {
  const m = new RegExp(spec.value ?? '', 'd').exec(match);
  const span = m?.indices?.[1];
  if (m === null || span === undefined) return undefined;
  return { text: m[1] ?? '', start: span[0], end: span[1] };
}

/** The value of the first match of `spec` in `text` (the rule alone). */
function valueIn(spec: RuleSpec, text: string): string | undefined {
  const first = ruleMatches(spec, text)[0];
  return first === undefined ? undefined : valueOf(spec, first.text)?.text;
}

/**
 * Characters that would continue the value's run if they stood right before
 * it: letters and digits always, and the value's own punctuation, except the
 * separators an assignment or a URL puts before a value (`=`, `:`), which a
 * value may also contain (base64 padding, `user:password`).
 */
function continuesRun(ch: string, value: string): boolean {
  if (/[A-Za-z0-9]/.test(ch)) return true;
  if (ch === '=' || ch === ':' || /\s/.test(ch)) return false;
  return value.includes(ch);
}

/** What may follow the value inside the match: a closing quote, or the `@` that ends a URL's userinfo. */
const CLOSING = /^["'`@]$/;

describe('value: the part of a match that is the secret', () => {
  it('is declared by the rules that match a name or an operator before the secret', () => {
    expect(withValue.length).toBeGreaterThan(90);
    for (const r of rules) {
      // gitleaks-style `name[\w.-]{0,25} op value` rules and the generic assignment rules.
      if (r.pattern.includes(String.raw`[\w.-]{0,25}`)) expect(r.value, r.id).toBeDefined();
    }
    for (const id of [
      'password-assignment',
      'password-in-words',
      'sql-password-clause',
      'generic-client-secret',
      'generic-api-key',
      'curl-auth-user',
      'url-basic-auth',
      'database-url-password',
      'authorization-header',
      'npmrc-auth-credential',
      'npm-legacy-auth-token',
      'nuget-config-password',
      'gcp-private-key-id',
      'azure-storage-account-key',
      'us-ssn-labelled',
      'passport-number',
    ]) {
      expect(rule(id).value, id).toBeDefined();
    }
  });

  it('is not declared by bare provider formats (the whole match is the secret)', () => {
    for (const id of ['github-pat', 'slack-token', 'openai-api-key', 'jwt', 'aws-access-key-id']) {
      expect(rule(id).value, id).toBeUndefined();
    }
  });

  it.each(withValue.map((r) => [r.id, r] as const))('%s: one capturing group', (_id, spec) => {
    const groups = (new RegExp(`(?:${spec.value ?? ''})|`).exec('') ?? []).length - 1;
    expect(groups).toBe(1);
  });

  it.each(withValue.map((r) => [r.id, r] as const))(
    '%s: on every match of its examples, group 1 is the whole value and only it',
    (_id, spec) => {
      let checked = 0;
      for (const text of spec.examples.match) {
        for (const match of ruleMatches(spec, text)) {
          const where = `${spec.id} in ${JSON.stringify(match.text)}`;
          const value = valueOf(spec, match.text);
          expect(value, where).toBeDefined();
          if (value === undefined) continue;
          expect(value.text.length, where).toBeGreaterThan(0);
          const after = match.text.slice(value.end);
          expect(after === '' || CLOSING.test(after), `${where}: ends at the match end`).toBe(true);
          const before = match.text.charAt(value.start - 1);
          if (value.start > 0) {
            expect(continuesRun(before, value.text), `${where}: cut after ${before}`).toBe(false);
          }
          if (spec.continuation !== undefined) {
            // The value's last unit is one its continuation would take.
            const unit = new RegExp(`^${spec.continuation}$`, 'u');
            const last = [...value.text].at(-1) ?? '';
            expect(unit.test(last), `${where}: ends in ${spec.continuation}`).toBe(true);
          }
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(0);
    },
  );

  // What a person will read: the name, the operator and the quotes stay.
  it.each([
    ['password-assignment', 'DB_PASSWORD=Xk29fLq8ZtWm', 'Xk29fLq8ZtWm'],
    ['password-assignment', '{"client_secret": "q7RvT2pLx9WdK4mZ"}', 'q7RvT2pLx9WdK4mZ'],
    ['password-assignment', "'password' => '6MRxD#4011czO',", '6MRxD#4011czO'],
    ['password-assignment', 'if (password === "Vb7#qLz2Wx9k") x();', 'Vb7#qLz2Wx9k'],
    ['password-assignment', 'password：Tq8!mZ2xLk9v', 'Tq8!mZ2xLk9v'],
    ['generic-api-key', 'auth_key: FQTB2eTpZcNdRN50RKGi76HA', 'FQTB2eTpZcNdRN50RKGi76HA'],
    [
      'generic-api-key',
      'curl "https://x.test/v1?api_key=Q3x9LmT7vK2pZ8wR4n"',
      'Q3x9LmT7vK2pZ8wR4n',
    ],
    [
      'generic-client-secret',
      'CLIENT_SECRET=CrdzH0KCOR2aFkwXoGzDyayKv7lTMDqq',
      'CrdzH0KCOR2aFkwXoGzDyayKv7lTMDqq',
    ],
    [
      'kraken-access-token',
      'kraken_key = "Tq8mZ2xLk9vR4n/Wb7+cYd3sGh6JpQ1aE5fU0iO8yKrL2vX9zN4mB7tC6wD3eS1hA0gF5jK8lP2qRs4T=="',
      'Tq8mZ2xLk9vR4n/Wb7+cYd3sGh6JpQ1aE5fU0iO8yKrL2vX9zN4mB7tC6wD3eS1hA0gF5jK8lP2qRs4T==',
    ],
    [
      'authorization-header',
      'Authorization: Bearer EnI4d4BW7cFme-aQLz0Y6oG1vpOEeAFJ',
      'EnI4d4BW7cFme-aQLz0Y6oG1vpOEeAFJ',
    ],
    [
      'url-basic-auth',
      'https://deploy:0wTGFC77Wo3mW1BhcN@git.example.test/app.git',
      '0wTGFC77Wo3mW1BhcN',
    ],
    [
      'database-url-password',
      'postgres://app:mTg@J9KCXKGxUnYPt@db.internal:5432/app',
      'mTg@J9KCXKGxUnYPt',
    ],
    [
      'database-url-password',
      'jdbc:postgresql://etl:AfpTdrM9hXUuiq@10.42.7.19/w',
      'AfpTdrM9hXUuiq',
    ],
    [
      'curl-auth-user',
      'curl -u admin:gzeda2YGq2yVWq https://api.example.test',
      'admin:gzeda2YGq2yVWq',
    ],
    ['curl-auth-user', 'curl -u "9Lfhi8m7Bz2ZZpsp:" https://api.example.test', '9Lfhi8m7Bz2ZZpsp:'],
    ['sql-password-clause', "ALTER ROLE r WITH PASSWORD 'SsOuw.202Otun';", 'SsOuw.202Otun'],
    [
      'nuget-config-password',
      '<add key="ClearTextPassword" value="S1~bFza~pW0DL@" />',
      'S1~bFza~pW0DL@',
    ],
    [
      'npmrc-auth-credential',
      '//r.example.org/:_auth=ZGVwbG95OlRyMHViYWRvcjUh',
      'ZGVwbG95OlRyMHViYWRvcjUh',
    ],
    [
      'facebook-app-access-token',
      'FB_APP_TOKEN=482916730518274|q7Vd0LmZ3sKf9Rw2TgYb1NcXpE4',
      '482916730518274|q7Vd0LmZ3sKf9Rw2TgYb1NcXpE4',
    ],
    ['password-in-words', 'my password is ZVDv%!4959iiw', 'ZVDv%!4959iiw'],
    ['password-in-words', 'Das Passwort:DJiZ@@90295bT', 'DJiZ@@90295bT'],
    ['password-in-words', '我的密码是H1Mr%@3857JAL，别告诉别人', 'H1Mr%@3857JAL'],
    ['password-in-words', 'API密钥：Zq7-Lm2xT9vK4pW8', 'Zq7-Lm2xT9vK4pW8'],
    ['us-ssn-labelled', 'SSN: 536-21-4477', '536-21-4477'],
    ['passport-number', '护照号码：G27391845', 'G27391845'],
  ])('%s: %s keeps all but %s', (id, text, expected) => {
    expect(valueIn(rule(id), text)).toBe(expected);
  });
});

describe('generic: name-based and heuristic rules, never provider formats', () => {
  const GENERIC = [
    'password-assignment',
    'password-in-words',
    'sql-password-clause',
    'generic-client-secret',
    'generic-api-key',
    'curl-auth-user',
    'url-basic-auth',
    'database-url-password',
    'authorization-header',
    'npmrc-auth-credential',
    'nuget-config-password',
    'kubernetes-secret-manifest',
  ];

  it('marks exactly the rules whose value has no provider format', () => {
    expect(
      rules
        .filter((r) => r.generic === true)
        .map((r) => r.id)
        .sort(),
    ).toEqual([...GENERIC].sort());
  });

  it('leaves provider formats specific', () => {
    for (const id of ['openai-api-key', 'github-pat', 'aws-access-key-id', 'jwt', 'slack-token']) {
      expect(rule(id).generic, id).not.toBe(true);
    }
  });
});

describe('continuation: what still continues a value capped by a length bound', () => {
  const withContinuation = rules.filter((r) => r.continuation !== undefined);

  it('is declared by the rules whose value has an arbitrary bound', () => {
    for (const id of [
      'password-assignment',
      'generic-api-key',
      'generic-client-secret',
      'authorization-header',
      'curl-auth-user',
      'npmrc-auth-credential',
      'password-in-words',
      // Provider formats whose length bound is a scanner's cap, not the format's.
      'stripe-secret-key',
      'openai-api-key',
      'slack-token',
      'gitlab-pat',
      'jwt',
      'dropbox-api-token',
      'pypi-upload-token',
      'facebook-access-token',
      'grafana-cloud-api-token',
    ]) {
      expect(rule(id).continuation, id).toBeDefined();
    }
  });

  it('is declared by the exfil rules whose URL can run past their bound', () => {
    expect(rule('bare-url-exfil').continuation).toBeDefined();
    expect(rule('autolink-exfil').continuation).toBeDefined();
  });

  it('is not declared where the format fixes the length (a longer run is another format)', () => {
    for (const id of ['github-pat', 'aws-access-key-id', 'google-api-key', 'npm-token']) {
      expect(rule(id).continuation, id).toBeUndefined();
    }
  });

  it.each(withContinuation.map((r) => [r.id, r] as const))(
    '%s: continues the last unit of every match of its examples',
    (_id, spec) => {
      const unit = new RegExp(`^${spec.continuation ?? ''}$`, 'u');
      for (const text of spec.examples.match) {
        for (const match of ruleMatches(spec, text)) {
          const value = spec.value === undefined ? match.text : valueOf(spec, match.text)?.text;
          const last = [...(value ?? '')].at(-1) ?? '';
          // A match closed by its own delimiter (`<https://…>`) did not stop at its bound.
          const closed = spec.value === undefined && /[>)\]"']$/.test(match.text);
          expect(unit.test(last) || closed, `${spec.id}: ${JSON.stringify(match.text)}`).toBe(true);
        }
      }
    },
  );

  it.each(withContinuation.map((r) => [r.id, r] as const))(
    '%s: one character class that does not take spaces or quotes',
    (_id, spec) => {
      const cls = new RegExp(`^${spec.continuation ?? ''}$`, 'u');
      for (const ch of [' ', '\t', '\n', '"', "'", '`'])
        expect(cls.test(ch), JSON.stringify(ch)).toBe(false);
      expect(cls.test('a') || cls.test('A') || cls.test('0')).toBe(true);
    },
  );
});
