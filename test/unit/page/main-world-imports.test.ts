/**
 * Where the engine lives. The MAIN-world script runs in every frame of every
 * guarded page, in the page's own JavaScript world: it only recognises chat
 * responses and requests and moves their text over the private port, so its
 * import graph must reach no guard, no adapter, no rule and no compiler. The
 * ISOLATED bridge runs the guard with the pack the background compiled
 * (load-compiled-pack.ts) and must not bundle the compiler: neither regexpp,
 * the pack validator, the keyword proof, the NFA compiler nor any pack JSON.
 * Type-only imports (`import type`, `export type`) are not followed: the build
 * erases them.
 */
import { describe, expect, it } from 'vitest';
import { importGraph } from '../../support/import-graph.ts';

const compilerParts = (graph: string[]) => [
  ...graph.filter((m) => m.startsWith('@eslint-community/regexpp')),
  ...graph.filter((m) => m.endsWith('.json')),
  ...[
    'src/core/rules/validate-pack.ts',
    'src/core/rules/keyword-check.ts',
    'src/core/regex/compile-nfa.ts',
    'src/core/rules/compile-pack.ts',
    'src/core/rules/builtin-packs.ts',
  ].filter((m) => graph.includes(m)),
];

describe('main-world import graph', () => {
  const graph = importGraph('src/page/main-world.ts', { typeOnly: false });

  it('reaches the hooks, the recognisers and the remote guard', () => {
    // The walker must really follow imports, or the exclusions below would prove nothing.
    expect(graph).toContain('src/page/fetch-hook.ts');
    expect(graph).toContain('src/page/remote-guard.ts');
    expect(graph).toContain('src/core/wire/wire-recognisers.ts');
    expect(graph).toContain('eventsource-parser');
  });

  it('reaches no engine: no guard, regex, rules, adapter or outgoing code', () => {
    const engine = graph.filter((m) =>
      /^src\/core\/(?:guard|regex|rules|outgoing|wire\/adapters)\//.test(m),
    );
    expect(engine).toEqual([]);
    expect(graph).not.toContain('src/core/wire/stream-rewriter.ts');
    expect(compilerParts(graph)).toEqual([]);
  });
});

describe('bridge import graph', () => {
  const graph = importGraph('src/content/bridge.ts', { typeOnly: false });

  it('runs the engine with the compiled-pack loader', () => {
    expect(graph).toContain('src/content/guard-host.ts');
    expect(graph).toContain('src/core/rules/load-compiled-pack.ts');
    expect(graph).toContain('src/core/regex/lazy-dfa.ts');
    expect(graph).toContain('src/core/wire/stream-rewriter.ts');
  });

  it('reaches neither the rule compiler nor any pack JSON', () => {
    expect(compilerParts(graph)).toEqual([]);
  });

  it('the background, which compiles, does reach them (the walker sees packages and JSON)', () => {
    const background = importGraph('src/background/page-config.ts', { typeOnly: false });
    expect(compilerParts(background)).toContain('@eslint-community/regexpp');
    expect(compilerParts(background)).toContain('src/core/rules/validate-pack.ts');
    expect(background.filter((m) => m.includes('/packs/') && m.endsWith('.json'))).not.toEqual([]);
  });
});
