import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runCsg } from './run-csg.ts';
import { blockingPack } from './synthetic-secrets.ts';
import { TempFiles } from './temp-files.ts';

/**
 * A GitHub classic token built from mixed pieces at run time: the shipped rule
 * rejects placeholder-like repetitions, so the shared `githubPat()` (one
 * repeated block) is not used here.
 */
const githubPat = (): string =>
  'gh' + 'p_' + ['Zq8vK2', 'mX9pL4', 'nR7tW1', 'yB5cD3', 'fG6hJ0', 'sE8aUx'].join('');

const temp = new TempFiles();
afterAll(() => temp.remove());

const T = 30_000;
const C1 = '这个视频画面好漂亮，色调很温柔呢。';
const C2 = '右下角那只猫好可爱，一直在打哈欠。';

const request = (newText: string) =>
  JSON.stringify(
    {
      model: 'm',
      stream: true,
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: `好呀～屏幕搭话：${C1}屏幕搭话：${C2}` },
        { role: 'user', content: newText },
      ],
    },
    null,
    2,
  );

function expectUsageError(run: { code: number | null; out: string; stderr: string }): void {
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/^csg: [^\n]+\n$/);
  expect(run.out).toBe('');
}

const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('csg outgoing', () => {
  it(
    'prints the redacted and projected body; events carry rules and offsets, never text',
    async () => {
      const pat = githubPat();
      const events = temp.path('events.jsonl');
      const run = await runCsg(['outgoing', '--format', 'openai-chat', '--events', events], {
        stdin: request(`my token ${pat} thanks`),
      });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const out = JSON.parse(run.out) as { messages: { content: string }[] };
      expect(out.messages.map((m) => m.content)).toEqual([
        'sys',
        'first question',
        `好呀～${C1}`,
        expect.stringMatching(/^my token \[redacted:[a-z-]+\] thanks$/) as unknown as string,
      ]);
      const records = lines(events);
      expect(records).toContainEqual(
        expect.objectContaining({
          kind: 'secret',
          action: 'redact',
          start: 9,
          end: 49,
          message: 3,
          part: 'new',
        }),
      );
      expect(records).toContainEqual({
        rule: 'screen-comment-zh',
        action: 'strip-label',
        start: 3,
        end: 8,
        message: 2,
        part: null,
      });
      expect(records).toContainEqual(
        expect.objectContaining({
          rule: 'source-label-chain',
          action: 'truncate-chain',
          message: 2,
        }),
      );
      const raw = readFileSync(events, 'utf8');
      expect(raw).not.toContain(pat);
      expect(raw).not.toContain(C2);
    },
    T,
  );

  it(
    'leaves out reference-only messages given by index or by text',
    async () => {
      const marks = temp.write('marks.jsonl', '{"index": 1}\n\n{"text": "sys"}\n');
      const run = await runCsg(['outgoing', '--format', 'nextchat', '--reference-only', marks], {
        stdin: request('hello'),
      });
      expect(run.code).toBe(0);
      const out = JSON.parse(run.out) as { messages: { role: string; content: string }[] };
      // The system prompt is never a past message; message 1 (the user's) leaves.
      expect(out.messages.map((m) => m.role)).toEqual(['system', 'assistant', 'user']);
    },
    T,
  );

  it(
    'an unchanged request is printed byte for byte',
    async () => {
      const body =
        '{"model":"m", "messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"ok"},{"role":"user","content":"bye"}] ,"n": 1.50}';
      const run = await runCsg(['outgoing', '--format', 'lobechat'], { stdin: body });
      expect(run.code).toBe(0);
      expect(run.out).toBe(body);
    },
    T,
  );

  it(
    'exits 3 and prints nothing when the policy blocks the send',
    async () => {
      const pack = temp.writeJson('pack.json', blockingPack);
      const events = temp.path('blocked.jsonl');
      const run = await runCsg(
        [
          'outgoing',
          '--format',
          'anthropic',
          '--rules',
          pack,
          '--policy',
          'custom=block',
          '--events',
          events,
        ],
        { stdin: JSON.stringify({ messages: [{ role: 'user', content: 'say STOP42' }] }) },
      );
      expect(run.code).toBe(3);
      expect(run.out).toBe('');
      expect(lines(events)).toEqual([
        {
          rule: 'stop-word',
          action: 'block',
          start: 4,
          end: 10,
          kind: 'custom',
          part: 'new',
          message: 0,
        },
      ]);
    },
    T,
  );

  it(
    'uses a label pack given with --labels',
    async () => {
      const labels = temp.writeJson('labels.json', {
        name: 'mine',
        version: '1',
        minProse: 2,
        labels: [
          {
            id: 'from-tag',
            description: 'a {from …} tag',
            pattern: '\\{from [a-z]{1,20}\\} ?',
            keywords: ['{from '],
            examples: { match: ['{from tv} hi'], noMatch: ['from tv'] },
          },
        ],
      });
      const body = JSON.stringify({
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: '{from tv} Hello there. {from web} Second one here.' },
          { role: 'user', content: 'a' },
        ],
      });
      const run = await runCsg(['outgoing', '--format', 'open-webui', '--labels', labels], {
        stdin: body,
      });
      expect(run.code).toBe(0);
      expect(
        (JSON.parse(run.out) as { messages: { content: string }[] }).messages[1]?.content,
      ).toBe('Hello there.');
    },
    T,
  );

  it(
    'bad usage is one line and exit 2',
    async () => {
      const body = request('x');
      expectUsageError(await runCsg(['outgoing'], { stdin: body }));
      expectUsageError(await runCsg(['outgoing', '--format', 'gemini-web'], { stdin: body }));
      expectUsageError(
        await runCsg(['outgoing', '--format', 'openai-chat'], { stdin: '{"messages": [' }),
      );
      expectUsageError(
        await runCsg(['outgoing', '--format', 'openai-chat'], { stdin: '{"prompt": "x"}' }),
      );
      expectUsageError(
        await runCsg(['outgoing', '--format', 'openai-chat', '--policy', 'secret=maybe'], {
          stdin: body,
        }),
      );
      const badMarks = temp.write('bad.jsonl', '{"index": -1}\n');
      expectUsageError(
        await runCsg(['outgoing', '--format', 'openai-chat', '--reference-only', badMarks], {
          stdin: body,
        }),
      );
      const farMarks = temp.write('far.jsonl', '{"index": 99}\n');
      expectUsageError(
        await runCsg(['outgoing', '--format', 'openai-chat', '--reference-only', farMarks], {
          stdin: body,
        }),
      );
      const badLabels = temp.writeJson('bad-labels.json', { name: 'x', version: '1', labels: [] });
      expectUsageError(
        await runCsg(['outgoing', '--format', 'openai-chat', '--labels', badLabels], {
          stdin: body,
        }),
      );
    },
    4 * T,
  );

  it(
    'has help',
    async () => {
      const run = await runCsg(['help', 'outgoing']);
      expect(run.code).toBe(0);
      expect(run.out).toMatch(/^Usage: csg outgoing --format F/);
      expect(run.out).toContain('{"index": 3}');
    },
    T,
  );
});
