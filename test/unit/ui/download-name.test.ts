import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  auditExportFileName,
  auditExportMime,
  packFileName,
  safeFilePart,
} from '../../../src/ui/download-name.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';

describe('download names', () => {
  it('names audit exports by UTC time and format', () => {
    const date = new Date(Date.UTC(2026, 10, 29, 21, 9, 22, 123));
    expect(auditExportFileName('csv', date)).toBe('chat-stream-guard-audit-20261129-210922.csv');
    expect(auditExportFileName('json', date)).toBe('chat-stream-guard-audit-20261129-210922.json');
    expect(auditExportMime('csv')).toBe('text/csv');
    expect(auditExportMime('json')).toBe('application/json');
  });

  it('names packs by name and version', () => {
    expect(packFileName('team-words', '2.0.0')).toBe('csg-pack-team-words-2.0.0.json');
    expect(packFileName('../../etc/passwd', '1')).toBe('csg-pack-etc-passwd-1.json');
    expect(packFileName('', '')).toBe('csg-pack-unnamed-unnamed.json');
  });

  it('any text becomes a safe, non-empty file name part', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 100 }), (text) => {
        const part = safeFilePart(text);
        expect(part).toMatch(/^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$|^unnamed$/);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });
});
