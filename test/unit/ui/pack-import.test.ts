import { describe, expect, it } from 'vitest';
import { invalidPackMessage } from '../../../src/cli/pack-file.ts';
import { builtinPackSources } from '../../../src/core/rules/builtin-packs.ts';
import { importPack } from '../../../src/ui/options/pack-import.ts';
import { summarisePack } from '../../../src/ui/options/pack-summary.ts';

const builtinNames = builtinPackSources.map((pack) => pack.name);

const goodPack = {
  name: 'team-words',
  version: '2.0.0',
  rules: [
    {
      id: 'project-codename',
      kind: 'custom',
      description: 'Internal project codename',
      pattern: 'BLUEFALCON-[0-9]{3}',
      keywords: ['BLUEFALCON-'],
      action: 'redact',
      examples: { match: ['see BLUEFALCON-123 now'], noMatch: ['BLUEFALCON'] },
    },
  ],
};

describe('pack import', () => {
  it('accepts a pack that csg rules check accepts', () => {
    const result = importPack(JSON.stringify(goodPack), builtinNames);
    expect(result).toEqual({ ok: true, pack: goodPack, ruleCount: 1 });
  });

  it('reports problems with the one-line messages of csg rules check', () => {
    const bad = structuredClone(goodPack);
    bad.rules[0]!.id = 'Bad Id';
    bad.rules[0]!.examples.match = ['no codename here'];
    const result = importPack(JSON.stringify(bad), builtinNames);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems[0]).toMatch(/^rule "Bad Id": field "id": /);
    // The CLI's stderr line is built from the same first problem.
    const cliLine = invalidPackMessage('pack.json', [
      {
        rule: 'Bad Id',
        field: 'id',
        message: result.problems[0]!.replace(/^rule "Bad Id": field "id": /, ''),
      },
    ]);
    expect(cliLine).toBe(`invalid pack pack.json: ${result.problems[0]}`);
  });

  it('reports an example that does not match, as the check does', () => {
    const bad = structuredClone(goodPack);
    bad.rules[0]!.examples.match = ['no codename here'];
    const result = importPack(JSON.stringify(bad), builtinNames);
    expect(result).toEqual({
      ok: false,
      problems: [
        'rule "project-codename": field "examples.match[0]": no match in "no codename here"',
      ],
    });
  });

  it('refuses text that is not JSON and a pack named like a built-in one', () => {
    const notJson = importPack('{"name":', builtinNames);
    expect(notJson.ok).toBe(false);
    if (!notJson.ok) expect(notJson.problems[0]).toMatch(/^not JSON: /);
    const shadow = importPack(JSON.stringify({ ...goodPack, name: builtinNames[0] }), builtinNames);
    expect(shadow.ok).toBe(false);
  });

  it('summarises packs for the list, skipping what is not pack-shaped', () => {
    expect(summarisePack(goodPack)).toEqual({
      name: 'team-words',
      version: '2.0.0',
      rules: [{ id: 'project-codename', kind: 'custom', description: 'Internal project codename' }],
    });
    expect(
      summarisePack({ name: 'x', version: '1', rules: [{ id: 'a', kind: 'weird' }] }),
    ).toBeUndefined();
    expect(summarisePack(null)).toBeUndefined();
    for (const pack of builtinPackSources)
      expect(summarisePack(pack)?.rules.length).toBe(pack.rules.length);
  });
});
