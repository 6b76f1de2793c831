import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultSettings } from '../../../src/background/default-settings.ts';
import {
  AUDIT_MAX_AGE_DAYS_RANGE,
  AUDIT_MAX_RECORDS_RANGE,
  normaliseSettings,
} from '../../../src/background/normalise-settings.ts';
import { pageConfigFor } from '../../../src/background/page-config.ts';
import { builtinPackSources } from '../../../src/core/rules/builtin-packs.ts';
import { RULE_KINDS } from '../../../src/core/rules/rule.ts';
import { blockingPack } from '../cli/synthetic-secrets.ts';
import {
  combineIncomingAction,
  combineOutgoingAction,
  DEFAULT_SITE_PATTERNS,
  type Settings,
} from '../../../src/protocol/settings-schema.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';

const INCOMING = ['redact', 'block', 'flag', 'off'];
const OUTGOING = ['redact', 'warn', 'block', 'off'];

/** Structural validity of Settings, checked independently of the normaliser's code. */
function expectValid(settings: Settings): void {
  expect(Object.keys(settings).sort()).toEqual(
    ['allowedImageHosts', 'audit', 'outgoing', 'packs', 'policy', 'sites', 'version'].sort(),
  );
  expect(settings.version).toBe(1);
  for (const [site, entry] of Object.entries(settings.sites)) {
    expect(site).toBe(site.toLowerCase());
    expect(Object.keys(entry)).toEqual(['enabled']);
    expect(typeof entry.enabled).toBe('boolean');
  }
  for (const site of Object.keys(DEFAULT_SITE_PATTERNS))
    expect(settings.sites).toHaveProperty(site);
  expect(Object.keys(settings.policy.incoming).sort()).toEqual([...RULE_KINDS].sort());
  expect(Object.keys(settings.policy.outgoing).sort()).toEqual([...RULE_KINDS].sort());
  for (const action of Object.values(settings.policy.incoming)) expect(INCOMING).toContain(action);
  for (const action of Object.values(settings.policy.outgoing)) expect(OUTGOING).toContain(action);
  expect(Number.isInteger(settings.audit.maxRecords)).toBe(true);
  expect(settings.audit.maxRecords).toBeGreaterThanOrEqual(AUDIT_MAX_RECORDS_RANGE.min);
  expect(settings.audit.maxAgeDays).toBeLessThanOrEqual(AUDIT_MAX_AGE_DAYS_RANGE.max);
  expect(['json', 'quote']).toContain(settings.outgoing.envelopeRenderer);
  for (const host of settings.allowedImageHosts) expect(typeof host).toBe('string');
  for (const id of settings.packs.disabledRules) expect(typeof id).toBe('string');
}

describe('normaliseSettings', () => {
  it.each([undefined, null, 42, 'settings', [], [defaultSettings()], true])(
    'gives the defaults for %j',
    (stored) => {
      expect(normaliseSettings(stored)).toEqual(defaultSettings());
    },
  );

  it('keeps valid settings unchanged', () => {
    const settings = defaultSettings();
    settings.sites['claude.ai'] = { enabled: false };
    settings.sites['chat.example.org'] = { enabled: true };
    settings.policy.incoming.injection = 'block';
    settings.policy.outgoing.pii = 'redact';
    settings.allowedImageHosts = ['images.example.org'];
    settings.packs = { enabled: { core: false }, disabledRules: ['jwt'], custom: [blockingPack] };
    settings.audit = { maxRecords: 2000, maxAgeDays: 7 };
    settings.outgoing = { envelopeRenderer: 'quote', autoEnvelopeMinChars: 400 };
    expect(normaliseSettings(structuredClone(settings))).toEqual(settings);
  });

  it('drops unknown fields and replaces bad values by defaults', () => {
    const defaults = defaultSettings();
    const repaired = normaliseSettings({
      version: 99,
      theme: 'dark',
      sites: {
        'ok.example.org': { enabled: false, colour: 'red' },
        'bad site': { enabled: true },
        'no-flag.example.org': { enabled: 'yes' },
        'javascript:alert(1)': { enabled: true },
        __proto__: { enabled: true },
      },
      policy: { incoming: { secret: 'explode', pii: 'redact', weird: 'block' }, outgoing: 5 },
      allowedImageHosts: ['cdn.example.org', 'CDN.EXAMPLE.ORG', 7, 'not a host', 'cdn.example.org'],
      packs: {
        enabled: { core: 'no', extra: true },
        disabledRules: ['jwt', 3, '', 'jwt'],
        custom: [{}, blockingPack],
      },
      audit: { maxRecords: 'lots', maxAgeDays: 1e9 },
      outgoing: { envelopeRenderer: 'xml', autoEnvelopeMinChars: -5 },
    });
    expectValid(repaired);
    expect(repaired).not.toHaveProperty('theme');
    expect(repaired.sites['ok.example.org']).toEqual({ enabled: false });
    expect(Object.keys(repaired.sites)).not.toContain('bad site');
    expect(Object.keys(repaired.sites)).not.toContain('no-flag.example.org');
    expect(repaired.policy.incoming.secret).toBe('redact');
    expect(repaired.policy.incoming.pii).toBe('redact');
    expect(repaired.policy.incoming).not.toHaveProperty('weird');
    expect(repaired.policy.outgoing).toEqual(defaults.policy.outgoing);
    expect(repaired.allowedImageHosts).toEqual(['cdn.example.org']);
    expect(repaired.packs).toEqual({
      enabled: { extra: true },
      disabledRules: ['jwt'],
      custom: [blockingPack],
    });
    expect(repaired.audit).toEqual({
      maxRecords: defaults.audit.maxRecords,
      maxAgeDays: AUDIT_MAX_AGE_DAYS_RANGE.max,
    });
    expect(repaired.outgoing).toEqual({ envelopeRenderer: 'json', autoEnvelopeMinChars: 0 });
  });

  it('for any stored value: gives valid settings and is idempotent', () => {
    const policyValue = fc.constantFrom(...INCOMING, ...OUTGOING, 'x', 1, null);
    const shaped = fc.record(
      {
        version: fc.anything(),
        sites: fc.dictionary(
          fc.oneof(fc.domain(), fc.string()),
          fc.oneof(fc.record({ enabled: fc.boolean() }), fc.anything()),
        ),
        policy: fc.record({
          incoming: fc.dictionary(fc.constantFrom(...RULE_KINDS, 'other'), policyValue),
          outgoing: fc.dictionary(fc.constantFrom(...RULE_KINDS, 'other'), policyValue),
        }),
        allowedImageHosts: fc.array(fc.oneof(fc.domain(), fc.anything())),
        audit: fc.record({ maxRecords: fc.anything(), maxAgeDays: fc.double() }),
        outgoing: fc.anything(),
        packs: fc.anything(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(fc.anything(), shaped), (stored) => {
        const once = normaliseSettings(stored);
        expectValid(once);
        expect(normaliseSettings(structuredClone(once))).toEqual(once);
      }),
      // Each run checks a whole settings object: fewer runs than a text property.
      { numRuns: Math.min(PROPERTY_RUNS, 300) },
    );
  }, 60_000);
});

describe('pageConfigFor', () => {
  it('hands the page its policy, nothing about other sites or the audit log', () => {
    const settings = defaultSettings();
    settings.sites['claude.ai'] = { enabled: false };
    const answer = pageConfigFor(settings, 'chatgpt.com');
    expect(answer.enabled).toBe(true);
    expect(answer.config.incoming).toEqual(settings.policy.incoming);
    expect(answer.config.outgoing).toEqual(settings.policy.outgoing);
    expect(answer.config.packs).toEqual(builtinPackSources.map((pack) => pack.name));
    expect(JSON.stringify(answer)).not.toContain('claude.ai');
    expect(JSON.stringify(answer)).not.toContain('maxRecords');
    expect(pageConfigFor(settings, 'claude.ai').enabled).toBe(false);
    expect(pageConfigFor(settings, 'unknown.example.org').enabled).toBe(false);
    expect(pageConfigFor(settings, null).enabled).toBe(false);
  });

  it('leaves out built-in packs switched off by name, and copies (never shares) lists', () => {
    const settings = defaultSettings();
    const [first] = builtinPackSources;
    settings.packs.enabled[first!.name] = false;
    settings.packs.disabledRules = ['jwt'];
    const answer = pageConfigFor(settings, 'localhost');
    expect(answer.config.packs).not.toContain(first!.name);
    expect(answer.config.packs).toHaveLength(builtinPackSources.length - 1);
    answer.config.disabledRules.push('x');
    expect(settings.packs.disabledRules).toEqual(['jwt']);
  });
});

describe('combining per-kind policy with rule actions', () => {
  it.each([
    // [rule action, policy, effective]
    ['flag', 'flag', 'flag'], // email in an answer under the default pii policy
    ['redact', 'flag', 'redact'], // card number: the rule's own redaction stays
    ['flag', 'redact', 'redact'], // pii: redact makes emails redacted too
    ['redact', 'block', 'block'],
    ['block', 'redact', 'block'],
    ['redact', 'off', 'off'],
    ['off', 'block', 'off'],
  ] as const)('incoming: rule %s + policy %s → %s', (rule, policy, expected) => {
    expect(combineIncomingAction(rule, policy)).toBe(expected);
  });

  it.each([
    ['flag', 'redact', 'redact'],
    ['redact', 'warn', 'warn'],
    ['redact', 'off', 'off'],
    ['off', 'block', 'off'],
  ] as const)('outgoing: rule %s + policy %s → %s', (rule, policy, expected) => {
    expect(combineOutgoingAction(rule, policy)).toBe(expected);
  });
});
