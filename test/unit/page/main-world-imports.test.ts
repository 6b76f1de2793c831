/**
 * The MAIN-world script runs in every frame of every guarded page, so it loads
 * the pack the background compiled (load-compiled-pack.ts) and must not bundle
 * the compiler: its import graph must reach neither regexpp, the pack
 * validator, the keyword proof, the NFA compiler nor any pack JSON. Type-only
 * imports (`import type`, `export type`) are not followed: the build erases
 * them, and many engine files name `CompiledPack` from compile-pack.ts.
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { maskSource } from '../core-purity-checker.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Value (not type-only) module specifiers of one file. */
function valueSpecifiers(source: string): string[] {
  const masked = maskSource(source);
  const found: string[] = [];
  const patterns = [
    /\b(import|export)\b(\s+type\b)?[^;]*?\bfrom\s*"(\d+)"/g,
    /\bimport()()\s*"(\d+)"/g,
    /\bimport()()\s*\(\s*"(\d+)"/g,
  ];
  for (const pattern of patterns) {
    for (const match of masked.code.matchAll(pattern)) {
      if (match[2] !== undefined && match[2] !== '') continue; // `import type` / `export type`
      found.push(masked.strings[Number(match[3])] ?? '');
    }
  }
  return found;
}

/** Every module reachable by value imports from `entry`: project files by path, packages by name. */
function valueImportGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!file.startsWith('/') || file.endsWith('.json')) continue; // a package or data
    for (const spec of valueSpecifiers(readFileSync(file, 'utf8'))) {
      queue.push(spec.startsWith('.') ? resolve(dirname(file), spec) : spec);
    }
  }
  return seen;
}

function shown(graph: Set<string>): string[] {
  return [...graph].map((m) => (m.startsWith('/') ? relative(root, m) : m)).sort();
}

describe('main-world import graph', () => {
  const graph = shown(valueImportGraph(resolve(root, 'src/page/main-world.ts')));

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
    const background = shown(valueImportGraph(resolve(root, 'src/background/page-config.ts')));
    expect(background).toContain('@eslint-community/regexpp');
    expect(background).toContain('src/core/rules/validate-pack.ts');
    expect(background.filter((m) => m.includes('/packs/') && m.endsWith('.json'))).not.toEqual([]);
  });
});
