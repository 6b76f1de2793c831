/**
 * The serialised-pack loader is what the MAIN world will bundle, so its import
 * graph must not reach the regex parser (53 KB minified), the pack validator or
 * the keyword proof (see load-compiled-pack.ts). Walks every import, type-only
 * ones included, from the loader's source.
 */
import { describe, expect, it } from 'vitest';
import { importGraph } from '../../support/import-graph.ts';

describe('load-compiled-pack import graph', () => {
  const graph = importGraph('src/core/rules/load-compiled-pack.ts', { typeOnly: true });

  it('reaches the engine it rebuilds', () => {
    // The walker must really follow imports, or the exclusions below would prove nothing.
    expect(graph).toContain('src/core/rules/compiled-pack.ts');
    expect(graph).toContain('src/core/regex/lazy-dfa.ts');
    expect(graph).toContain('src/core/guard/keyword-automaton.ts');
  });

  it('does not reach regexpp, the pack validator, the keyword proof or the compiler', () => {
    expect(graph.filter((m) => m.startsWith('@eslint-community/regexpp'))).toEqual([]);
    expect(graph).not.toContain('src/core/rules/validate-pack.ts');
    expect(graph).not.toContain('src/core/rules/keyword-check.ts');
    expect(graph).not.toContain('src/core/regex/compile-nfa.ts');
    expect(graph).not.toContain('src/core/rules/compile-pack.ts');
  });

  it('the compiler does reach them (the walker sees packages)', () => {
    const compiler = importGraph('src/core/rules/compile-pack.ts', { typeOnly: true });
    expect(compiler).toContain('@eslint-community/regexpp');
    expect(compiler).toContain('src/core/rules/validate-pack.ts');
  });
});
