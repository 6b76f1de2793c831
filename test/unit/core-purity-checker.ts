/**
 * Checks that a `src/core` source file stays pure (DESIGN.md §4): it imports nothing
 * outside `src/core` except an explicit allow-list of packages, and it references no
 * DOM or extension global. Comments and string literals are stripped first, so prose
 * and rule patterns that mention `window` or `fetch(` do not count.
 */

import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/** Bare packages `src/core` may import (exact name or a subpath of it): pure libraries,
 * the regex parser, the WHATWG SSE parser and SHA-256 (rules/sha256.ts). */
export const ALLOWED_PACKAGES = [
  '@eslint-community/regexpp',
  'eventsource-parser',
  '@noble/hashes',
];

/** Globals that only exist in a browser page or an extension: never in `src/core`. */
const FORBIDDEN_IDENTIFIERS = [
  'window',
  'document',
  'navigator',
  'localStorage',
  'indexedDB',
  'XMLHttpRequest',
  'WebAssembly',
];
const FORBIDDEN_NAMESPACES = ['chrome', 'browser'];

export interface Violation {
  line: number;
  message: string;
}

export interface MaskedSource {
  /** The code with comments blanked and every string literal replaced by `"<n>"`. */
  code: string;
  /** The string literals' values, by `<n>` (template literals only when they have no `${}`). */
  strings: string[];
}

/** Keywords after which a `/` starts a regular expression literal, not a division. */
const REGEX_PRECEDING_KEYWORDS = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);

function blank(text: string): string {
  // Keep newlines so line numbers still match.
  return text.replace(/[^\n]/g, ' ');
}

/**
 * A small lexer for TypeScript: blanks comments, masks string and template literal
 * text (code inside `${…}` stays code) and regular expression literals.
 */
export function maskSource(source: string): MaskedSource {
  const strings: string[] = [];
  let out = '';
  let i = 0;
  /** Brace depth of each open template `${`, so `}` knows when a template resumes. */
  const templateStack: number[] = [];
  let braceDepth = 0;
  let lastSignificant = '';

  const pushString = (value: string, raw: string) => {
    const index = strings.push(value) - 1;
    const token = `"${index}"`;
    const newlines = (raw.match(/\n/g) ?? []).length;
    out += token + '\n'.repeat(newlines);
    lastSignificant = '"';
  };

  const readTemplate = (): void => {
    // At a backtick or at the `}` closing a `${`: read template text up to `${` or the end.
    const start = i;
    let value = '';
    i++;
    while (i < source.length) {
      const ch = source[i]!;
      if (ch === '\\') {
        value += source.slice(i, i + 2);
        i += 2;
        continue;
      }
      if (ch === '`') {
        i++;
        pushString(value, source.slice(start, i));
        return;
      }
      if (ch === '$' && source[i + 1] === '{') {
        i += 2;
        pushString(value, source.slice(start, i));
        out += '${';
        templateStack.push(braceDepth);
        braceDepth++;
        lastSignificant = '{';
        return;
      }
      value += ch;
      i++;
    }
    pushString(value, source.slice(start));
  };

  while (i < source.length) {
    const ch = source[i]!;
    const next = source[i + 1];
    if (ch === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      const stop = end < 0 ? source.length : end;
      out += blank(source.slice(i, stop));
      i = stop;
      continue;
    }
    if (ch === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end < 0 ? source.length : end + 2;
      out += blank(source.slice(i, stop));
      i = stop;
      continue;
    }
    if (ch === '"' || ch === "'") {
      const start = i;
      let value = '';
      i++;
      while (i < source.length && source[i] !== ch && source[i] !== '\n') {
        if (source[i] === '\\') {
          value += source.slice(i, i + 2);
          i += 2;
        } else {
          value += source[i];
          i++;
        }
      }
      i++;
      pushString(value, source.slice(start, i));
      continue;
    }
    if (ch === '`') {
      readTemplate();
      continue;
    }
    if (ch === '}' && templateStack.length > 0 && templateStack.at(-1) === braceDepth - 1) {
      templateStack.pop();
      braceDepth--;
      readTemplate();
      continue;
    }
    if (ch === '/') {
      const prev = lastSignificant;
      const startsRegex =
        prev === '' || /[(,=:[!&|?{};+\-*%<>~^]$/.test(prev) || REGEX_PRECEDING_KEYWORDS.has(prev);
      if (startsRegex) {
        const start = i;
        let inClass = false;
        i++;
        while (i < source.length && source[i] !== '\n') {
          const c = source[i]!;
          if (c === '\\') {
            i += 2;
            continue;
          }
          if (c === '[') inClass = true;
          else if (c === ']') inClass = false;
          else if (c === '/' && !inClass) break;
          i++;
        }
        i++;
        while (i < source.length && /[a-z]/i.test(source[i]!)) i++;
        out += '/r/' + blank(source.slice(start, i)).slice(3);
        lastSignificant = 'regex';
        continue;
      }
    }
    if (ch === '{') braceDepth++;
    if (ch === '}') braceDepth--;
    if (/[A-Za-z0-9_$]/.test(ch)) {
      let j = i;
      while (j < source.length && /[A-Za-z0-9_$]/.test(source[j]!)) j++;
      const word = source.slice(i, j);
      out += word;
      lastSignificant = word;
      i = j;
      continue;
    }
    if (!/\s/.test(ch)) lastSignificant = ch;
    out += ch;
    i++;
  }
  return { code: out, strings };
}

function lineOf(code: string, index: number): number {
  let line = 1;
  for (let k = 0; k < index; k++) if (code.charCodeAt(k) === 10) line++;
  return line;
}

/** Module specifiers a file imports or re-exports (static, side-effect, dynamic, require). */
function importSpecifiers(masked: MaskedSource): { spec: string | null; index: number }[] {
  const found: { spec: string | null; index: number }[] = [];
  const patterns = [
    /\b(?:import|export)\b[^;]*?\bfrom\s*"(\d+)"/g,
    /\bimport\s*"(\d+)"/g,
    /\bimport\s*\(\s*(?:"(\d+)"\s*[,)])?/g,
    /\brequire\s*\(\s*(?:"(\d+)"\s*\))?/g,
  ];
  for (const pattern of patterns) {
    for (const match of masked.code.matchAll(pattern)) {
      const preceding = masked.code.slice(0, match.index).trimEnd();
      if (preceding.endsWith('.')) continue; // x.import(…), x.require(…)
      const index = match[1];
      found.push({
        spec: index === undefined ? null : (masked.strings[Number(index)] ?? null),
        index: match.index,
      });
    }
  }
  return found;
}

/**
 * True for a name that is declared rather than referenced: an object key or a
 * parameter / property annotation (`{ window: 3 }`, `f(window: number)`,
 * `window?: Size`). A ternary branch (`c ? window : x`) is still a reference.
 */
function isPropertyName(code: string, index: number, length: number): boolean {
  if (!/^\s*\??\s*:/.test(code.slice(index + length))) return false;
  const before = code.slice(0, index).trimEnd();
  return !before.endsWith('?');
}

/**
 * Returns the purity violations of one file. `file` is its absolute path, `coreRoot`
 * the absolute path of `src/core`.
 */
export function checkCoreSource(file: string, source: string, coreRoot: string): Violation[] {
  const masked = maskSource(source);
  const { code } = masked;
  const violations: Violation[] = [];

  for (const { spec, index } of importSpecifiers(masked)) {
    const line = lineOf(code, index);
    if (spec === null) {
      violations.push({ line, message: 'dynamic import or require with a computed specifier' });
    } else if (spec.startsWith('.') || isAbsolute(spec)) {
      const target = resolve(dirname(file), spec);
      const inside = relative(coreRoot, target);
      if (inside.startsWith('..') || isAbsolute(inside) || inside.split(sep)[0] === '..') {
        violations.push({ line, message: `imports "${spec}", outside src/core` });
      }
    } else if (!ALLOWED_PACKAGES.some((pkg) => spec === pkg || spec.startsWith(`${pkg}/`))) {
      violations.push({ line, message: `imports package "${spec}", not on the allow-list` });
    }
  }

  const checks: { pattern: RegExp; what: (match: RegExpMatchArray) => string }[] = [
    {
      // A global, not a property of something else (`x.document` is fine).
      pattern: new RegExp(`(?<![\\w$.]|\\?\\.)\\b(${FORBIDDEN_IDENTIFIERS.join('|')})\\b`, 'g'),
      what: (m) => `references the DOM global "${m[1]}"`,
    },
    {
      pattern: new RegExp(
        `(?<![\\w$.]|\\?\\.)\\b(${FORBIDDEN_NAMESPACES.join('|')})\\s*(?:\\?\\.|\\.|\\[)`,
        'g',
      ),
      what: (m) => `references the extension API "${m[1]}."`,
    },
    {
      pattern: /(?<![\w$.]|\?\.)\bfetch\s*\(/g,
      what: () => 'calls the global fetch()',
    },
    {
      // The same globals reached through the global object.
      pattern: new RegExp(
        `\\b(?:globalThis|self)\\s*(?:\\?\\.|\\.)\\s*(${[...FORBIDDEN_IDENTIFIERS, ...FORBIDDEN_NAMESPACES, 'fetch'].join('|')})\\b`,
        'g',
      ),
      what: (m) => `references "${m[1]}" through the global object`,
    },
  ];
  for (const { pattern, what } of checks) {
    for (const match of code.matchAll(pattern)) {
      if (isPropertyName(code, match.index, match[0].length)) continue;
      violations.push({ line: lineOf(code, match.index), message: what(match) });
    }
  }
  return violations.sort((a, b) => a.line - b.line);
}
