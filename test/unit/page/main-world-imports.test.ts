/**
 * The MAIN-world script runs in every frame of every guarded page, so it loads
 * the pack the background compiled (load-compiled-pack.ts) and must not bundle
 * the compiler: its import graph must reach neither regexpp, the pack
 * validator, the keyword proof, the NFA compiler nor any pack JSON. Type-only
 * imports (`import type`, `export type`) are not followed: the build erases
 * them, and many engine files name `CompiledPack` from compile-pack.ts.
 */
import { describe, expect, it } from 'vitest';
import { importGraph } from '../../support/import-graph.ts';

describe('main-world import graph', () => {
  const graph = importGraph('src/page/main-world.ts', { typeOnly: false });

  it('reaches the hooks, the engine and the compiled-pack loader', () => {
    // The walker must really follow imports, or the exclusions below would prove nothing.
    expect(graph).toContain('src/page/fetch-hook.ts');
    expect(graph).toContain('src/core/rules/load-compiled-pack.ts');
    expect(graph).toContain('src/core/regex/lazy-dfa.ts');
    expect(graph).toContain('eventsource-parser');
  });

  it('reaches neither the rule compiler nor any pack JSON', () => {
    expect(graph.filter((m) => m.startsWith('@eslint-community/regexpp'))).toEqual([]);
    expect(graph).not.toContain('src/core/rules/validate-pack.ts');
    expect(graph).not.toContain('src/core/rules/keyword-check.ts');
    expect(graph).not.toContain('src/core/regex/compile-nfa.ts');
    expect(graph).not.toContain('src/core/rules/compile-pack.ts');
    expect(graph).not.toContain('src/core/rules/builtin-packs.ts');
    expect(graph.filter((m) => m.endsWith('.json'))).toEqual([]);
  });

  it('the background, which compiles, does reach them (the walker sees packages and JSON)', () => {
    const background = importGraph('src/background/page-config.ts', { typeOnly: false });
    expect(background).toContain('@eslint-community/regexpp');
    expect(background).toContain('src/core/rules/validate-pack.ts');
    expect(background.filter((m) => m.includes('/packs/') && m.endsWith('.json'))).not.toEqual([]);
  });
});
