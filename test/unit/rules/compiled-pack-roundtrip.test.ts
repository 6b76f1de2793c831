/**
 * A pack loaded from its serialised form (what the MAIN world will run) guards
 * exactly like the freshly compiled pack: same released chunks, output and
 * events for any text and any chunking (DESIGN.md §3.1–3.3 carry over).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanChunks } from '../../../src/core/guard/scan-text.ts';
import { builtinPackJson } from '../../../src/core/rules/builtin-packs.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { loadCompiledPack } from '../../../src/core/rules/load-compiled-pack.ts';
import type { RulePack } from '../../../src/core/rules/rule.ts';
import { serialiseCompiledPack } from '../../../src/core/rules/serialised-pack.ts';
import { engineTestPack } from '../../support/engine-test-pack.ts';
import { shippedPacks } from '../../support/shipped-packs.ts';
import {
  PROPERTY_RUNS,
  cut,
  cutsArbitrary,
  textArbitrary,
} from '../../support/text-arbitraries.ts';

const packs: [string, RulePack][] = [
  ['engine-test', engineTestPack],
  ...shippedPacks(),
  ['builtin (merged)', builtinPackJson()],
];

/**
 * textArbitrary draws keyword fragments, and fc.constantFrom() of nothing throws: a pack
 * without keywords borrows the engine-test pack's pieces (they are only input text).
 */
function textSource(spec: RulePack): RulePack {
  if (spec.rules.some((r) => (r.keywords?.length ?? 0) > 0)) return spec;
  return { ...spec, rules: [...spec.rules, ...engineTestPack.rules] };
}

const options = { allowedImageHosts: ['images.example.org'] };

describe.each(packs)('serialised pack round trip: %s', (_name, spec) => {
  const fresh = compilePack(spec, options);
  // Through JSON, as it would cross a channel that does not clone typed arrays.
  const data: unknown = JSON.parse(JSON.stringify(serialiseCompiledPack(fresh)));
  const loaded = loadCompiledPack(data, options);

  it('keeps every rule, its limits, keywords, start classes and the alphabet', () => {
    expect(loaded.name).toBe(fresh.name);
    expect(loaded.version).toBe(fresh.version);
    expect(loaded.options).toEqual(fresh.options);
    expect(loaded.rules.map((r) => r.id)).toEqual(fresh.rules.map((r) => r.id));
    fresh.rules.forEach((rule, i) => {
      const other = loaded.rules[i]!;
      expect(other.maxLength).toBe(rule.maxLength);
      expect(other.structuralMaxLength).toBe(rule.structuralMaxLength);
      expect(other.keywords).toEqual(rule.keywords);
      expect(other.distinctStarts).toBe(rule.distinctStarts);
      expect(other.replacement).toBe(rule.replacement);
      expect(other.startClasses).toEqual(rule.startClasses);
      expect(other.nfa.stateCount).toBe(rule.nfa.stateCount);
      const { pattern: _p, examples: _e, ...runtime } = rule.spec;
      expect(other.spec).toMatchObject(runtime);
    });
    expect(loaded.alphabet.classOf).toEqual(fresh.alphabet.classOf);
    expect(loaded.alphabet.representative).toEqual(fresh.alphabet.representative);
  });

  it('carries neither patterns nor examples', () => {
    const text = JSON.stringify(data);
    expect(text).not.toContain('"pattern"');
    expect(text).not.toContain('"examples"');
  });

  it(
    'every example inside prose, one code unit per chunk: same emits and events',
    { timeout: 300_000 },
    () => {
      for (const rule of spec.rules) {
        for (const example of [...rule.examples.match, ...rule.examples.noMatch]) {
          const chunks = [...`Sure: ${example} — done.`];
          expect(scanChunks(loaded, chunks)).toEqual(scanChunks(fresh, chunks));
        }
      }
    },
  );

  it(
    'random texts, random chunkings (fast-check): same emits, output and events',
    { timeout: 300_000 },
    () => {
      fc.assert(
        fc.property(textArbitrary(textSource(spec)), cutsArbitrary, (text, fractions) => {
          const chunks = cut(text, fractions);
          expect(scanChunks(loaded, chunks)).toEqual(scanChunks(fresh, chunks));
        }),
        { numRuns: Math.min(PROPERTY_RUNS, 500) },
      );
    },
  );
});
