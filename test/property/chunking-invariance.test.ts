/**
 * DESIGN.md §3.1 and §3.2: for any text and any split, output and events equal
 * the single-chunk result, and after every push the text released so far is a
 * prefix of the final output.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanChunks, scanText } from '../../src/core/guard/scan-text.ts';
import { type CompiledPack, compilePack } from '../../src/core/rules/compile-pack.ts';
import type { RulePack } from '../../src/core/rules/rule.ts';
import { engineTestPack } from '../support/engine-test-pack.ts';
import { PROPERTY_RUNS, cut, cutsArbitrary, textArbitrary } from '../support/text-arbitraries.ts';
import { shippedPacks } from '../support/shipped-packs.ts';

function expectInvariant(pack: CompiledPack, text: string, chunks: string[]): void {
  const whole = scanText(pack, text);
  const split = scanChunks(pack, chunks);
  expect(split.output).toBe(whole.output);
  expect(split.events).toEqual(whole.events);
  expect(split.blocked).toBe(whole.blocked);
  let released = '';
  for (const emit of split.emits) {
    released += emit;
    expect(whole.output.startsWith(released)).toBe(true);
  }
}

const packs: [string, RulePack][] = [['engine-test', engineTestPack], ...shippedPacks()];

describe.each(packs)('chunking invariance: %s pack', (_name, spec) => {
  const pack = compilePack(spec);
  const examples = spec.rules.flatMap((r) => [...r.examples.match, ...r.examples.noMatch]);

  it('every example, split at every position into two chunks', { timeout: 300_000 }, () => {
    for (const text of examples) {
      for (let i = 0; i <= text.length; i++) {
        expectInvariant(pack, text, [text.slice(0, i), text.slice(i)]);
      }
    }
  });

  it('every example inside prose, one code unit per chunk', { timeout: 300_000 }, () => {
    for (const text of examples) {
      const framed = `Sure! Here it is: ${text} — done.`;
      expectInvariant(pack, framed, [...framed.split('')]);
    }
  });

  it('random texts, random k-way splits (fast-check)', { timeout: 300_000 }, () => {
    fc.assert(
      fc.property(textArbitrary(spec), cutsArbitrary, (text, fractions) => {
        expectInvariant(pack, text, cut(text, fractions));
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });
});
