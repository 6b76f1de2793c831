/**
 * The keyword prefilter reports exactly the keyword occurrences a naive search
 * of the case-folded text finds (its goto rows are built from failure rows, so
 * a wrong row would miss or invent a keyword), and the process-wide fold table
 * agrees with `foldUnit` for every code unit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  KeywordAutomaton,
  foldText,
  foldUnit,
  foldedUnits,
  unitsFoldingTo,
} from '../../../src/core/guard/keyword-automaton.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';

/** Small alphabet with case pairs, a non-ASCII pair and CJK, so keywords overlap often. */
const unitText = (maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...'abkAB_-ÄäK\u212A数据'), maxLength });

function naiveHits(keywordsByRule: string[][], text: string): string[] {
  const folded = foldText(text);
  const hits: string[] = [];
  for (let end = 1; end <= folded.length; end++) {
    keywordsByRule.forEach((keywords, rule) => {
      const lengths = new Set(
        keywords.map(foldText).filter((k) => folded.slice(0, end).endsWith(k)),
      );
      for (const length of [...lengths].map((k) => k.length)) hits.push(`${end}:${rule}:${length}`);
    });
  }
  return hits.sort();
}

function automatonHits(keywordsByRule: string[][], text: string): string[] {
  const ac = new KeywordAutomaton(keywordsByRule);
  const hits: string[] = [];
  let node = 0;
  for (let i = 0; i < text.length; i++) {
    node = ac.next(node, text.charCodeAt(i));
    expect(ac.hasOutput[node]).toBe((ac.outputs[node]?.length ?? 0) > 0 ? 1 : 0);
    for (const hit of ac.outputs[node] ?? []) hits.push(`${i + 1}:${hit.rule}:${hit.length}`);
  }
  return hits.sort();
}

describe('KeywordAutomaton', () => {
  it('reports every keyword end, and only those (fast-check)', { timeout: 120_000 }, () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.array(
            unitText(4).filter((k) => k.length > 0),
            { minLength: 1, maxLength: 4 },
          ),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
        unitText(40),
        (keywordsByRule, text) => {
          expect(automatonHits(keywordsByRule, text)).toEqual(naiveHits(keywordsByRule, text));
        },
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it(
    'builds in steps exactly what the constructor builds (fast-check)',
    { timeout: 120_000 },
    () => {
      const fields = (ac: KeywordAutomaton) => ({
        symbolOf: ac.symbolOf,
        symbols: ac.symbols,
        hasOutput: ac.hasOutput,
        goto: ac.goto,
        depth: ac.depth,
        fail: ac.fail,
        outputs: ac.outputs,
        extendingRules: ac.extendingRules,
        nodeCount: ac.nodeCount,
        maxKeywordLength: ac.maxKeywordLength,
        keywords: ac.keywords,
      });
      fc.assert(
        fc.property(
          // Enough rules (and, with long keywords, nodes) for the build to yield on the way.
          fc.array(
            fc.array(
              unitText(24).filter((k) => k.length > 0),
              { minLength: 1, maxLength: 3 },
            ),
            {
              minLength: 60,
              maxLength: 160,
            },
          ),
          (keywordsByRule) => {
            const steps = KeywordAutomaton.steps(keywordsByRule);
            let yields = 0;
            let step = steps.next();
            for (; step.done !== true; step = steps.next()) yields++;
            expect(yields).toBeGreaterThan(0);
            expect(fields(step.value)).toEqual(fields(new KeywordAutomaton(keywordsByRule)));
          },
        ),
        { numRuns: Math.max(10, Math.floor(PROPERTY_RUNS / 100)) },
      );
    },
  );

  it('folds every code unit as foldUnit does', () => {
    const table = foldedUnits();
    const wrong: number[] = [];
    for (let unit = 0; unit < 0x10000; unit++) if (table[unit] !== foldUnit(unit)) wrong.push(unit);
    expect(wrong).toEqual([]);
  });

  it('lists, for every folded unit, exactly the units folding to it, ascending', () => {
    const table = foldedUnits();
    const seen = new Uint8Array(0x10000);
    const wrong: string[] = [];
    for (let folded = 0; folded < 0x10000; folded++) {
      let previous = -1;
      for (const unit of unitsFoldingTo(folded)) {
        if (table[unit] !== folded || unit <= previous) wrong.push(`${folded}: ${unit}`);
        seen[unit] = (seen[unit] as number) + 1;
        previous = unit;
      }
    }
    expect(wrong).toEqual([]);
    expect(seen.every((count) => count === 1)).toBe(true);
  });
});
