import { describe, expect, it } from 'vitest';
import { runValidator, validatorSubject } from '../../../src/core/rules/validators/index.ts';

const ctx = { allowedImageHosts: ['images.example.com'] };

describe('runValidator', () => {
  it('dispatches to each validator', () => {
    expect(runValidator({ name: 'luhn' }, '4000 0012 3456 7899', ctx)).toEqual({ ok: true });
    expect(runValidator({ name: 'luhn' }, '4000 0012 3456 7890', ctx)).toEqual({ ok: false });
    expect(runValidator({ name: 'iban' }, 'DE27 1002 0030 0012 3456 78', ctx)).toEqual({
      ok: true,
    });
    expect(runValidator({ name: 'cn-resident-id' }, '440305199003071236', ctx)).toEqual({
      ok: true,
    });
    expect(runValidator({ name: 'entropy', minEntropy: 3 }, 'Xk29fLq8ZtWm', ctx)).toEqual({
      ok: true,
    });
    expect(runValidator({ name: 'entropy', minEntropy: 3 }, 'aaaaaaaaaaaa', ctx)).toEqual({
      ok: false,
    });
  });

  it('returns the host for exfil-url, risky or not', () => {
    expect(runValidator({ name: 'exfil-url' }, '![a](https://evil.example/x.png)', ctx)).toEqual({
      ok: true,
      host: 'evil.example',
    });
    expect(
      runValidator({ name: 'exfil-url' }, '![a](https://images.example.com/x.png)', ctx),
    ).toEqual({ ok: false, host: 'images.example.com' });
  });

  it('applies part: group 1 when the expression has one', () => {
    const spec = { name: 'entropy' as const, minEntropy: 3, part: '=\\s*"([^"]*)"' };
    expect(validatorSubject(spec, 'secret = "Xk29fLq8ZtWm"')).toBe('Xk29fLq8ZtWm');
    expect(runValidator(spec, 'secret = "Xk29fLq8ZtWm"', ctx).ok).toBe(true);
    expect(runValidator(spec, 'secret = "aaaaaaaaaaaa"', ctx).ok).toBe(false);
  });

  it('applies part: the whole match when there is no group', () => {
    const spec = { name: 'luhn' as const, part: '[0-9 ]{12,}' };
    expect(validatorSubject(spec, 'card: 4000 0012 3456 7899')).toBe(' 4000 0012 3456 7899');
    expect(
      validatorSubject({ name: 'luhn', part: '[0-9][0-9 ]{11,}' }, 'card: 4000 0012 3456 7899'),
    ).toBe('4000 0012 3456 7899');
  });

  it('applies part: an empty string when group 1 did not take part', () => {
    expect(validatorSubject({ name: 'luhn', part: 'x|(y)' }, 'x')).toBe('');
  });

  it('rejects the candidate when part does not match', () => {
    const spec = { name: 'entropy' as const, minEntropy: 1, part: '=(.+)' };
    expect(runValidator(spec, 'no separator here', ctx)).toEqual({ ok: false });
  });

  it('throws (so the engine fails closed) on an invalid part or a missing minEntropy', () => {
    expect(() => runValidator({ name: 'luhn', part: '(' }, '4000001234567899', ctx)).toThrow();
    expect(() => runValidator({ name: 'entropy' }, 'abc', ctx)).toThrow(/minEntropy/);
  });

  it('is stateless across calls (no lastIndex carry-over)', () => {
    const spec = { name: 'entropy' as const, minEntropy: 3, part: '=(\\S+)' };
    for (let i = 0; i < 3; i++) {
      expect(runValidator(spec, 'k=Xk29fLq8ZtWm', ctx).ok).toBe(true);
    }
  });
});
