/**
 * The serialised-pack loader is what the MAIN world will bundle, so its import
 * graph must not reach the regex parser (53 KB minified), the pack validator or
 * the keyword proof (see load-compiled-pack.ts). Walks every import, type-only
 * ones included, from the loader's source.
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { maskSource } from '../core-purity-checker.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const rulesDir = resolve(root, 'src/core/rules');

/** Module specifiers of one file (static, re-exports, side-effect and dynamic imports). */
function specifiers(source: string): string[] {
  const masked = maskSource(source);
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\b[^;]*?\bfrom\s*"(\d+)"/g,
    /\bimport\s*"(\d+)"/g,
    /\bimport\s*\(\s*"(\d+)"/g,
  ];
  for (const pattern of patterns) {
    for (const match of masked.code.matchAll(pattern)) {
      found.push(masked.strings[Number(match[1])] ?? '');
    }
  }
  return found;
}

/** Every module reachable from `entry`: project files by path, packages by name. */
function importGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!file.startsWith('/')) continue; // a package: not followed
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      queue.push(spec.startsWith('.') ? resolve(dirname(file), spec) : spec);
    }
  }
  return seen;
}

function shown(graph: Set<string>): string[] {
  return [...graph].map((m) => (m.startsWith('/') ? relative(root, m) : m)).sort();
}

describe('load-compiled-pack import graph', () => {
  const graph = shown(importGraph(resolve(rulesDir, 'load-compiled-pack.ts')));

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
    const compiler = shown(importGraph(resolve(rulesDir, 'compile-pack.ts')));
    expect(compiler).toContain('@eslint-community/regexpp');
    expect(compiler).toContain('src/core/rules/validate-pack.ts');
  });
});
