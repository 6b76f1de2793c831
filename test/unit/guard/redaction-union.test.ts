/**
 * DESIGN.md §3.10, issue 17 §1–2: text-changing matches are judged together.
 * Overlapping matches are redacted as one and named by the most specific rule;
 * a rule's `value` keeps the name; a `continuation` never cuts a value in two;
 * the text is read as a person sees it. Small packs of our own, so each
 * mechanism is pinned apart from the shipped rules.
 */
import { describe, expect, it } from 'vitest';
import type { MatchEvent } from '../../../src/core/guard/guard-event.ts';
import { scanChunks, scanText } from '../../../src/core/guard/scan-text.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import type { RuleSpec } from '../../../src/core/rules/rule.ts';

function pack(rules: Partial<RuleSpec>[]) {
  return compilePack({
    name: 'union',
    version: '1',
    rules: rules.map((r) => ({
      kind: 'secret',
      description: 'test',
      action: 'redact',
      examples: { match: ['(see the pattern)'], noMatch: ['plain words'] },
      ...r,
    })),
  } as never);
}

const assignment: Partial<RuleSpec> = {
  id: 'assignment',
  pattern: '(?:key|token)[ \\t]{0,3}[:=][ \\t]{0,3}["\']?[A-Za-z0-9_-]{8,20}',
  keywords: ['key', 'token'],
  flags: 'i',
  generic: true,
  value: '[:=][ \\t]*["\']?([A-Za-z0-9_-]+)$',
  continuation: '[A-Za-z0-9_-]',
};
const provider: Partial<RuleSpec> = {
  id: 'provider',
  pattern: 'pk_[A-Za-z0-9]{30}',
  keywords: ['pk_'],
};

const body = 'Q7xK2mPz9LwR4tYv8NcB3hJd6FsA1gEu';
const key = `pk_${body.slice(0, 30)}`;

function matches(events: readonly unknown[]): MatchEvent[] {
  return events.filter((e): e is MatchEvent => (e as MatchEvent).type === 'match');
}

function everySplit(p: ReturnType<typeof pack>, text: string) {
  const whole = scanText(p, text);
  for (const size of [1, 2, 3, 7]) {
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
    const split = scanChunks(p, chunks);
    expect(split.output).toBe(whole.output);
    expect(split.events).toEqual(whole.events);
  }
  return whole;
}

describe('overlapping matches are redacted as one', () => {
  const both = pack([assignment, provider]);

  it('keeps the name, redacts the whole key and names the specific rule', () => {
    const r = everySplit(both, `API_KEY=${key} done`);
    expect(r.output).toBe('API_KEY=[redacted:provider] done');
    const [event] = matches(r.events);
    expect(event?.rule).toBe('provider');
    expect(event?.also).toEqual(['assignment']);
  });

  it('a generic value capped before the key ends no longer leaves its tail', () => {
    // The assignment's value stops at 20 units; the key runs on for 13 more.
    const r = everySplit(both, `token: "${key}"`);
    expect(r.output).toBe('token: "[redacted:provider]"');
    expect(r.output).not.toContain(body.slice(20, 28));
  });

  it('the assignment alone names itself', () => {
    const r = everySplit(both, 'token = abcdefgh1234 ok');
    expect(r.output).toBe('token = [redacted:assignment] ok');
    expect(matches(r.events)[0]?.also).toBeUndefined();
  });

  it('an invisible-character rule inside a generic value never names the redaction', () => {
    const p = pack([
      assignment,
      {
        id: 'zero-width',
        kind: 'invisible',
        pattern: '\\u200B{1,8}',
        replacement: '',
      },
    ]);
    const r = everySplit(
      p,
      'token=abcd\u200B\u200B\u200B\u200B\u200B\u200B\u200B\u200Befgh1234 ok',
    );
    expect(r.output).toBe('token=[redacted:assignment] ok');
    expect(matches(r.events)[0]?.also).toEqual(['zero-width']);
  });

  it('matches that only touch stay two replacements side by side', () => {
    const two = pack([
      { id: 'left', pattern: 'AB[0-9]{4}', keywords: ['AB'] },
      { id: 'right', pattern: 'CD[0-9]{4}', keywords: ['CD'] },
    ]);
    const r = everySplit(two, 'x AB1234CD5678 y');
    expect(r.output).toBe('x [redacted:left][redacted:right] y');
  });

  it('a block anywhere in the union blocks from its start', () => {
    const blocking = pack([
      { id: 'wide', pattern: 'AB[0-9]{4}[0-9A-Z]{2}', keywords: ['AB'] },
      { id: 'stop', pattern: '34STOP', keywords: ['34STOP'], action: 'block', kind: 'custom' },
    ]);
    const r = everySplit(blocking, 'keep AB123456 then STOP');
    expect(r.output).toBe('keep [redacted:wide] then STOP');
    const s = everySplit(blocking, 'keep AB1234STOP rest');
    expect(s.blocked).toBe(true);
    expect(s.output).toBe('keep ');
    expect(matches(s.events)[0]?.action).toBe('block');
  });
});

describe('continuation', () => {
  const solo = pack([assignment]);

  it('a value longer than the bound is redacted to the end of its run', () => {
    const long = `${body}${body}${body}`;
    const r = everySplit(solo, `key=${long} next`);
    expect(r.output).toBe('key=[redacted:assignment] next');
    const [event] = matches(r.events);
    expect(event?.start).toBe(4);
    expect(event?.end).toBe(4 + long.length);
  });

  it('the swallowed run is never held: each unit is decided as it arrives', () => {
    const p = solo;
    const chunks = ['key=', body.slice(0, 20), body.slice(20), body, body, ' tail'];
    const r = scanChunks(p, chunks);
    expect(r.output).toBe('key=[redacted:assignment] tail');
    // The value reaches its bound with the second chunk: the replacement goes out then,
    // and nothing of the rest of the run is ever released or held.
    expect(r.emits.slice(0, 2).join('')).toBe('key=[redacted:assignment]');
    expect(r.emits.slice(2, 5).join('')).toBe('');
  });
});

describe('what a person sees', () => {
  const p = pack([provider]);
  const invisible = [
    '\u200b',
    '\u200d',
    '\u2060',
    '\u2063',
    '\u00ad',
    '\u034f',
    '\ufe0f',
    '\u2066',
    '\u180b',
    '\u3164',
    '\u{e0041}',
  ];

  it.each(invisible.map((c) => [c.codePointAt(0)?.toString(16), c]))(
    'U+%s inside the key does not hide it',
    (_name, c) => {
      const text = `see ${key.slice(0, 9)}${c}${key.slice(9)} end`;
      const r = everySplit(p, text);
      expect(r.output).toBe('see [redacted:provider] end');
    },
  );

  it.each([
    ['bold', `${key.slice(0, 6)}**${key.slice(6, 12)}**${key.slice(12)}`],
    ['italic', `${key.slice(0, 6)}*${key.slice(6, 12)}*${key.slice(12)}`],
    ['code span', `${key.slice(0, 6)}\`${key.slice(6, 12)}\`${key.slice(12)}`],
    ['comment', `${key.slice(0, 6)}<!-- x -->${key.slice(6)}`],
    ['comment in the keyword', `${key.slice(0, 2)}<!---->${key.slice(2)}`],
    ['hex reference', `&#x70;${key.slice(1)}`],
    ['decimal reference', `${key.slice(0, 3)}&#${key.charCodeAt(3)};${key.slice(4)}`],
    ['named reference', `pk&lowbar;${key.slice(3)}`],
  ])('%s does not hide the key', (_name, disguised) => {
    const r = everySplit(p, `see ${disguised} end`);
    expect(r.output).toBe('see [redacted:provider] end');
  });

  it('a key inside a comment is still redacted', () => {
    const r = everySplit(p, `a <!-- ${key} --> b`);
    expect(r.output).toBe('a <!-- [redacted:provider] --> b');
  });

  it('text that is not a reference is left as it is', () => {
    const text = 'a & b &amp c &#xZZ; d &unknown; <b> <!- 5 < 6';
    const r = everySplit(p, text);
    expect(r.output).toBe(text);
  });

  it('event offsets point into the input, references and hidden units included', () => {
    const text = `x &#x70;${key.slice(1, 9)}\u200b${key.slice(9)} y`;
    const [event] = matches(everySplit(p, text).events);
    expect(event?.start).toBe(2);
    expect(event?.end).toBe(text.length - 2);
  });
});
