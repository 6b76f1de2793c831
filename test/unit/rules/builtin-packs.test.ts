/**
 * The built-in set: one file per pack, merged into the one CompiledPack a
 * stream runs (merge-packs.ts), with packs and rules switched off by options.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanChunks, scanText } from '../../../src/core/guard/scan-text.ts';
import {
  BUILTIN_PACK_NAMES,
  builtinPackJson,
  builtinPackSources,
  compileGuardPack,
  getCorePack,
} from '../../../src/core/rules/builtin-packs.ts';
import { PackError } from '../../../src/core/rules/compile-pack.ts';
import { mergePacks } from '../../../src/core/rules/merge-packs.ts';
import type { RulePack, RuleSpec } from '../../../src/core/rules/rule.ts';
import { shippedPacks } from '../../support/shipped-packs.ts';
import {
  PROPERTY_RUNS,
  cut,
  cutsArbitrary,
  textArbitrary,
} from '../../support/text-arbitraries.ts';

const GITHUB_PAT = `ghp_${'aB3xK9mQ2wE7rT5yU1iO4pL8sD6fG0hJ2kZc'}`;

function rule(id: string, pattern: string): RuleSpec {
  return {
    id,
    kind: 'custom',
    description: `custom ${id}`,
    pattern,
    action: 'redact',
    examples: { match: [pattern], noMatch: ['nothing'] },
  };
}

function custom(name: string, rules: RuleSpec[]): RulePack {
  return { name, version: '2.0.0', rules };
}

describe('built-in packs', () => {
  it('load every pack file shipped in src/core/rules/packs', () => {
    expect([...BUILTIN_PACK_NAMES].sort()).toEqual(
      shippedPacks()
        .map(([, p]) => p.name)
        .sort(),
    );
    expect(BUILTIN_PACK_NAMES).toEqual(['secrets', 'pii', 'exfil', 'invisible', 'injection']);
  });

  it('getCorePack runs every built-in rule under one merged label', () => {
    const pack = getCorePack();
    expect(pack.name).toBe('builtin');
    expect(pack.version).toBe(builtinPackSources.map((p) => `${p.name}@${p.version}`).join('+'));
    expect(pack.rules.map((r) => r.id)).toEqual(
      builtinPackSources.flatMap((p) => p.rules.map((r) => r.id)),
    );
    expect(builtinPackJson().rules).toHaveLength(pack.rules.length);
    const { events } = scanText(pack, `key ${GITHUB_PAT}`);
    expect(events[0]).toMatchObject({ rule: 'github-pat', pack: `builtin@${pack.version}` });
  });

  it('switches packs and single rules off', () => {
    const piiOnly = compileGuardPack({ packs: ['pii'] });
    expect(new Set(piiOnly.rules.map((r) => r.kind))).toEqual(new Set(['pii']));
    expect(piiOnly.version).toMatch(/^pii@/);
    const noPat = compileGuardPack({ disabledRules: ['github-pat'] });
    expect(noPat.rules.map((r) => r.id)).not.toContain('github-pat');
    expect(scanText(noPat, `key ${GITHUB_PAT}`).output).toBe(`key ${GITHUB_PAT}`);
    expect(compileGuardPack({ packs: [] }).rules).toEqual([]);
  });

  it('adds custom packs and rejects rule ids that clash with a built-in one', () => {
    const withCustom = compileGuardPack({
      packs: ['pii'],
      customPacks: [custom('mine', [rule('project-code', 'PRJ-[0-9]{4}')])],
    });
    expect(withCustom.version).toMatch(/\+mine@2\.0\.0$/);
    expect(scanText(withCustom, 'see PRJ-1234').output).toBe('see [redacted:project-code]');
    expect(() =>
      compileGuardPack({ customPacks: [custom('mine', [rule('github-pat', 'x')])] }),
    ).toThrow(PackError);
    try {
      compileGuardPack({ customPacks: [custom('mine', [rule('github-pat', 'x')])] });
    } catch (error) {
      expect((error as PackError).problems).toEqual([
        {
          rule: 'github-pat',
          field: 'id',
          message: 'rule id is used by pack "secrets" and pack "mine"',
        },
      ]);
    }
  });

  it('passes the image/link host allow-list to the exfil validators', () => {
    const link = '[x](https://files.example.org/q=the+whole+conversation)';
    expect(scanText(compileGuardPack({ packs: ['exfil'] }), link).output).toBe(
      '[link blocked: files.example.org]',
    );
    const allowed = compileGuardPack({ packs: ['exfil'], allowedImageHosts: ['example.org'] });
    expect(scanText(allowed, link).output).toBe(link);
  });

  it('gives the same output and events for any chunking of text built from every example', () => {
    const pack = getCorePack();
    const everything: RulePack = { name: 'all', version: '0', rules: builtinPackJson().rules };
    fc.assert(
      fc.property(textArbitrary(everything), cutsArbitrary, (text, cuts) => {
        const whole = scanText(pack, text);
        const chunked = scanChunks(pack, cut(text, cuts));
        expect(chunked.output).toBe(whole.output);
        expect(chunked.events).toEqual(whole.events);
      }),
      { numRuns: Math.min(PROPERTY_RUNS, 500) },
    );
  });
});

describe('mergePacks', () => {
  const a = custom('a', [rule('one', 'one'), rule('two', 'two')]);
  const b = custom('b', [rule('three', 'three')]);

  it('concatenates members in order and names their versions', () => {
    const merged = mergePacks([a, b]);
    expect(merged).toEqual({
      ok: true,
      pack: { name: 'builtin', version: 'a@2.0.0+b@2.0.0', rules: [...a.rules, ...b.rules] },
    });
  });

  it('drops disabled packs and rules, and leaves its inputs alone', () => {
    const before = structuredClone(a);
    const merged = mergePacks([a, b], { name: 'x', disabledPacks: ['b'], disabledRules: ['one'] });
    expect(merged).toEqual({
      ok: true,
      pack: { name: 'x', version: 'a@2.0.0', rules: [a.rules[1]] },
    });
    expect(a).toEqual(before);
  });

  it('reports clashing ids and duplicate pack names, even in a disabled pack', () => {
    const clash = custom('c', [rule('two', 'dos')]);
    expect(mergePacks([a, clash], { disabledRules: ['two'] })).toEqual({
      ok: false,
      problems: [{ rule: 'two', field: 'id', message: 'rule id is used by pack "a" and pack "c"' }],
    });
    expect(mergePacks([a, a], { disabledPacks: ['a'] })).toMatchObject({
      ok: false,
      problems: [{ field: 'packs[1].name', message: 'duplicate pack name "a"' }],
    });
  });

  it('reports an invalid member with its position', () => {
    const result = mergePacks([a, { name: 'bad', version: '1', rules: 'none' }]);
    expect(result).toMatchObject({
      ok: false,
      problems: [{ field: 'packs[1].rules' }],
    });
  });
});
