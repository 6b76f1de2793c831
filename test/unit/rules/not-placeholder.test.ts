import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runValidator } from '../../../src/core/rules/validators/index.ts';
import {
  looksLikePlaceholder,
  notPlaceholder,
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
