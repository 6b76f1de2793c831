/**
 * The generator behind test/property/secret-redacted-whole.test.ts
 * (test/support/pattern-strings.ts): every string it gives for a rule is a
 * whole match of the rule's pattern, for every rule of the shipped packs; the
 * same seed gives the same string; counts reach the quantifier bounds and go
 * past a rule's maxLength where the pattern lets them. And the disguises of
 * test/support/secret-contexts.ts are undone by what a person sees.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  PatternStrings,
  Rng,
  classSampler,
  patternStrings,
  wholeMatchRegExp,
} from '../../support/pattern-strings.ts';
import {
  CONTEXTS,
  SETTING_NAMES,
  TRANSFORMATION_KINDS,
  around,
  leakedFragments,
  seenText,
  transform,
} from '../../support/secret-contexts.ts';
import { shippedPacks } from '../../support/shipped-packs.ts';

const SAMPLES_PER_RULE = 25;

describe('pattern strings', () => {
  const rules = shippedPacks().flatMap(([file, pack]) =>
    pack.rules.map((rule) => [`${file} ${rule.id}`, rule] as const),
  );

  it.each(rules)('%s: every sample matches the pattern whole', (_name, rule) => {
    const strings = new PatternStrings(rule);
    const whole = wholeMatchRegExp(rule);
    for (let seed = 0; seed < SAMPLES_PER_RULE; seed++) {
      const s = strings.sample(seed * 7919 + 1);
      expect(whole.test(s), JSON.stringify(s)).toBe(true);
      expect(strings.sample(seed * 7919 + 1)).toBe(s);
    }
  });

  it('reaches both bounds of a bounded quantifier', () => {
    const strings = new PatternStrings({ pattern: 'k_[a-z]{4,40}' });
    const lengths = new Set(Array.from({ length: 200 }, (_, i) => strings.sample(i).length));
    expect(lengths.has(6)).toBe(true);
    expect(lengths.has(42)).toBe(true);
    expect([...lengths].every((n) => n >= 6 && n <= 42)).toBe(true);
  });

  it('goes up to and past maxLength with an unbounded quantifier', () => {
    const strings = new PatternStrings({ pattern: 'BEGIN [A-Za-z0-9+/]{8,}=*', maxLength: 300 });
    const lengths = Array.from({ length: 400 }, (_, i) => strings.sample(i).length);
    expect(Math.min(...lengths)).toBeLessThan(30);
    expect(lengths.some((n) => n >= 295 && n <= 300)).toBe(true);
    expect(lengths.some((n) => n > 300)).toBe(true);
    expect(Math.max(...lengths)).toBeLessThan(400);
  });

  it('honours \\b, alternation, case-insensitivity and negated classes', () => {
    const rule = {
      pattern: '\\b(?:api_key|token)[ \\t]{0,2}=[ \\t]{0,2}[^\\s"\'`]{8,12}\\b',
      flags: 'i',
    };
    fc.assert(
      fc.property(patternStrings(rule), (s) => {
        expect(s).toMatch(/^(?:api_key|token)[ \t]{0,2}=[ \t]{0,2}[^\s"'`]{8,12}$/i);
      }),
      { numRuns: 300 },
    );
    const cases = new Set(
      Array.from({ length: 100 }, (_, i) => new PatternStrings(rule).sample(i).slice(0, 3)),
    );
    expect([...cases].some((p) => p === p.toUpperCase())).toBe(true);
    expect([...cases].some((p) => p === p.toLowerCase())).toBe(true);
  });

  it('rejects what the engine cannot compile', () => {
    expect(() => new PatternStrings({ pattern: '(a)\\1' })).toThrow(/subset/);
    expect(() => new PatternStrings({ pattern: 'a(?=b)' })).toThrow(/subset/);
  });

  it('samples one character class', () => {
    const sampler = classSampler('[^\\s"\'`]');
    const rng = new Rng(5);
    const drawn = Array.from({ length: 500 }, (_, i) => sampler.draw(rng, i % 2 === 0));
    expect(drawn.every((c) => /^[^\s"'`]$/.test(c))).toBe(true);
  });
});

describe('contexts and disguises', () => {
  it('every context holds the secret exactly once', () => {
    for (const context of CONTEXTS) {
      for (const whole of [false, true]) {
        const [before, after] = around(context, SETTING_NAMES[0]!, whole);
        const text = whole ? context.whole('SECRET') : context.value(SETTING_NAMES[0]!, 'SECRET');
        expect(before + 'SECRET' + after).toBe(text);
        expect(text.split('SECRET')).toHaveLength(2);
      }
    }
  });

  it('a person sees the secret through every disguise', () => {
    const secret = fc.string({
      unit: fc.constantFrom(
        ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.+/=~',
      ),
      minLength: 8,
      maxLength: 120,
    });
    fc.assert(
      fc.property(
        secret,
        fc.constantFrom(...TRANSFORMATION_KINDS),
        fc.integer(),
        (s, kind, seed) => {
          const t = transform(kind, s, seed);
          expect(seenText(t.text)).toBe(s);
          if (kind !== 'none' && s.length > 2) expect(t.text).not.toBe(s);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('finds a leaked fragment, and not one the context itself shows', () => {
    const secret = 'https://user:Sup3rS3cretPw@db.example.com';
    expect(leakedFragments(secret, 'x [redacted] x', [])).toEqual([]);
    expect(leakedFragments(secret, 'Sup3rS3cretPw', []).map((l) => l.fragment)).toContain(
      'Sup3rS3c',
    );
    // `https://` is in the context's own text (a URL around the value): not a leak by itself.
    expect(
      leakedFragments(secret, 'Open https://x/?u=[redacted] now', ['Open https://x/?u=', ' now']),
    ).toEqual([]);
    expect(seenText('gh\u200Bp_a&#x62;c**d**e`f`<!-- x -->g\u{E0041}h')).toBe('ghp_abcdefgh');
  });
});
