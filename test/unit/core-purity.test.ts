/**
 * `src/core` runs in the page, the service worker and Node (DESIGN.md §4): this test
 * fails when any file under it imports the DOM, extension APIs or anything outside
 * `src/core` (except the allow-listed parser package).
 */

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkCoreSource, maskSource } from './core-purity-checker.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CORE = join(ROOT, 'src', 'core');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return /\.(c|m)?tsx?$/.test(entry.name) ? [path] : [];
  });
}

describe('src/core purity', () => {
  const files = tsFiles(CORE);

  it('finds the core sources', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it('imports nothing outside src/core and references no DOM or extension global', () => {
    const report = files.flatMap((file) =>
      checkCoreSource(file, readFileSync(file, 'utf8'), CORE).map(
        (v) => `${relative(ROOT, file)}:${v.line}: ${v.message}`,
      ),
    );
    expect(report).toEqual([]);
  });
});

describe('core purity checker (self-test)', () => {
  const file = join(CORE, 'guard', 'sample.ts');
  const check = (source: string) =>
    checkCoreSource(file, source, CORE).map((v) => `${v.line}: ${v.message}`);

  it('flags imports that leave src/core', () => {
    expect(
      check(
        [
          "import { x } from '../../page/fetch-hook.ts';",
          "import type { Y } from '../../../test/e2e/launch.ts';",
          "export * from '/abs/path.ts';",
          "import 'preact';",
          "import { h } from 'preact/hooks';",
          "const fs = require('node:fs');",
          'const m = await import(name);',
        ].join('\n'),
      ),
    ).toEqual([
      '1: imports "../../page/fetch-hook.ts", outside src/core',
      '2: imports "../../../test/e2e/launch.ts", outside src/core',
      '3: imports "/abs/path.ts", outside src/core',
      '4: imports package "preact", not on the allow-list',
      '5: imports package "preact/hooks", not on the allow-list',
      '6: imports package "node:fs", not on the allow-list',
      '7: dynamic import or require with a computed specifier',
    ]);
  });

  it('allows imports inside src/core and the allow-listed parser', () => {
    expect(
      check(
        [
          "import { RegExpParser } from '@eslint-community/regexpp';",
          "import type { AST } from '@eslint-community/regexpp/ast';",
          "import { compile } from '../regex/compile.ts';",
          "export { push } from './engine.ts';",
          "import type { RuleSpec } from '../rules/rule.ts';",
        ].join('\n'),
      ),
    ).toEqual([]);
  });

  it('flags DOM and extension globals', () => {
    expect(
      check(
        [
          'const w = window.location;',
          'document.title = "x";',
          'chrome.storage.local.get();',
          'await browser.runtime.sendMessage(1);',
          'const ua = navigator.userAgent;',
          'localStorage.setItem("a", "b");',
          'const db = indexedDB.open("x");',
          'new XMLHttpRequest();',
          'const r = await fetch(url);',
          'WebAssembly.instantiate(bytes);',
          'const f = globalThis.fetch;',
          'const c = chrome?.runtime;',
        ].join('\n'),
      ),
    ).toEqual([
      '1: references the DOM global "window"',
      '2: references the DOM global "document"',
      '3: references the extension API "chrome."',
      '4: references the extension API "browser."',
      '5: references the DOM global "navigator"',
      '6: references the DOM global "localStorage"',
      '7: references the DOM global "indexedDB"',
      '8: references the DOM global "XMLHttpRequest"',
      '9: calls the global fetch()',
      '10: references the DOM global "WebAssembly"',
      '11: references "fetch" through the global object',
      '12: references the extension API "chrome."',
    ]);
  });

  it('ignores comments, strings, template text, regex literals and properties', () => {
    expect(
      check(
        [
          '// window.fetch( and document in a comment',
          '/* chrome.storage',
          '   navigator */',
          "const a = 'window.document fetch(';",
          'const b = "chrome.runtime";',
          'const c = `browser.tabs ${n} indexedDB`;',
          'const d = /window\\.fetch\\(/gi;',
          'const e = x / 2 / y;',
          'const f = stream.fetch(1) + obj.document + self.chunk;',
          'const g = { kind: "document", window: 3 } as const;',
          'function h(window: number, document?: string) {}',
        ].join('\n'),
      ),
    ).toEqual([]);
  });

  it('still flags a global used as a ternary branch', () => {
    expect(check('const t = ok ? window : undefined;')).toEqual([
      '1: references the DOM global "window"',
    ]);
  });

  it('keeps checking code inside template substitutions', () => {
    expect(check('const s = `a ${window.name} b ${`${fetch(u)}`}`;')).toEqual([
      '1: references the DOM global "window"',
      '1: calls the global fetch()',
    ]);
  });

  it('masks strings but keeps their values for import checks', () => {
    const masked = maskSource("import x from 'a'; const s = `t${1}u`; // c\n");
    expect(masked.strings).toEqual(['a', 't', 'u']);
    expect(masked.code).not.toContain('// c');
  });
});
