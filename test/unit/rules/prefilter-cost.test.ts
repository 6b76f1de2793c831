/**
 * `csg rules check` reports a rule that makes the keyword prefilter useless
 * (no keywords, starts almost anywhere) with its expected cost (issue 6).
 */
import { describe, expect, it } from 'vitest';
import { checkPack } from '../../../src/core/rules/check-pack.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import {
  USELESS_PREFILTER_START_SHARE,
  prefilterCost,
} from '../../../src/core/rules/prefilter-cost.ts';
import type { RuleSpec } from '../../../src/core/rules/rule.ts';

function rule(id: string, pattern: string, match: string, keywords?: string[]): RuleSpec {
  const spec: RuleSpec = {
    id,
    kind: 'custom',
    description: id,
    pattern,
    action: 'redact',
    // No letters: a placeholder must not trigger the any-word rule.
    replacement: '***',
    examples: { match: [match], noMatch: ['!!!'] },
  };
  if (keywords !== undefined) spec.keywords = keywords;
  return spec;
}

const pack = {
  name: 'p',
  version: '1',
  rules: [
    rule('any-word', '[a-z]{1,12}', 'hello'),
    rule('keyed', 'ZZ-[0-9]{2}', 'ZZ-12', ['ZZ-']),
    rule('rare', '#[0-9]{3}', '#123'),
  ],
};

describe('prefilter cost', () => {
  it('measures where keyword-less rules start and what they cost per character', () => {
    const compiled = compilePack(pack);
    const [anyWord, , rare] = compiled.rules;
    const wide = prefilterCost(compiled, anyWord!);
    const narrow = prefilterCost(compiled, rare!);
    expect(wide.startShare).toBeGreaterThan(0.5);
    expect(wide.stepsPerChar).toBeGreaterThan(2);
    expect(narrow.startShare).toBeLessThan(0.05);
    expect(narrow.stepsPerChar).toBeLessThan(1.1);
  });

  it('warns about the rule with the expected cost, and the check still passes', () => {
    const report = checkPack(pack);
    expect(report.problems).toEqual([]);
    expect(report.warnings.map((w) => w.rule)).toEqual(['any-word']);
    expect(report.warnings[0]?.message).toMatch(
      /^no keywords and the pattern can start at \d+% of the positions of ordinary text, .* expected cost \d+\.\d automaton steps per input character/,
    );
  });

  it('warns at the documented threshold and not below it; a deliberately costly rule', () => {
    const costly = {
      name: 'costly',
      version: '1',
      rules: [
        // Starts at every unit but a line break and runs up to 64 steps from each.
        rule('any-run-then-bang', '[^\\n]{8,64}!', 'eight units!'),
        // Starts at capitals only: well under the threshold.
        rule('capital-word', '[A-Z][a-z]{2,8}', 'Hello'),
        rule('keyed', 'ZZ-[0-9]{2}', 'ZZ-12', ['ZZ-']),
      ],
    };
    const compiled = compilePack(costly);
    const shares = new Map(compiled.rules.map((r) => [r.id, prefilterCost(compiled, r)]));
    expect(USELESS_PREFILTER_START_SHARE).toBe(0.3);
    expect(shares.get('any-run-then-bang')!.startShare).toBeGreaterThan(0.9);
    expect(shares.get('any-run-then-bang')!.stepsPerChar).toBeGreaterThan(10);
    expect(shares.get('capital-word')!.startShare).toBeLessThan(USELESS_PREFILTER_START_SHARE);
    const report = checkPack(costly);
    expect(report.problems).toEqual([]);
    // Exactly the keyword-less rules at or above the threshold are warned about.
    const expected = compiled.rules
      .filter((r) => r.keywords === null)
      .filter((r) => shares.get(r.id)!.startShare >= USELESS_PREFILTER_START_SHARE)
      .map((r) => r.id);
    expect(expected).toEqual(['any-run-then-bang']);
    expect(report.warnings.map((w) => w.rule)).toEqual(expected);
    expect(report.warnings[0]?.message).toMatch(
      /can start at (9\d|100)% of the positions .* expected cost \d+\.\d automaton steps per input character.* \(warned at 30% of positions or more\)$/,
    );
  });

  it('has nothing to say about the built-in packs', () => {
    const builtin = getCorePack();
    for (const r of builtin.rules.filter((x) => x.keywords === null)) {
      expect(prefilterCost(builtin, r).startShare, r.id).toBeLessThan(
        USELESS_PREFILTER_START_SHARE,
      );
    }
  });
});
