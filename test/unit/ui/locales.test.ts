/**
 * The UI catalogues (_locales/en, _locales/zh_CN): the same keys and placeholders in
 * both languages, valid message names, every key the UI code names present, and rule
 * names only for rules that exist.
 */
import { REWRITE_REFUSED_RULE } from '../../../src/core/outgoing/rewrite-refusal.ts';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECTION_RULES } from '../../../src/content/projection-events.ts';
import { describe, expect, it } from 'vitest';
import { builtinPackSources } from '../../../src/core/rules/builtin-packs.ts';
import { UNDECODABLE_RULE } from '../../../src/core/wire/wire-event.ts';
import { recognisers } from '../../../src/core/wire/wire-recognisers.ts';
import { FORMAT_NAME_KEYS, ruleNameKey } from '../../../src/ui/rule-names.ts';
import { ROOT } from '../../e2e/launch.ts';

type Catalogue = Record<
  string,
  { message: string; description?: string; placeholders?: Record<string, { content: string }> }
>;

function catalogue(lang: string): Catalogue {
  return JSON.parse(
    readFileSync(join(ROOT, '_locales', lang, 'messages.json'), 'utf8'),
  ) as Catalogue;
}

const en = catalogue('en');
const zh = catalogue('zh_CN');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(name) ? [path] : [];
  });
}

/** Placeholder names used in a message, sorted. */
function placeholdersIn(message: string): string[] {
  return [...message.matchAll(/\$([A-Za-z0-9_@]+)\$/g)].map((m) => m[1]!.toLowerCase()).sort();
}

describe('UI catalogues', () => {
  it('have the same keys in English and Simplified Chinese', () => {
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
  });

  it('use valid message names and declare every placeholder they use, in both languages', () => {
    for (const [key, entry] of Object.entries(en)) {
      expect(key).toMatch(/^[A-Za-z0-9_@]+$/);
      const zhEntry = zh[key]!;
      expect(zhEntry.message.trim(), key).not.toBe('');
      expect(placeholdersIn(zhEntry.message), key).toEqual(placeholdersIn(entry.message));
      for (const name of placeholdersIn(entry.message)) {
        expect(entry.placeholders?.[name], `${key} ${name}`).toBeDefined();
        expect(zhEntry.placeholders?.[name], `${key} ${name}`).toEqual(entry.placeholders?.[name]);
      }
    }
  });

  it('hold every key the popup and options code name literally', () => {
    const used = new Set<string>();
    for (const file of sourceFiles(join(ROOT, 'src', 'ui'))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\bt\(\s*'([a-z][a-z0-9_]*)'/g)) used.add(m[1]!);
      for (const m of text.matchAll(/'((?:popup|options|background)_[a-z0-9_]+)'/g))
        used.add(m[1]!);
    }
    expect(used.size).toBeGreaterThan(50);
    expect([...used].filter((key) => !(key in en))).toEqual([]);
  });

  it('name only rules that exist (the rest fall back to a readable id)', () => {
    const ids = new Set(
      [
        ...builtinPackSources.flatMap((pack) => pack.rules.map((rule) => rule.id)),
        // History projection reports under these (src/content/projection-events.ts).
        ...Object.values(PROJECTION_RULES),
        // The error of an answer that could not be decoded (issue 18 §1).
        UNDECODABLE_RULE,
        // A site refused a request the guard rewrote (issue 20 §1).
        REWRITE_REFUSED_RULE,
      ].map(ruleNameKey),
    );
    const stale = Object.keys(en).filter((key) => key.startsWith('rule_') && !ids.has(key));
    expect(stale).toEqual([]);
  });

  it('name every wire format a guard reports, in both languages (issue 18 answer counts)', () => {
    const formats = new Set([
      ...Object.values(recognisers).map((recogniser) => recogniser.format),
      'plain-text',
    ]);
    expect([...formats].filter((format) => !(format in FORMAT_NAME_KEYS))).toEqual([]);
    for (const key of Object.values(FORMAT_NAME_KEYS)) {
      expect(en[key]?.message, key).toBeTruthy();
      expect(zh[key]?.message, key).toBeTruthy();
    }
    const named = new Set(Object.values(FORMAT_NAME_KEYS));
    expect(Object.keys(en).filter((key) => key.startsWith('format_') && !named.has(key))).toEqual(
      [],
    );
  });

  it('localise the manifest name and description', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'manifest.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest.default_locale).toBe('en');
    for (const field of ['name', 'description']) {
      const key = /^__MSG_(\w+)__$/.exec(String(manifest[field]))?.[1];
      expect(key, field).toBeDefined();
      expect(en[key!]).toBeDefined();
      expect(zh[key!]).toBeDefined();
    }
  });
});
