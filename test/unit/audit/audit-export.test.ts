import { describe, expect, it } from 'vitest';
import {
  AUDIT_EXPORT_FORMAT,
  CSV_COLUMNS,
  csvCell,
  toCsvExport,
  toJsonExport,
} from '../../../src/audit/audit-export.ts';
import { createDigester, newAuditKeyHex } from '../../../src/audit/audit-digest.ts';
import { githubPat } from '../cli/synthetic-secrets.ts';
import { auditRecord } from './audit-records.ts';

describe('CSV export', () => {
  it.each([
    ['=HYPERLINK("http://x")', `"'=HYPERLINK(""http://x"")"`],
    ['+1', "'+1"],
    ['-2', "'-2"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tcmd', "'\tcmd"],
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['line\nbreak', '"line\nbreak"'],
  ])('cell %j → %j', (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  it('leaves numbers as numbers and writes a header and one CRLF row per record', () => {
    const csv = toCsvExport([
      auditRecord(0, { id: 1, site: '=cmd|calc', rule: 'github-pat' }),
      auditRecord(1000, { id: 2, start: 0, end: 3, length: 3 }),
    ]);
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe(CSV_COLUMNS.join(','));
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('');
    expect(lines[1]).toContain(",'=cmd|calc,");
    expect(lines[1]!.startsWith('1,0,1970-01-01T00:00:00.000Z,')).toBe(true);
    expect(lines[2]).toContain(',0,3,3,');
  });

  it('writes the other rules of a merged redaction in one cell, and an empty cell without them', () => {
    const csv = toCsvExport([
      auditRecord(0, {
        id: 1,
        rule: 'openai-api-key',
        also: ['password-assignment', 'generic-api-key'],
      }),
      auditRecord(0, { id: 2 }),
    ]);
    const [, merged, single] = csv.split('\r\n');
    expect(merged!.endsWith(',password-assignment generic-api-key')).toBe(true);
    expect(single!.endsWith(',')).toBe(true);
  });
});

describe('JSON export', () => {
  it('is a tagged object holding the records as stored', () => {
    const records = [auditRecord(5, { id: 1 })];
    const parsed = JSON.parse(toJsonExport(records, 0)) as Record<string, unknown>;
    expect(parsed).toEqual({
      format: AUDIT_EXPORT_FORMAT,
      version: 1,
      exportedAt: '1970-01-01T00:00:00.000Z',
      records,
    });
  });
});

describe('audit digest', () => {
  it('is 16 bytes of HMAC-SHA-256 in hex, stable per key, different across keys', async () => {
    const secret = githubPat();
    const key = newAuditKeyHex();
    const digest = await createDigester(key);
    const value = await digest(secret);
    expect(value).toMatch(/^[0-9a-f]{32}$/);
    expect(await digest(secret)).toBe(value);
    expect(await digest(`${secret}x`)).not.toBe(value);
    expect(await (await createDigester(newAuditKeyHex()))(secret)).not.toBe(value);
    expect(value).not.toContain(secret.slice(4, 12));
  });

  it('matches an independent HMAC computation', async () => {
    const { createHmac } = await import('node:crypto');
    const key = newAuditKeyHex();
    const expected = createHmac('sha256', Buffer.from(key, 'hex'))
      .update('hello, 世界')
      .digest('hex')
      .slice(0, 32);
    expect(await (await createDigester(key))('hello, 世界')).toBe(expected);
  });

  it('refuses a malformed key', async () => {
    await expect(createDigester('abc')).rejects.toThrow();
  });
});
