/**
 * Every shipped rule's own true- and false-positive examples, run through the
 * streaming engine (not a plain RegExp): a test fails when one flips. Also:
 * no replacement text triggers a rule, and every pattern is in the exact subset.
 */
import { describe, expect, it } from 'vitest';
import { checkPack } from '../../../src/core/rules/check-pack.ts';
import { formatProblem } from '../../../src/core/rules/validate-pack.ts';
import { shippedPacks } from '../../support/shipped-packs.ts';

describe.each(shippedPacks())('shipped pack %s', (_file, pack) => {
  // The secrets pack has ~200 rules, each compiled alone for its examples.
  it('passes the semantic pack check (examples through the engine)', () => {
    const report = checkPack(pack);
    expect(report.problems.map(formatProblem)).toEqual([]);
  }, 180_000);

  it('has at least one match and one noMatch example per rule', () => {
    for (const rule of pack.rules) {
      expect(rule.examples.match.length, rule.id).toBeGreaterThan(0);
      expect(rule.examples.noMatch.length, rule.id).toBeGreaterThan(0);
    }
  });
});
