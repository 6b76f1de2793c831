/**
 * Where the engine lives. The MAIN-world script runs in every frame of every
 * guarded page, in the page's own JavaScript world: it only recognises chat
 * responses and requests and moves their text over the private port, so its
 * import graph must reach no guard, no adapter, no rule and no compiler. The
 * ISOLATED side is two scripts (src/content/engine-dock.ts): the bridge runs at
 * document_start in the page's first parse task, so it only takes the port and
 * queues messages and must reach no engine either (issue 4: no long task caused
 * by the guard); the guard engine, at document_end, runs the guard with the pack
 * the background compiled (load-compiled-pack.ts) and must not bundle the
 * compiler: neither regexpp, the pack validator, the keyword proof, the NFA
 * compiler nor any pack JSON.
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
    expect(graph).toContain('src/page/sse-events.ts');
  });

  it('reaches no package: what it needs is small and its own (issue 4: its size)', () => {
    expect(graph.filter((m) => !m.startsWith('src/'))).toEqual([]);
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

const engineParts = (graph: string[]) => [
  ...graph.filter((m) => /^src\/core\/(?:guard|regex|rules|outgoing|wire\/adapters)\//.test(m)),
  ...[
    'src/core/wire/stream-rewriter.ts',
    'src/content/guard-host.ts',
    'src/content/guard-engine.ts',
    'webextension-polyfill',
  ].filter((m) => graph.includes(m)),
];

describe('bridge and guard engine import graphs', () => {
  const bridge = importGraph('src/content/bridge.ts', { typeOnly: false });
  const engine = importGraph('src/content/guard-engine.ts', { typeOnly: false });

  it('the bridge takes the port, re-validates and queues at the dock', () => {
    // The walker must really follow the bridge's imports, or the exclusions below prove nothing.
    expect(bridge).toContain('src/content/page-channel-handshake.ts');
    expect(bridge).toContain('src/content/parse-page-message.ts');
    expect(bridge).toContain('src/content/engine-dock.ts');
    expect(bridge).toContain('src/content/engine-slot.ts');
  });

  it('the bridge reaches no engine: no guard, regex, rules, adapter, outgoing code or package', () => {
    expect(engineParts(bridge)).toEqual([]);
    expect(compilerParts(bridge)).toEqual([]);
    // No package at all: importGraph lists packages by name (see the engine's below).
    expect(bridge.filter((m) => !m.startsWith('src/'))).toEqual([]);
  });

  it('the guard engine runs the engine with the compiled-pack loader, docked through the slot', () => {
    expect(engine).toContain('src/content/engine-slot.ts');
    expect(engine).toContain('src/content/guard-host.ts');
    expect(engine).toContain('src/core/rules/load-compiled-pack.ts');
    expect(engine).toContain('src/core/regex/lazy-dfa.ts');
    expect(engine).toContain('src/core/wire/stream-rewriter.ts');
    expect(engine).toContain('webextension-polyfill');
    // The filter the bridge is checked with does see the engine where it is.
    expect(engineParts(engine)).toEqual(
      expect.arrayContaining([
        'src/content/guard-host.ts',
        'src/core/regex/lazy-dfa.ts',
        'src/core/wire/stream-rewriter.ts',
        'webextension-polyfill',
      ]),
    );
  });

  it('the guard engine reaches neither the rule compiler nor any pack JSON', () => {
    expect(compilerParts(engine)).toEqual([]);
  });

  it('the background, which compiles, does reach them (the walker sees packages and JSON)', () => {
    const background = importGraph('src/background/page-config.ts', { typeOnly: false });
    expect(compilerParts(background)).toContain('@eslint-community/regexpp');
    expect(compilerParts(background)).toContain('src/core/rules/validate-pack.ts');
    expect(background.filter((m) => m.includes('/packs/') && m.endsWith('.json'))).not.toEqual([]);
  });
});
