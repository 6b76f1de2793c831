import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyManagedPolicy,
  isIncomingOffLocked,
  isRuleLocked,
  isSiteLocked,
  ownAfterEdit,
} from '../../../src/background/apply-managed-policy.ts';
import { defaultSettings } from '../../../src/background/default-settings.ts';
import {
  INCOMING_ACTIONS,
  MANAGED_FIELDS,
  OUTGOING_ACTIONS,
  isEmptyManagedPolicy,
  parseManagedPolicy,
  type ManagedPolicy,
} from '../../../src/background/managed-policy.ts';
import { normaliseSettings } from '../../../src/background/normalise-settings.ts';
import { RULE_KINDS } from '../../../src/core/rules/rule.ts';
import { DEFAULT_SITE_PATTERNS, type Settings } from '../../../src/protocol/settings-schema.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';

/** A valid custom pack (passes validatePack) under any name. */
function orgPack(name: string, ruleId = `${name}-rule`) {
  return {
    name,
    version: '1.0.0',
    rules: [
      {
        id: ruleId,
        kind: 'custom',
        description: 'an internal project code name',
        pattern: 'PRJ-[0-9]{4}',
        keywords: ['PRJ-'],
        action: 'redact',
        examples: { match: ['PRJ-1234'], noMatch: ['PRJ-12'] },
      },
    ],
  };
}

const SITES = [...Object.keys(DEFAULT_SITE_PATTERNS), 'chat.example.org', 'llm.corp.example'];
const PACK_NAMES = ['secrets', 'pii', 'exfil', 'org-a', 'org-b'];
const RULE_IDS = ['aws-access-key', 'email', 'org-a-rule', 'org-b-rule', 'stripe-key'];

/** Each run validates custom packs (the pack compiler's checks): fewer runs than text properties. */
const RUNS = Math.min(PROPERTY_RUNS, 400);
const PROPERTY_TIMEOUT_MS = 60_000;

const site = fc.constantFrom(...SITES);
const kind = fc.constantFrom(...RULE_KINDS);
const incomingAction = fc.constantFrom(...INCOMING_ACTIONS);
const outgoingAction = fc.constantFrom(...OUTGOING_ACTIONS);

/** Any person settings (normalised, as the background reads them). */
const personSettings: fc.Arbitrary<Settings> = fc
  .record({
    sites: fc.dictionary(site, fc.record({ enabled: fc.boolean() })),
    policy: fc.record({
      incoming: fc.dictionary(kind, incomingAction),
      outgoing: fc.dictionary(kind, outgoingAction),
    }),
    allowedImageHosts: fc.uniqueArray(site, { maxLength: 3 }),
    packs: fc.record({
      enabled: fc.dictionary(fc.constantFrom(...PACK_NAMES), fc.boolean()),
      disabledRules: fc.uniqueArray(fc.constantFrom(...RULE_IDS)),
      custom: fc.uniqueArray(fc.constantFrom('org-a', 'mine'), { maxLength: 2 }),
    }),
    audit: fc.record({
      maxRecords: fc.integer({ min: 100, max: 1_000_000 }),
      maxAgeDays: fc.integer({ min: 1, max: 3650 }),
    }),
  })
  .map((raw) =>
    normaliseSettings({
      ...raw,
      packs: {
        ...raw.packs,
        custom: raw.packs.custom.map((name) => orgPack(name, `mine-${name}`)),
      },
    }),
  );

/** Any valid managed policy, as an administrator writes it (each field optional). */
const rawPolicy = fc.record(
  {
    sites: fc.dictionary(site, fc.boolean()),
    allowSiteSwitchOff: fc.boolean(),
    incomingPolicy: fc.dictionary(kind, incomingAction),
    outgoingPolicy: fc.dictionary(kind, outgoingAction),
    packsEnabled: fc.dictionary(fc.constantFrom(...PACK_NAMES), fc.boolean()),
    ruleSwitches: fc.dictionary(fc.constantFrom(...RULE_IDS), fc.boolean()),
    customPacks: fc
      .uniqueArray(fc.constantFrom('org-a', 'org-b'), { maxLength: 2 })
      .map((names) => names.map((name) => orgPack(name))),
    allowedImageHosts: fc.uniqueArray(site, { maxLength: 3 }),
    auditRetention: fc.record(
      {
        maxRecords: fc.integer({ min: 100, max: 1_000_000 }),
        maxAgeDays: fc.integer({ min: 1, max: 3650 }),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

function validPolicy(raw: unknown): ManagedPolicy {
  const parsed = parseManagedPolicy(raw);
  expect(parsed.issues).toEqual([]);
  return parsed.policy;
}

/** Every value the policy sets is the value in force (the property of issue 21 §1). */
function expectManagedWins(effective: Settings, policy: ManagedPolicy): void {
  for (const [key, enabled] of Object.entries(policy.sites)) {
    expect(effective.sites[key]).toEqual({ enabled });
  }
  if (policy.allowSiteSwitchOff === false) {
    for (const key of Object.keys(DEFAULT_SITE_PATTERNS)) {
      expect(effective.sites[key]?.enabled).toBe(policy.sites[key] ?? true);
    }
  }
  for (const [k, action] of Object.entries(policy.incoming)) {
    expect(effective.policy.incoming[k as keyof Settings['policy']['incoming']]).toBe(action);
  }
  for (const [k, action] of Object.entries(policy.outgoing)) {
    expect(effective.policy.outgoing[k as keyof Settings['policy']['outgoing']]).toBe(action);
  }
  for (const [name, on] of Object.entries(policy.packsEnabled)) {
    expect(effective.packs.enabled[name]).toBe(on);
  }
  for (const [id, on] of Object.entries(policy.ruleSwitches)) {
    expect(effective.packs.disabledRules.includes(id)).toBe(!on);
  }
  for (const pack of policy.customPacks) {
    expect(
      effective.packs.custom.filter((entry) => (entry as { name: string }).name === pack.name),
    ).toEqual([pack.source]);
    for (const id of pack.ruleIds) {
      if (policy.ruleSwitches[id] !== false)
        expect(effective.packs.disabledRules).not.toContain(id);
    }
    // The person's `off` for a kind would switch the organisation's rules of that kind off.
    for (const k of pack.kinds) {
      if (!(k in policy.incoming)) expect(effective.policy.incoming[k]).not.toBe('off');
    }
  }
  if (policy.allowedImageHosts !== undefined) {
    expect(effective.allowedImageHosts).toEqual(policy.allowedImageHosts);
  }
  if (policy.audit.maxRecords !== undefined) {
    expect(effective.audit.maxRecords).toBe(policy.audit.maxRecords);
  }
  if (policy.audit.maxAgeDays !== undefined) {
    expect(effective.audit.maxAgeDays).toBe(policy.audit.maxAgeDays);
  }
}

describe('parseManagedPolicy', () => {
  it.each([undefined, null, {}])('reads %j as no policy, without an issue', (area) => {
    const parsed = parseManagedPolicy(area);
    expect(parsed.issues).toEqual([]);
    expect(isEmptyManagedPolicy(parsed.policy)).toBe(true);
  });

  it('takes a complete, valid policy as written', () => {
    const parsed = parseManagedPolicy({
      sites: { 'llm.corp.example': true, 'claude.ai': false },
      allowSiteSwitchOff: false,
      incomingPolicy: { secret: 'block', pii: 'redact' },
      outgoingPolicy: { secret: 'block' },
      packsEnabled: { pii: true },
      ruleSwitches: { email: false, 'aws-access-key': true },
      customPacks: [orgPack('org-a')],
      allowedImageHosts: ['Images.Corp.Example'],
      auditRetention: { maxRecords: 50_000, maxAgeDays: 90 },
    });
    expect(parsed.issues).toEqual([]);
    expect(parsed.policy).toEqual({
      sites: { 'llm.corp.example': true, 'claude.ai': false },
      allowSiteSwitchOff: false,
      incoming: { secret: 'block', pii: 'redact' },
      outgoing: { secret: 'block' },
      packsEnabled: { pii: true },
      ruleSwitches: { email: false, 'aws-access-key': true },
      customPacks: [
        { name: 'org-a', ruleIds: ['org-a-rule'], kinds: ['custom'], source: orgPack('org-a') },
      ],
      allowedImageHosts: ['images.corp.example'],
      audit: { maxRecords: 50_000, maxAgeDays: 90 },
    });
  });

  it.each([
    [{ sites: ['chatgpt.com'] }, 'sites', 'not-an-object'],
    [{ sites: { 'chatgpt.com': 'false' } }, 'sites.chatgpt.com', 'not-a-boolean'],
    [{ sites: { 'https://x.example/': true } }, 'sites.https://x.example/', 'not-a-site'],
    [{ allowSiteSwitchOff: 0 }, 'allowSiteSwitchOff', 'not-a-boolean'],
    [{ incomingPolicy: { secret: 'blok' } }, 'incomingPolicy.secret', 'unknown-action'],
    [{ incomingPolicy: { secret: 'warn' } }, 'incomingPolicy.secret', 'unknown-action'],
    [{ outgoingPolicy: { secrets: 'block' } }, 'outgoingPolicy.secrets', 'unknown-kind'],
    [{ packsEnabled: { pii: 1 } }, 'packsEnabled.pii', 'not-a-boolean'],
    [{ ruleSwitches: { '': true } }, 'ruleSwitches.', 'empty-name'],
    [{ customPacks: orgPack('x') }, 'customPacks', 'not-a-list'],
    [{ customPacks: [{ name: 'x', rules: [] }] }, 'customPacks[0]', 'invalid-pack'],
    [{ allowedImageHosts: 'cdn.example' }, 'allowedImageHosts', 'not-a-list'],
    [{ allowedImageHosts: [42] }, 'allowedImageHosts[0]', 'not-a-site'],
    [{ auditRetention: { maxAgeDays: 0 } }, 'auditRetention.maxAgeDays', 'out-of-range'],
    [{ auditRetention: { maxRecords: 1e9 } }, 'auditRetention.maxRecords', 'out-of-range'],
    [{ auditRetention: { maxRecords: 500.5 } }, 'auditRetention.maxRecords', 'out-of-range'],
    [{ auditRetention: { days: 3 } }, 'auditRetention.days', 'unknown-field'],
    [{ incomingPolicies: { secret: 'block' } }, 'incomingPolicies', 'unknown-field'],
  ])('ignores %j and reports %s as %s', (raw, field, problem) => {
    const parsed = parseManagedPolicy(raw);
    expect(parsed.issues).toEqual([{ field, problem }]);
    const own = defaultSettings();
    // An ignored value leaves the person's settings exactly as they were.
    expect(applyManagedPolicy(own, parsed.policy)).toEqual(own);
  });

  it('keeps the valid entries beside an invalid one', () => {
    const parsed = parseManagedPolicy({ incomingPolicy: { secret: 'off!', pii: 'block' } });
    expect(parsed.policy.incoming).toEqual({ pii: 'block' });
    expect(parsed.issues).toEqual([{ field: 'incomingPolicy.secret', problem: 'unknown-action' }]);
  });

  it('never throws and ignores a broken area as a whole', () => {
    for (const area of [42, 'policy', [], [{ sites: {} }], true]) {
      const parsed = parseManagedPolicy(area);
      expect(isEmptyManagedPolicy(parsed.policy)).toBe(true);
      expect(parsed.issues).toEqual([{ field: '(policy)', problem: 'not-an-object' }]);
    }
  });

  it(
    'property: a malformed value is ignored as if absent, never weakening anything',
    () => {
      const junk = fc.oneof(
        fc.string(),
        fc.integer(),
        fc.constant(null),
        fc.array(fc.string(), { maxLength: 2 }),
        fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
      );
      fc.assert(
        fc.property(
          rawPolicy,
          fc.constantFrom(...Object.keys(DEFAULT_SITE_PATTERNS)),
          junk,
          (raw, key, bad) => {
            // A broken entry in a map-shaped field is dropped; the rest of the policy holds.
            const broken = {
              ...raw,
              sites: { ...raw.sites, [key]: bad },
            };
            const parsed = parseManagedPolicy(broken);
            const without = { ...raw.sites };
            delete without[key];
            expect(parsed.policy).toEqual(validPolicy({ ...raw, sites: without }));
            expect(parsed.issues).toEqual([{ field: `sites.${key}`, problem: 'not-a-boolean' }]);
          },
        ),
        { numRuns: RUNS },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});

describe('applyManagedPolicy', () => {
  it(
    'is the identity without a policy',
    () => {
      fc.assert(
        fc.property(personSettings, (own) => {
          expect(applyManagedPolicy(own, validPolicy({}))).toEqual(own);
        }),
        { numRuns: RUNS },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'property: for any person settings and any valid policy, every managed value is in force',
    () => {
      fc.assert(
        fc.property(personSettings, rawPolicy, (own, raw) => {
          const policy = validPolicy(raw);
          const effective = applyManagedPolicy(own, policy);
          expectManagedWins(effective, policy);
          // What the policy does not set stays the person's.
          for (const k of RULE_KINDS) {
            if (!(k in policy.incoming) && !isIncomingOffLocked(policy, k))
              expect(effective.policy.incoming[k]).toBe(own.policy.incoming[k]);
          }
          for (const [key, entry] of Object.entries(own.sites)) {
            if (!isSiteLocked(policy, key)) expect(effective.sites[key]).toEqual(entry);
          }
          for (const id of own.packs.disabledRules) {
            if (!isRuleLocked(policy, id)) expect(effective.packs.disabledRules).toContain(id);
          }
          // The result is valid settings: normalising it changes nothing.
          expect(normaliseSettings(effective)).toEqual(effective);
        }),
        { numRuns: RUNS },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'property: no edit the person makes weakens a managed value, and none is stored as theirs',
    () => {
      fc.assert(
        fc.property(personSettings, rawPolicy, personSettings, (own, raw, edited) => {
          const policy = validPolicy(raw);
          const stored = normaliseSettings(ownAfterEdit(edited, own, policy));
          expectManagedWins(applyManagedPolicy(stored, policy), policy);
          // Wherever the policy decides, the person's own value is what it was before.
          for (const key of SITES) {
            if (isSiteLocked(policy, key)) expect(stored.sites[key]).toEqual(own.sites[key]);
          }
          for (const k of Object.keys(policy.incoming) as (typeof RULE_KINDS)[number][]) {
            expect(stored.policy.incoming[k]).toBe(own.policy.incoming[k]);
          }
          if (policy.allowedImageHosts !== undefined) {
            expect(stored.allowedImageHosts).toEqual(own.allowedImageHosts);
          }
          for (const id of RULE_IDS) {
            if (isRuleLocked(policy, id)) {
              expect(stored.packs.disabledRules.includes(id)).toBe(
                own.packs.disabledRules.includes(id),
              );
            }
          }
          // Lifting the policy gives back the person's own choices.
          expect(applyManagedPolicy(stored, validPolicy({}))).toEqual(stored);
        }),
        { numRuns: RUNS },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it('the person’s off for a kind the organisation’s packs use falls back to the default', () => {
    const own = defaultSettings();
    own.policy.incoming.custom = 'off';
    own.policy.incoming.pii = 'off';
    const policy = validPolicy({ customPacks: [orgPack('org-a')] });
    const effective = applyManagedPolicy(own, policy);
    expect(effective.policy.incoming.custom).toBe('flag');
    expect(effective.policy.incoming.pii).toBe('off');
    // The policy's own value for the kind decides, even `off`.
    const explicit = validPolicy({
      customPacks: [orgPack('org-a')],
      incomingPolicy: { custom: 'off' },
    });
    expect(applyManagedPolicy(own, explicit).policy.incoming.custom).toBe('off');
  });

  it('an edit of a free value is kept', () => {
    const own = defaultSettings();
    const policy = validPolicy({ incomingPolicy: { secret: 'block' } });
    const effective = applyManagedPolicy(own, policy);
    const edited = structuredClone(effective);
    edited.policy.incoming.pii = 'redact';
    edited.policy.incoming.secret = 'off';
    const stored = ownAfterEdit(edited, own, policy);
    expect(stored.policy.incoming.pii).toBe('redact');
    expect(stored.policy.incoming.secret).toBe(own.policy.incoming.secret);
    expect(applyManagedPolicy(stored, policy).policy.incoming.secret).toBe('block');
  });

  it('allowSiteSwitchOff false keeps default sites on, and leaves the person’s own additions theirs', () => {
    const own = defaultSettings();
    own.sites['claude.ai'] = { enabled: false };
    own.sites['chat.example.org'] = { enabled: false };
    const policy = validPolicy({ allowSiteSwitchOff: false });
    const effective = applyManagedPolicy(own, policy);
    expect(effective.sites['claude.ai']).toEqual({ enabled: true });
    expect(effective.sites['chat.example.org']).toEqual({ enabled: false });
    expect(isSiteLocked(policy, 'claude.ai')).toBe(true);
    expect(isSiteLocked(policy, 'chat.example.org')).toBe(false);
  });
});

describe('managed schema (Chrome, assets/managed-schema.json)', () => {
  const manifest = JSON.parse(readFileSync('manifest.json', 'utf8')) as {
    storage: { managed_schema: string };
  };
  const schema = JSON.parse(readFileSync(manifest.storage.managed_schema, 'utf8')) as {
    type: string;
    properties: Record<string, { type: string; items?: { type: string } }>;
    additionalProperties?: unknown;
  };

  it('declares exactly the fields the extension reads, as Chrome requires', () => {
    expect(schema.type).toBe('object');
    // Chrome: the top level may not have additionalProperties; its properties are the policies.
    expect(schema.additionalProperties).toBeUndefined();
    expect(Object.keys(schema.properties).sort()).toEqual([...MANAGED_FIELDS].sort());
  });

  it('gives custom packs as JSON text (a pack cannot be described in Chrome’s schema)', () => {
    expect(schema.properties.customPacks?.items?.type).toBe('string');
    const parsed = parseManagedPolicy({
      customPacks: [JSON.stringify(orgPack('org-a')), '{not json', JSON.stringify({ name: 'x' })],
    });
    expect(parsed.policy.customPacks.map((pack) => pack.name)).toEqual(['org-a']);
    expect(parsed.policy.customPacks[0]?.source).toEqual(orgPack('org-a'));
    expect(parsed.issues).toEqual([
      { field: 'customPacks[1]', problem: 'invalid-pack' },
      { field: 'customPacks[2]', problem: 'invalid-pack' },
    ]);
  });
});
