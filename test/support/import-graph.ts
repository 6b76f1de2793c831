/**
 * The import graph of a source file, for tests that pin what a bundle may reach
 * (the MAIN-world script, the compiled-pack loader). Specifiers are found on the
 * masked source (core-purity-checker.ts), so comments and strings never count.
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { maskSource } from '../unit/core-purity-checker.ts';

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ImportGraphOptions {
  /**
   * Follow `import type` / `export type` too. Off for a bundle's contents (the build
   * erases type-only imports); on to prove a module does not even name another.
   */
  typeOnly: boolean;
}

/** Module specifiers of one file: static, re-exports, side-effect and dynamic imports. */
function specifiers(source: string, options: ImportGraphOptions): string[] {
  const masked = maskSource(source);
  const found: string[] = [];
  const patterns = [
    /\b(import|export)\b(\s+type\b)?[^;]*?\bfrom\s*"(\d+)"/g,
    /\bimport()()\s*"(\d+)"/g,
    /\bimport()()\s*\(\s*"(\d+)"/g,
  ];
  for (const pattern of patterns) {
    for (const match of masked.code.matchAll(pattern)) {
      const typeOnly = match[2] !== undefined && match[2] !== '';
      if (typeOnly && !options.typeOnly) continue;
      found.push(masked.strings[Number(match[3])] ?? '');
    }
  }
  return found;
}

/**
 * Every module reachable from `entry`, shown as project-relative paths (project files)
 * or package names, sorted. Packages and JSON data are listed, not followed.
 */
export function importGraph(entry: string, options: ImportGraphOptions): string[] {
  const seen = new Set<string>();
  const queue = [resolve(PROJECT_ROOT, entry)];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!file.startsWith('/') || file.endsWith('.json')) continue;
    for (const spec of specifiers(readFileSync(file, 'utf8'), options)) {
      queue.push(spec.startsWith('.') ? resolve(dirname(file), spec) : spec);
    }
  }
  return [...seen].map((m) => (m.startsWith('/') ? relative(PROJECT_ROOT, m) : m)).sort();
}
