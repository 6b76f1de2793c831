/**
 * The bridge re-validates everything the MAIN world sends (issue 4): valid
 * messages come back rebuilt from their known fields, anything malformed is
 * dropped, and no input makes the validator throw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PAGE_MESSAGE_LIMITS, parsePageMessage } from '../../../src/content/parse-page-message.ts';
import type { PageToBridge } from '../../../src/protocol/page-channel.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';
import { awsKeyId } from '../cli/synthetic-secrets.ts';

const secret = awsKeyId();

const stream = {
  streamId: '0123abcd',
  direction: 'in',
  format: 'openai-chat',
  conversationId: '',
  turnId: '',
} as const;

const match = {
  type: 'match',
  rule: 'aws-access-key-id',
  kind: 'secret',
  action: 'redact',
  start: 10,
  end: 10 + secret.length,
  pack: 'builtin@1',
  matched: secret,
} as const;

const valid: PageToBridge[] = [
  { v: 1, type: 'hello', hooks: ['fetch', 'xhr'] },
  {
    v: 1,
    type: 'guard-events',
    stream,
    events: [match, { type: 'error', message: 'validator threw', at: 3, pack: 'builtin@1' }],
  },
  {
    v: 1,
    type: 'guard-events',
    stream,
    events: [{ type: 'error', rule: 'luhn', message: 'x', at: 0, pack: 'p' }],
  },
  { v: 1, type: 'holding', streamId: 'abc', holding: true },
  { v: 1, type: 'stream-end', streamId: 'abc', outcome: 'blocked' },
  { v: 1, type: 'wire-issue', streamId: 'abc', kind: 'unrecognised-frame', detail: 'ping' },
  {
    v: 1,
    type: 'confirm-send',
    requestId: 'r1',
    findings: [{ rule: 'aws-access-key-id', kind: 'secret', matched: secret }],
  },
];

function guardEvents(event: Record<string, unknown>): unknown {
  return { v: 1, type: 'guard-events', stream, events: [event] };
}

describe('parsePageMessage: valid messages', () => {
  it.each(valid.map((m) => [m.type, m]))('accepts %s unchanged', (_type, message) => {
    expect(parsePageMessage(structuredClone(message))).toEqual(message);
  });

  it('counts matched text in code points, not UTF-16 units', () => {
    const astral = '\u{1F511}key';
    const message = guardEvents({ ...match, start: 0, end: 4, matched: astral });
    expect(parsePageMessage(message)).toEqual(message);
  });

  it('returns a fresh object holding only the known fields', () => {
    const input = { ...valid[3], extra: 'x', streamId: 'abc' } as Record<string, unknown>;
    const parsed = parsePageMessage(input);
    expect(parsed).toEqual(valid[3]);
    expect(parsed).not.toBe(input);
    expect(parsed).not.toHaveProperty('extra');
    const withExtraEvent = parsePageMessage(guardEvents({ ...match, note: 'ignored' }));
    expect(withExtraEvent).toEqual(guardEvents(match));
  });
});

describe('parsePageMessage: malformed input is dropped', () => {
  const cases: [string, unknown][] = [
    ['undefined', undefined],
    ['null', null],
    ['a string', 'hello'],
    ['an array', [1, 2]],
    ['no version', { type: 'hello', hooks: [] }],
    ['another version', { v: 2, type: 'hello', hooks: [] }],
    ['version as string', { v: '1', type: 'hello', hooks: [] }],
    ['unknown type', { v: 1, type: 'config', config: {} }],
    ['hooks not strings', { v: 1, type: 'hello', hooks: [1] }],
    ['holding not boolean', { v: 1, type: 'holding', streamId: 'a', holding: 'yes' }],
    ['stream id with odd characters', { v: 1, type: 'holding', streamId: 'a b', holding: true }],
    ['empty stream id', { v: 1, type: 'holding', streamId: '', holding: true }],
    ['unknown outcome', { v: 1, type: 'stream-end', streamId: 'a', outcome: 'done' }],
    ['no events', { v: 1, type: 'guard-events', stream, events: [] }],
    ['events not a list', { v: 1, type: 'guard-events', stream, events: match }],
    ['stream missing', { v: 1, type: 'guard-events', events: [match] }],
    [
      'bad direction',
      { v: 1, type: 'guard-events', stream: { ...stream, direction: 'up' }, events: [match] },
    ],
    ['unknown kind', guardEvents({ ...match, kind: 'weather' })],
    ['unknown action', guardEvents({ ...match, action: 'off' })],
    ['negative start', guardEvents({ ...match, start: -1 })],
    ['fractional end', guardEvents({ ...match, end: 10.5 })],
    ['end before start', guardEvents({ ...match, start: 30, end: 20, matched: '' })],
    ['matched longer than the span', guardEvents({ ...match, end: match.end - 1 })],
    ['matched missing', guardEvents({ ...match, matched: undefined })],
    ['event of unknown type', guardEvents({ ...match, type: 'hold' })],
    ['error without message', guardEvents({ type: 'error', at: 0, pack: 'p' })],
    [
      'error with numeric rule',
      guardEvents({ type: 'error', rule: 7, message: 'm', at: 0, pack: 'p' }),
    ],
    ['empty rule id', guardEvents({ ...match, rule: '' })],
    [
      'too many events',
      {
        v: 1,
        type: 'guard-events',
        stream,
        events: Array.from({ length: PAGE_MESSAGE_LIMITS.events + 1 }, () => match),
      },
    ],
    [
      'an oversized detail',
      {
        v: 1,
        type: 'wire-issue',
        streamId: 'a',
        kind: 'k',
        detail: 'x'.repeat(PAGE_MESSAGE_LIMITS.detail + 1),
      },
    ],
    [
      'an oversized matched text',
      guardEvents({
        ...match,
        start: 0,
        end: PAGE_MESSAGE_LIMITS.matched + 1,
        matched: 'x'.repeat(PAGE_MESSAGE_LIMITS.matched + 1),
      }),
    ],
    [
      'a finding with an unknown kind',
      {
        v: 1,
        type: 'confirm-send',
        requestId: 'r',
        findings: [{ rule: 'a', kind: 'x', matched: '' }],
      },
    ],
  ];
  it.each(cases)('drops %s', (_name, input) => {
    expect(parsePageMessage(input)).toBeUndefined();
  });

  it('ignores an inherited or __proto__ version/type', () => {
    const inherited = Object.create({ v: 1, type: 'hello', hooks: [] }) as object;
    expect(parsePageMessage(inherited)).toBeUndefined();
    const parsed = JSON.parse('{"__proto__": {"v": 1}, "type": "hello", "hooks": []}') as unknown;
    expect(parsePageMessage(parsed)).toBeUndefined();
  });

  it('never throws and only returns messages it can re-parse identically, for any JSON', () => {
    const known = fc.constantFrom('hello', 'guard-events', 'holding', 'stream-end', 'wire-issue');
    const field = fc.oneof(fc.jsonValue(), known, fc.constant(1));
    const messageLike = fc.record(
      {
        v: fc.oneof(fc.constant(1), fc.jsonValue()),
        type: known,
        streamId: field,
        holding: field,
        outcome: field,
        hooks: field,
        stream: field,
        events: field,
        kind: field,
        detail: field,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), messageLike), (input) => {
        const parsed = parsePageMessage(input);
        if (parsed !== undefined) expect(parsePageMessage(structuredClone(parsed))).toEqual(parsed);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });
});
