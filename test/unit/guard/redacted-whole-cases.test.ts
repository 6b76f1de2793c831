/**
 * Issue 17's own cases, by hand (DESIGN.md §3.10): the ways a model writes a
 * key that leaked a tail of it, and the disguises (invisible code points,
 * inline Markdown, character references) that hid a token from the guard.
 * Bodies are random (a fixed seed): real formats, never real keys. Each case
 * runs whole, one code unit per chunk and in 7-unit chunks, through every
 * built-in pack with the extension's default policy; no 8-unit fragment of the
 * key as a person sees it may remain, and an assignment keeps its name.
 * test/property/secret-redacted-whole.test.ts generates such cases at random.
 */
import { describe, expect, it } from 'vitest';
import { scanChunks } from '../../../src/core/guard/scan-text.ts';
import { Rng } from '../../support/pattern-strings.ts';
import { POLICY, builtinPack, seenOutput } from '../../support/redacted-whole.ts';
import { INVISIBLES, leakedFragments, seenText } from '../../support/secret-contexts.ts';

const rng = new Rng(17);
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const URLSAFE = `${ALNUM}_-`;

function random(alphabet: string, length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += alphabet.charAt(rng.int(0, alphabet.length - 1));
  return s;
}

const base64url = (s: string) => Buffer.from(s, 'utf8').toString('base64url');

const openaiKey = `sk-proj-${random(URLSAFE, 74)}T3BlbkFJ${random(URLSAFE, 74)}`;
const jwt = [
  base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' })),
  base64url(JSON.stringify({ sub: random(ALNUM, 12), iat: 1_700_000_000 + rng.int(0, 9_999_999) })),
  random(URLSAFE, 43),
].join('.');
const anthropicKey = `sk-ant-api03-${random(URLSAFE, 93)}AA`;
const githubToken = `ghp_${random(ALNUM, 36)}`;

interface Case {
  name: string;
  /** The text: `before`, the key as written, `after`. */
  before: string;
  written: string;
  after: string;
  /** The key as a person sees it. */
  secret: string;
  /** The whole output expected: the name kept, the value replaced. */
  output: string;
}

const assignments: Case[] = [
  {
    name: '.env line, OpenAI project key (74 + 74 random)',
    before: 'OPENAI_API_KEY=',
    written: openaiKey,
    after: '\n',
    secret: openaiKey,
    output: 'OPENAI_API_KEY=[redacted:openai-api-key]\n',
  },
  {
    name: 'export of a JWT',
    before: 'export TOKEN="',
    written: jwt,
    after: '"\n',
    secret: jwt,
    output: 'export TOKEN="[redacted:jwt]"\n',
  },
  {
    name: 'JSON api_key',
    before: '{"api_key": "',
    written: openaiKey,
    after: '"}',
    secret: openaiKey,
    output: '{"api_key": "[redacted:openai-api-key]"}',
  },
  {
    name: 'YAML-style API_KEY: with an Anthropic key',
    before: 'API_KEY: ',
    written: anthropicKey,
    after: '\n',
    secret: anthropicKey,
    output: 'API_KEY: [redacted:anthropic-api-key]\n',
  },
];

const t = githubToken;
const BEFORE = 'Here you go: ';
const AFTER = ' (it expires in 30 days).';
const inProse = (written: string) => ({ before: BEFORE, written, after: AFTER });
const proseOutput = `${BEFORE}[redacted:github-pat]${AFTER}`;

const disguised: Case[] = [
  ...INVISIBLES.map(({ name, char }) => ({
    name: `GitHub token with ${name} between its parts`,
    ...inProse(`${t.slice(0, 4)}${char}${t.slice(4, 20)}${char}${t.slice(20)}`),
    secret: t,
    output: proseOutput,
  })),
  {
    name: 'GitHub token with **bold** inside',
    ...inProse(`${t.slice(0, 7)}**${t.slice(7, 10)}**${t.slice(10)}`),
    secret: t,
    output: proseOutput,
  },
  {
    name: 'GitHub token with *emphasis* inside',
    ...inProse(`${t.slice(0, 12)}*${t.slice(12, 30)}*${t.slice(30)}`),
    secret: t,
    output: proseOutput,
  },
  {
    name: 'GitHub token with a `code span` inside',
    ...inProse(`${t.slice(0, 7)}\`${t.slice(7, 10)}\`${t.slice(10)}`),
    secret: t,
    output: proseOutput,
  },
  {
    name: 'GitHub token with an HTML comment inside',
    ...inProse(`${t.slice(0, 9)}<!-- x -->${t.slice(9)}`),
    secret: t,
    output: proseOutput,
  },
  {
    name: 'GitHub token starting with a hexadecimal character reference',
    ...inProse(`&#x67;${t.slice(1)}`),
    secret: t,
    output: proseOutput,
  },
  {
    name: 'GitHub token with decimal character references inside',
    ...inProse(
      `${t.slice(0, 10)}&#${t.charCodeAt(10)};${t.slice(11, 25)}&#${t.charCodeAt(25)};${t.slice(26)}`,
    ),
    secret: t,
    output: proseOutput,
  },
];

function chunkings(text: string): [string, string[]][] {
  const sevens: string[] = [];
  for (let i = 0; i < text.length; i += 7) sevens.push(text.slice(i, i + 7));
  return [
    ['whole', [text]],
    ['one unit per chunk', text.split('')],
    ['7-unit chunks', sevens],
  ];
}

function expectRedactedWhole(c: Case): void {
  const text = c.before + c.written + c.after;
  expect(seenText(c.written)).toBe(c.secret);
  for (const [how, chunks] of chunkings(text)) {
    const { output, blocked } = scanChunks(builtinPack(), chunks, { policy: POLICY });
    const leaks = leakedFragments(seenText(c.secret), seenOutput(output), [
      seenText(c.before),
      seenText(c.after),
    ]);
    const leaked =
      leaks.length === 0
        ? 'nothing'
        : `${leaks.length} fragments of the key, first ${JSON.stringify(leaks[0]?.fragment)}`;
    expect({ how, blocked, leaked, output }).toEqual({
      how,
      blocked: false,
      leaked: 'nothing',
      output: c.output,
    });
  }
}

describe('a secret is redacted whole: issue 17 cases', () => {
  it.each(assignments.map((c) => [c.name, c] as const))('%s', (_name, c) => expectRedactedWhole(c));

  it.each(disguised.map((c) => [c.name, c] as const))('%s', (_name, c) => expectRedactedWhole(c));
});
