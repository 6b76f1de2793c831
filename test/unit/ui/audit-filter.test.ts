import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../../src/protocol/runtime-messages.ts';
import {
  AUDIT_ACTIONS,
  AUDIT_KINDS,
  type AuditFilter,
  NO_FILTER,
  filterQuery,
  filterRecords,
  matchesFilter,
  parseActionChoice,
  parseKindChoice,
} from '../../../src/ui/audit-filter.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';

function record(
  kind: AuditRecord['kind'],
  action: AuditRecord['action'],
  time: number,
): AuditRecord {
  return {
    time,
    site: 'chat.example.com',
    tabId: 1,
    conversationId: '',
    turnId: '',
    streamId: 's',
    direction: 'in',
    format: 'openai-chat',
    rule: 'r',
    kind,
    action,
    start: 0,
    end: 1,
    length: 1,
    digest: '00',
    pack: 'p',
  };
}

const recordArb = fc
  .tuple(fc.constantFrom(...AUDIT_KINDS), fc.constantFrom(...AUDIT_ACTIONS), fc.nat(1e9))
  .map(([kind, action, time]) => record(kind, action, time));
const filterArb: fc.Arbitrary<AuditFilter> = fc.record({
  kind: fc.constantFrom('all' as const, ...AUDIT_KINDS),
  action: fc.constantFrom('all' as const, ...AUDIT_ACTIONS),
});

describe('audit filters', () => {
  it('keeps exactly the matching records, newest first, at most the limit', () => {
    fc.assert(
      fc.property(
        fc.array(recordArb, { maxLength: 40 }),
        filterArb,
        fc.nat(50),
        (records, filter, limit) => {
          const kept = filterRecords(records, filter, limit);
          const matching = records.filter((r) => matchesFilter(r, filter));
          expect(kept.length).toBe(Math.min(limit, matching.length));
          expect(kept.every((r) => matchesFilter(r, filter))).toBe(true);
          for (let i = 1; i < kept.length; i++)
            expect(kept[i - 1]!.time).toBeGreaterThanOrEqual(kept[i]!.time);
        },
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('matches by kind and action; all matches everything', () => {
    const r = record('secret', 'redact', 1);
    expect(matchesFilter(r, NO_FILTER)).toBe(true);
    expect(matchesFilter(r, { kind: 'secret', action: 'all' })).toBe(true);
    expect(matchesFilter(r, { kind: 'pii', action: 'all' })).toBe(false);
    expect(matchesFilter(r, { kind: 'all', action: 'block' })).toBe(false);
  });

  it('turns a filter into a background query', () => {
    expect(filterQuery(NO_FILTER, { limit: 20 })).toEqual({ limit: 20 });
    expect(filterQuery({ kind: 'exfil', action: 'block' })).toEqual({
      kind: 'exfil',
      action: 'block',
    });
  });

  it('parses select values, refusing unknown ones as all', () => {
    expect(parseKindChoice('injection')).toBe('injection');
    expect(parseKindChoice('<script>')).toBe('all');
    expect(parseActionChoice('send-anyway')).toBe('send-anyway');
    expect(parseActionChoice('')).toBe('all');
  });
});
