import { afterAll, describe, expect, it } from 'vitest';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';

const corePack = getCorePack();
import { runCsg } from './run-csg.ts';
import { blockingPack } from './synthetic-secrets.ts';
import { TempFiles } from './temp-files.ts';

const temp = new TempFiles();
afterAll(() => temp.remove());

const T = 60_000;

describe('csg rules list', () => {
  it(
    'prints a tab-separated table of the core pack with a header',
    async () => {
      const run = await runCsg(['rules', 'list']);
      expect(run.code).toBe(0);
      const lines = run.out.trimEnd().split('\n');
      expect(lines[0]).toBe('id\tkind\taction\tmax_length\tkeywords');
      expect(lines).toHaveLength(corePack.rules.length + 1);
      corePack.rules.forEach((rule, i) => {
        const cells = (lines[i + 1] ?? '').split('\t');
        expect(cells).toHaveLength(5);
        expect(cells.slice(0, 4)).toEqual([
          rule.id,
          rule.kind,
          rule.action,
          String(rule.maxLength),
        ]);
        expect(cells[4]).toBe(rule.keywords === null ? '-' : rule.keywords.join(','));
      });
    },
    T,
  );

  it(
    'prints a JSON array with --json, for the core pack or a given pack',
    async () => {
      const run = await runCsg(['rules', 'list', '--json']);
      expect(run.code).toBe(0);
      const rules = JSON.parse(run.out) as Record<string, unknown>[];
      expect(rules.map((r) => r.id)).toEqual(corePack.rules.map((r) => r.id));
      expect(rules[0]).toMatchObject({ kind: expect.any(String), action: expect.any(String) });
      const pack = temp.writeJson('pack.json', blockingPack);
      for (const args of [['--rules', pack], [pack]]) {
        const own = await runCsg(['rules', 'list', '--json', ...args]);
        expect(own.code).toBe(0);
        expect(JSON.parse(own.out)).toEqual([
          expect.objectContaining({
            id: 'stop-word',
            action: 'block',
            maxLength: 6,
            keywords: ['STOP'],
          }),
          expect.objectContaining({ id: 'code-word', action: 'redact', maxLength: 9 }),
        ]);
      }
    },
    T,
  );

  it(
    'reports an invalid pack in one line',
    async () => {
      const broken = structuredClone(blockingPack) as unknown as {
        rules: Record<string, unknown>[];
      };
      (broken.rules[1] as Record<string, unknown>).pattern = 'zebra-[0-9]+';
      const run = await runCsg([
        'rules',
        'list',
        '--rules',
        temp.writeJson('unbounded.json', broken),
      ]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^csg: invalid pack .*"code-word".*"maxLength"[^\n]*\n$/);
    },
    T,
  );
});

describe('csg rules check', () => {
  it(
    'accepts the built-in core pack',
    async () => {
      const run = await runCsg(['rules', 'check']);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.out).toMatch(new RegExp(`^ok: ${corePack.rules.length} rules\\n`));
    },
    T,
  );

  it(
    'says which rules are held up to their declared maxLength',
    async () => {
      const pack = structuredClone(blockingPack) as unknown as { rules: Record<string, unknown>[] };
      Object.assign(pack.rules[1] as Record<string, unknown>, {
        pattern: 'zebra-[0-9]{3}[a-z]*',
        maxLength: 40,
      });
      const run = await runCsg(['rules', 'check', temp.writeJson('held.json', pack)]);
      expect(run.code).toBe(0);
      const lines = run.out.trimEnd().split('\n');
      expect(lines[0]).toBe('ok: 2 rules');
      expect(run.out).toMatch(/held up to declared maxLength/);
      expect(run.out).toMatch(/code-word\tmaxLength 40/);
      expect(run.out).not.toMatch(/stop-word/);

      const bounded = await runCsg([
        'rules',
        'check',
        temp.writeJson('bounded.json', blockingPack),
      ]);
      expect(bounded.out).toBe(
        'ok: 2 rules\nheld up to declared maxLength: none (every pattern bounds its own length)\n',
      );
    },
    T,
  );

  it(
    'prints each problem on its own line and exits 2',
    async () => {
      const pack = structuredClone(blockingPack) as unknown as { rules: Record<string, unknown>[] };
      (pack.rules[0] as Record<string, unknown>).examples = {
        match: ['STOP4'],
        noMatch: ['STOP42'],
      };
      const run = await runCsg(['rules', 'check', temp.writeJson('examples.json', pack)]);
      expect(run.code).toBe(2);
      const lines = run.out.trimEnd().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/"stop-word".*"examples\.match\[0\]"/);
      expect(lines[1]).toMatch(/"stop-word".*"examples\.noMatch\[0\]"/);
      expect(run.stderr).toMatch(/^csg: invalid pack [^\n]*\(and 1 more problem\)\n$/);

      const structural = await runCsg(['rules', 'check', temp.writeJson('s.json', { name: 'x' })]);
      expect(structural.code).toBe(2);
      expect(structural.out.length).toBeGreaterThan(0);
      const missing = await runCsg(['rules', 'check', temp.path('missing.json')]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/^csg: cannot read pack .*missing\.json: no such file\n$/);
    },
    T,
  );

  it(
    'rejects unknown subcommands and flags',
    async () => {
      const sub = await runCsg(['rules', 'frob']);
      expect(sub.code).toBe(2);
      expect(sub.stderr).toMatch(/^csg: [^\n]*frob[^\n]*\n$/);
      const flag = await runCsg(['rules', 'check', '--json']);
      expect(flag.code).toBe(2);
      const none = await runCsg(['rules']);
      expect(none.code).toBe(2);
    },
    T,
  );
});
