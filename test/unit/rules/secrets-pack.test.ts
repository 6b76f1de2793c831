/**
 * The built-in `secrets` pack (issue 6): it compiles, every rule's own true-
 * and false-positive examples hold through the streaming engine, every rule is
 * keyword-started or starts at under a tenth of ordinary text (the prefilter
 * stays effective), the ids moved from the first `core` pack are unchanged,
 * and chunking never changes what the pack finds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanChunks, scanText } from '../../../src/core/guard/scan-text.ts';
import { checkPack } from '../../../src/core/rules/check-pack.ts';
import { type CompiledRule, compilePack } from '../../../src/core/rules/compile-pack.ts';
import { prefilterCost } from '../../../src/core/rules/prefilter-cost.ts';
import secretsJson from '../../../src/core/rules/packs/secrets.json' with { type: 'json' };
import type { RulePack } from '../../../src/core/rules/rule.ts';
import { formatProblem } from '../../../src/core/rules/validate-pack.ts';
import {
  PROPERTY_RUNS,
  cut,
  cutsArbitrary,
  textArbitrary,
} from '../../support/text-arbitraries.ts';

const pack = secretsJson as RulePack;
/** Share of ordinary text a keyword-less secret rule may start at (check warns from 0.3). */
const RARE_START_SHARE = 0.1;
const compiled = compilePack(pack);

/** The secret rules of the first `core` pack; other tests and stored settings name them. */
const MOVED_FROM_CORE = [
  'aws-access-key-id',
  'github-pat',
  'github-fine-grained-pat',
  'gitlab-pat',
  'slack-token',
  'slack-webhook-url',
  'stripe-secret-key',
  'stripe-test-secret-key',
  'openai-api-key',
  'anthropic-api-key',
  'google-api-key',
  'npm-token',
  'sendgrid-api-key',
  'huggingface-token',
  'jwt',
  'private-key-pem',
  'password-assignment',
];

function findings(text: string): string[] {
  return scanText(compiled, text).events.flatMap((e) => (e.type === 'match' ? [e.rule] : []));
}

describe('secrets pack', () => {
  it('is named secrets, version 1.10.1, and compiles', () => {
    expect(pack.name).toBe('secrets');
    expect(pack.version).toBe('1.10.1');
    expect(compiled.rules.length).toBe(pack.rules.length);
  });

  it('keeps the ids of the secret rules moved from core', () => {
    const ids = new Set(pack.rules.map((r) => r.id));
    for (const id of MOVED_FROM_CORE) expect(ids.has(id), id).toBe(true);
  });

  it('has the breadth of a secret scanner', () => {
    expect(pack.rules.length).toBeGreaterThanOrEqual(150);
  });

  // Compiles every rule alone (~200 packs): slow on a loaded machine, hence the timeout.
  it('passes the semantic pack check: every example through the engine', () => {
    expect(checkPack(pack).problems.map(formatProblem)).toEqual([]);
  }, 180_000);

  it.each(pack.rules.map((r) => [r.id, r] as const))(
    '%s: is a keyword-started (or rarely starting) secret rule with several examples of each kind',
    (id, rule) => {
      expect(rule.kind).toBe('secret');
      if ((rule.keywords?.length ?? 0) === 0) {
        // A shape with no literal prefix (a bare Mailchimp key) may run without keywords
        // only if it starts as rarely as the PII pack's card and ID rules do.
        const compiledRule = compiled.rules.find((r) => r.id === id);
        expect(compiledRule).toBeDefined();
        expect(prefilterCost(compiled, compiledRule as CompiledRule).startShare).toBeLessThan(
          RARE_START_SHARE,
        );
      }
      expect(rule.examples.match.length).toBeGreaterThanOrEqual(2);
      expect(rule.examples.noMatch.length).toBeGreaterThanOrEqual(2);
    },
  );

  it('finds each match example with the whole pack too (not only the rule alone)', () => {
    for (const rule of pack.rules) {
      for (const text of rule.examples.match) {
        expect(findings(text).length, `${rule.id}: ${text}`).toBeGreaterThan(0);
      }
    }
  });

  it('leaves documented placeholders and templates alone', () => {
    for (const text of [
      'aws_access_key_id = AKIAIOSFODNN7EXAMPLE',
      'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      'OPENAI_API_KEY=${OPENAI_API_KEY}',
      'GITHUB_TOKEN=<your-token>',
      'STRIPE_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx',
      'DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app',
      'Authorization: Bearer YOUR_TOKEN_HERE',
    ]) {
      expect(findings(text), text).toEqual([]);
    }
  });

  it('finds the same secrets however the text is cut into chunks', () => {
    fc.assert(
      fc.property(textArbitrary(pack), cutsArbitrary, (text, fractions) => {
        const whole = scanText(compiled, text);
        const chunked = scanChunks(compiled, cut(text, fractions));
        expect(chunked.output).toBe(whole.output);
        expect(chunked.events).toEqual(whole.events);
      }),
      { numRuns: Math.min(PROPERTY_RUNS, 300) },
    );
  }, 180_000);
});
