/**
 * `csg rules check` reports a rule that makes the keyword prefilter useless
 * (no keywords, starts almost anywhere) with its expected cost (issue 6).
 */
import { describe, expect, it } from 'vitest';
import { checkPack } from '../../../src/core/rules/check-pack.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { prefilterCost } from '../../../src/core/rules/prefilter-cost.ts';
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

  it('has nothing to say about the built-in packs', () => {
    const builtin = getCorePack();
    for (const r of builtin.rules.filter((x) => x.keywords === null)) {
      expect(prefilterCost(builtin, r).startShare, r.id).toBeLessThan(0.3);
    }
  });
});
