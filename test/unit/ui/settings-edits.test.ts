import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RULE_KINDS } from '../../../src/core/rules/rule.ts';
import type { Settings } from '../../../src/protocol/settings-schema.ts';
import * as edits from '../../../src/ui/options/settings-edits.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';

function settings(): Settings {
  const incoming = Object.fromEntries(
    RULE_KINDS.map((k) => [k, 'redact']),
  ) as Settings['policy']['incoming'];
  const outgoing = Object.fromEntries(
    RULE_KINDS.map((k) => [k, 'off']),
  ) as Settings['policy']['outgoing'];
  return {
    version: 1,
    sites: { 'claude.ai': { enabled: true } },
    policy: { incoming, outgoing },
    allowedImageHosts: ['images.example.org'],
    packs: { enabled: {}, disabledRules: [], custom: [] },
    audit: { maxRecords: 10_000, maxAgeDays: 30 },
    outgoing: { envelopeRenderer: 'json', autoEnvelopeMinChars: 0 },
  };
}

const allEdits: ((s: Settings) => Settings | null)[] = [
  (s) => edits.setSiteEnabled(s, 'chat.example.com', true),
  (s) => edits.removeSite(s, 'claude.ai'),
  (s) => edits.setIncomingPolicy(s, 'pii', 'flag'),
  (s) => edits.setOutgoingPolicy(s, 'secret', 'block'),
  (s) => edits.addImageHost(s, 'cdn.example.net'),
  (s) => edits.removeImageHost(s, 'images.example.org'),
  (s) => edits.setPackEnabled(s, 'pii', false),
  (s) => edits.setRuleEnabled(s, 'jwt', false),
  (s) => edits.setRuleEnabled(s, 'jwt', true),
  (s) => edits.putCustomPack(s, { name: 'team' }),
  (s) => edits.removeCustomPack(s, 'team'),
  (s) => edits.setRetention(s, 'maxAgeDays', '7'),
];

describe('settings edits', () => {
  it('never change the settings they are given (any sequence of edits)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(allEdits.length - 1), { maxLength: 10 }), (sequence) => {
        let current = settings();
        for (const index of sequence) {
          const before = structuredClone(current);
          const next = allEdits[index]!(current);
          expect(current).toEqual(before);
          if (next !== null) current = next;
        }
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('switch, add and remove sites', () => {
    const on = edits.setSiteEnabled(settings(), 'chat.example.com', true);
    expect(on.sites['chat.example.com']).toEqual({ enabled: true });
    expect(edits.setSiteEnabled(on, 'claude.ai', false).sites['claude.ai']).toEqual({
      enabled: false,
    });
    expect(edits.removeSite(on, 'chat.example.com').sites).toEqual({
      'claude.ai': { enabled: true },
    });
  });

  it('set policies per kind and direction', () => {
    const s = edits.setOutgoingPolicy(
      edits.setIncomingPolicy(settings(), 'exfil', 'block'),
      'pii',
      'warn',
    );
    expect(s.policy.incoming.exfil).toBe('block');
    expect(s.policy.incoming.secret).toBe('redact');
    expect(s.policy.outgoing.pii).toBe('warn');
  });

  it('keep image hosts unique', () => {
    const once = edits.addImageHost(settings(), 'cdn.example.net');
    expect(edits.addImageHost(once, 'cdn.example.net').allowedImageHosts).toEqual([
      'images.example.org',
      'cdn.example.net',
    ]);
    expect(edits.removeImageHost(once, 'images.example.org').allowedImageHosts).toEqual([
      'cdn.example.net',
    ]);
  });

  it('switch packs and rules; a pack missing from the map is on', () => {
    const s = settings();
    expect(edits.isPackEnabled(s, 'secrets')).toBe(true);
    expect(edits.isPackEnabled(edits.setPackEnabled(s, 'secrets', false), 'secrets')).toBe(false);
    const off = edits.setRuleEnabled(edits.setRuleEnabled(s, 'jwt', false), 'jwt', false);
    expect(off.packs.disabledRules).toEqual(['jwt']);
    expect(edits.isRuleEnabled(off, 'jwt')).toBe(false);
    expect(edits.setRuleEnabled(off, 'jwt', true).packs.disabledRules).toEqual([]);
  });

  it('replace a custom pack of the same name', () => {
    const first = edits.putCustomPack(settings(), { name: 'team', version: '1' } as {
      name: string;
    });
    const second = edits.putCustomPack(first, { name: 'team', version: '2' } as { name: string });
    expect(second.packs.custom).toEqual([{ name: 'team', version: '2' }]);
    expect(edits.removeCustomPack(second, 'team').packs.custom).toEqual([]);
    expect(edits.customPackName({ nope: 1 })).toBeUndefined();
  });

  it('clamp retention to its limits and refuse what is not a whole number', () => {
    expect(edits.setRetention(settings(), 'maxRecords', '50')?.audit.maxRecords).toBe(100);
    expect(edits.setRetention(settings(), 'maxRecords', ' 2500 ')?.audit.maxRecords).toBe(2500);
    expect(edits.setRetention(settings(), 'maxAgeDays', '99999')?.audit.maxAgeDays).toBe(3650);
    expect(edits.setRetention(settings(), 'maxAgeDays', '0')?.audit.maxAgeDays).toBe(1);
    for (const typed of ['', '-5', '1.5', '1e3', 'ten']) {
      expect(edits.setRetention(settings(), 'maxAgeDays', typed)).toBeNull();
    }
  });
});
