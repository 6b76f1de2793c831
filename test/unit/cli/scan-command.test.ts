import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { scanChunks, scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';

const corePack = getCorePack();
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { runCsg } from './run-csg.ts';
import { awsKeyId, blockingPack, githubPat } from './synthetic-secrets.ts';
import { TempFiles } from './temp-files.ts';

const temp = new TempFiles();
afterAll(() => temp.remove());

const T = 30_000;

const mixedText = (): string =>
  `Héllo wörld — 你好，世界 🙂\nexport GITHUB_PAT=${githubPat()}\n` +
  `aws: ${awsKeyId()} end 😀 ε\n` +
  '```ts\nconst total = items.reduce((a, b) => a + b, 0);\n```\n';

/** A one-line usage message: `csg: …`, no stack trace, nothing on stdout. */
function expectUsageError(run: { code: number | null; out: string; stderr: string }): void {
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/^csg: [^\n]+\n$/);
  expect(run.stderr).not.toMatch(/\n\s+at /);
}

describe('csg scan', () => {
  it(
    'writes exactly the guarded text, byte for byte (stdin)',
    async () => {
      const text = mixedText();
      const run = await runCsg(['scan'], { stdin: text });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const expected = scanText(corePack, text).output;
      expect(expected).toContain('[redacted:github-pat]');
      expect(expected).toContain('[redacted:aws-access-key-id]');
      expect(run.stdout.equals(Buffer.from(expected, 'utf8'))).toBe(true);
    },
    T,
  );

  it(
    'reads FILE and "-" like stdin',
    async () => {
      const text = mixedText();
      const file = temp.write('input.txt', text);
      const expected = Buffer.from(scanText(corePack, text).output, 'utf8');
      const fromFile = await runCsg(['scan', file]);
      expect(fromFile.code).toBe(0);
      expect(fromFile.stdout.equals(expected)).toBe(true);
      const fromDash = await runCsg(['scan', '-'], { stdin: text });
      expect(fromDash.stdout.equals(expected)).toBe(true);
    },
    T,
  );

  it(
    'decodes a multi-byte character split across two reads',
    async () => {
      const first = 'héllo world ';
      const rest = ` 你好 ${githubPat()} end`;
      const text = first + '€' + rest;
      const euro = Buffer.from('€', 'utf8');
      expect(euro.length).toBe(3);
      const run = await runCsg(['scan'], {
        pieces: [
          { data: Buffer.concat([Buffer.from(first, 'utf8'), euro.subarray(0, 1)]) },
          // Released at once (no rule can start in it): proves the first piece was its own read.
          { data: Buffer.concat([euro.subarray(1), Buffer.from(rest, 'utf8')]), waitFor: first },
        ],
      });
      expect(run.code).toBe(0);
      expect(run.out).not.toContain('\ufffd');
      expect(run.stdout.equals(Buffer.from(scanText(corePack, text).output, 'utf8'))).toBe(true);
    },
    T,
  );

  it(
    '--chunks pushes one JSON string per line, lone surrogates included',
    async () => {
      const pat = githubPat();
      const chunks = ['x \ud83d', '\ude00 y gh', pat.slice(2, 20), pat.slice(20) + ' z'];
      const lines = chunks.map((c) => JSON.stringify(c)).join('\n') + '\n';
      expect(lines).toContain('"x \\ud83d"');
      const expected = scanChunks(corePack, chunks).output;
      expect(expected).toBe(`x 😀 y [redacted:github-pat] z`);
      const run = await runCsg(['scan', '--chunks'], { stdin: lines });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout.equals(Buffer.from(expected, 'utf8'))).toBe(true);

      const traced = await runCsg(['scan', '--chunks', '--trace'], { stdin: lines });
      const records = traced.out
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { emit: string });
      expect(records).toHaveLength(chunks.length + 1);
      // A surrogate pair split across chunks is never released in halves.
      for (const r of records) expect(r.emit).not.toMatch(/[\ud800-\udbff]$/);
      expect(records.map((r) => r.emit).join('')).toBe(expected);
    },
    T,
  );

  it(
    '--trace prints a line per chunk and an end line; the emits add up to the plain output',
    async () => {
      const text = mixedText();
      const chunks = text.match(/[\s\S]{1,5}/g) ?? [];
      const lines = chunks.map((c) => JSON.stringify(c)).join('\n');
      const run = await runCsg(['scan', '--chunks', '--trace'], { stdin: lines });
      expect(run.code).toBe(0);
      const records = run.out
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(records).toHaveLength(chunks.length + 1);
      records.slice(0, -1).forEach((r, i) => {
        expect(Object.keys(r)).toEqual(['chunk', 'emit']);
        expect(r.chunk).toBe(i);
        expect(typeof r.emit).toBe('string');
      });
      expect(records.at(-1)).toEqual({ end: true, emit: expect.any(String) });
      const expected = scanChunks(corePack, chunks);
      expect(records.map((r) => r.emit)).toEqual(expected.emits);
      const plain = await runCsg(['scan'], { stdin: text });
      expect(records.map((r) => r.emit).join('')).toBe(plain.out);

      // Without --chunks every read is a chunk: a file gives one or more chunk lines.
      const fileRun = await runCsg(['scan', '--trace', temp.write('trace.txt', text)]);
      const fileRecords = fileRun.out
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { emit: string; end?: true });
      expect(fileRecords.at(-1)?.end).toBe(true);
      expect(fileRecords.map((r) => r.emit).join('')).toBe(plain.out);
    },
    T,
  );

  it(
    '--events writes JSON Lines with offsets in code points of the input',
    async () => {
      const pat = githubPat();
      const text = `😀😀 ${pat} and ${awsKeyId()}\n`;
      const out = temp.path('events.jsonl');
      const run = await runCsg(['scan', '--events', out], { stdin: text });
      expect(run.code).toBe(0);
      const events = readFileSync(out, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(events[0]).toEqual({
        rule: 'github-pat',
        action: 'redact',
        start: 3,
        end: 3 + pat.length,
        kind: 'secret',
        type: 'match',
        pack: `${corePack.name}@${corePack.version}`,
      });
      expect(Object.keys(events[0] ?? {}).slice(0, 4)).toEqual(['rule', 'action', 'start', 'end']);
      const codePoints = [...text];
      const e1 = events[1] as { start: number; end: number; rule: string };
      expect(e1.rule).toBe('aws-access-key-id');
      expect(codePoints.slice(e1.start, e1.end).join('')).toBe(awsKeyId());
      expect(events).toEqual(scanText(corePack, text).events);
    },
    T,
  );

  it(
    'exits 3 when the stream is blocked, releasing only the text before the block',
    async () => {
      const pack = temp.writeJson('blocking-pack.json', blockingPack);
      const events = temp.path('block-events.jsonl');
      const text = 'fine zebra-123 text STOP42 and the rest';
      const run = await runCsg(['scan', '--rules', pack, '--events', events], { stdin: text });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(3);
      const expected = scanText(compilePack(blockingPack), text);
      expect(expected.blocked).toBe(true);
      expect(run.out).toBe(expected.output);
      expect(run.out).toBe('fine [redacted:code-word] text ');
      const records = readFileSync(events, 'utf8').trimEnd().split('\n');
      expect(JSON.parse(records.at(-1) ?? '{}')).toMatchObject({
        rule: 'stop-word',
        action: 'block',
        start: 20,
        end: 26,
        pack: 'cli-test@7',
      });

      const chunked = await runCsg(['scan', '--rules', pack, '--chunks', '--trace'], {
        stdin: ['fine ST', 'OP4', '2 more', ' text'].map((c) => JSON.stringify(c)).join('\n'),
      });
      expect(chunked.code).toBe(3);
      const lines = chunked.out.trimEnd().split('\n');
      expect(lines).toHaveLength(5);
      expect(lines.map((l) => (JSON.parse(l) as { emit: string }).emit).join('')).toBe('fine ');
    },
    T,
  );

  it(
    '--direction out uses the same pack for now; other values are bad usage',
    async () => {
      const text = mixedText();
      const run = await runCsg(['scan', '--direction', 'out'], { stdin: text });
      expect(run.code).toBe(0);
      expect(run.out).toBe(scanText(corePack, text).output);
      const bad = await runCsg(['scan', '--direction', 'sideways'], { stdin: text });
      expectUsageError(bad);
      expect(bad.stderr).toContain('--direction');
    },
    T,
  );
});

describe('csg scan: bad usage exits 2 with one line', () => {
  it(
    'names the line number of a line that is not a JSON string',
    async () => {
      const invalid = await runCsg(['scan', '--chunks'], { stdin: '"ok"\n"fine"\n{"x": \n' });
      expectUsageError(invalid);
      expect(invalid.stderr).toMatch(/^csg: line 3: /);
      const number = await runCsg(['scan', '--chunks'], { stdin: '"ok"\n42\n' });
      expectUsageError(number);
      expect(number.stderr).toMatch(/^csg: line 2: not a JSON string/);
      const blank = await runCsg(['scan', '--chunks'], { stdin: '"ok"\n\n"later"\n' });
      expectUsageError(blank);
      expect(blank.stderr).toMatch(/^csg: line 2: /);
      // Empty trailing lines are fine.
      const trailing = await runCsg(['scan', '--chunks'], { stdin: '"ok "\n\n' });
      expect(trailing.code).toBe(0);
      expect(trailing.out).toBe('ok ');
    },
    T,
  );

  it(
    'never quotes the bad line (it may hold a secret)',
    async () => {
      const pat = githubPat();
      const run = await runCsg(['scan', '--chunks'], { stdin: `"a"\n${pat}\n` });
      expectUsageError(run);
      expect(run.stderr).not.toContain(pat.slice(4));
    },
    T,
  );

  it(
    'names the rule id and field of an invalid pack',
    async () => {
      const broken = structuredClone(blockingPack) as unknown as {
        rules: Record<string, unknown>[];
      };
      (broken.rules[0] as Record<string, unknown>).action = 'explode';
      (broken.rules[1] as Record<string, unknown>).kind = 'weather';
      const pack = temp.writeJson('invalid-pack.json', broken);
      const run = await runCsg(['scan', '--rules', pack], { stdin: 'text' });
      expectUsageError(run);
      expect(run.stderr).toContain(`invalid pack ${pack}: `);
      expect(run.stderr).toContain('"stop-word"');
      expect(run.stderr).toContain('"action"');
      expect(run.stderr).toMatch(/and 1 more problem/);

      const onlyPattern = structuredClone(blockingPack) as unknown as {
        rules: Record<string, unknown>[];
      };
      (onlyPattern.rules[1] as Record<string, unknown>).pattern = '(zebra)-\\1';
      const run2 = await runCsg(['scan', '--rules', temp.writeJson('p2.json', onlyPattern)], {
        stdin: 'text',
      });
      expectUsageError(run2);
      expect(run2.stderr).toContain('"code-word"');
      expect(run2.stderr).toContain('"pattern"');

      const notJson = await runCsg(['scan', '--rules', temp.write('nope.json', '{')]);
      expectUsageError(notJson);
      expect(notJson.stderr).toContain('not JSON');
    },
    T,
  );

  it(
    'rejects an unknown flag, a missing file, a missing value and extra arguments',
    async () => {
      const flag = await runCsg(['scan', '--frobnicate'], { stdin: 'x' });
      expectUsageError(flag);
      expect(flag.stderr).toContain('--frobnicate');
      const missing = await runCsg(['scan', temp.path('does-not-exist.txt')]);
      expectUsageError(missing);
      expect(missing.stderr).toContain('does-not-exist.txt: no such file');
      const dir = await runCsg(['scan', temp.dir]);
      expectUsageError(dir);
      const noValue = await runCsg(['scan', '--events']);
      expectUsageError(noValue);
      expect(noValue.stderr).toContain('--events');
      const extra = await runCsg(['scan', 'a.txt', 'b.txt']);
      expectUsageError(extra);
      const missingPack = await runCsg(['scan', '--rules', temp.path('missing-pack.json')]);
      expectUsageError(missingPack);
      expect(missingPack.stderr).toContain('missing-pack.json');
    },
    T,
  );
});

describe('csg commands', () => {
  it(
    'prints help and version; unknown and later commands exit 2 with one line',
    async () => {
      const help = await runCsg(['--help']);
      expect(help.code).toBe(0);
      expect(help.out).toContain('scan [FILE]');
      const helpScan = await runCsg(['help', 'scan']);
      expect(helpScan.out).toContain('--direction');
      const scanHelp = await runCsg(['scan', '--help']);
      expect(scanHelp.code).toBe(0);
      expect(scanHelp.out).toBe(helpScan.out);
      const version = await runCsg(['--version']);
      expect(version.code).toBe(0);
      expect(version.out).toMatch(/^csg \d+\.\d+\.\d+\n$/);
      const unknown = await runCsg(['frobnicate']);
      expectUsageError(unknown);
      expect(unknown.stderr).toContain('frobnicate');
      const none = await runCsg([]);
      expectUsageError(none);
      const replay = await runCsg(['replay', 'no-such-capture.txt']);
      expectUsageError(replay);
      expect(replay.stderr).toMatch(/^csg: cannot read no-such-capture\.txt: /);
      const envelope = await runCsg(['envelope', '--renderer', 'nope'], { stdin: '' });
      expectUsageError(envelope);
      expect(envelope.stderr).toContain('--renderer must be');
    },
    T,
  );
});
