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

const probe = {
  url: 'https://chat.example/v1/chat/completions',
  method: 'POST',
  contentType: 'text/event-stream',
  head: 'data: {"object":"chat.completion.chunk"}',
};

const valid: PageToBridge[] = [
  { v: 1, type: 'hello', hooks: ['fetch', 'xhr'] },
  { v: 1, type: 'guard-open', streamId: 'ab12', kind: 'wire', recogniser: 'x-y', probe },
  {
    v: 1,
    type: 'guard-open',
    streamId: 'ab12',
    kind: 'plain-text',
    recogniser: '',
    probe: { url: '', contentType: '', head: '' },
  },
  {
    v: 1,
    type: 'guard-chunk',
    streamId: 'ab12',
    bytes: new TextEncoder().encode('data: x\n\n'),
    last: true,
  },
  { v: 1, type: 'guard-message', streamId: 'ab12', message: '42["events",{}]' },
  { v: 1, type: 'guard-close', streamId: 'ab12' },
  { v: 1, type: 'guard-cancel', streamId: 'ab12' },
  {
    v: 1,
    type: 'request-guard',
    requestId: 'r1',
    request: { url: probe.url, method: 'POST', contentType: 'application/json' },
    body: '{"messages":[]}',
  },
  // Issue 18 §4: a hook stopped a response itself.
  { v: 1, type: 'hook-failed', hook: 'xhr', reason: 'decision' },
  // Issue 18 §1: the answer to a chat-shaped request.
  {
    v: 1,
    type: 'guard-open',
    streamId: 'ab12',
    kind: 'wire',
    recogniser: 'generic',
    probe: { ...probe, chatRequest: true },
  },
  // Issue 20 §1: an AI SDK request's shape and the answer's marker header, which the
  // recognisers read (without them the bridge refused the AI SDK text stream).
  {
    v: 1,
    type: 'guard-open',
    streamId: 'ab12',
    kind: 'wire',
    recogniser: 'ai-sdk-text-stream',
    probe: {
      ...probe,
      contentType: 'text/plain; charset=utf-8',
      requestShape: 'ai-sdk-ui',
      headers: { 'x-vercel-ai-data-stream': 'v1' },
    },
  },
];

describe('parsePageMessage: valid messages', () => {
  it.each(valid.map((m) => [m.type, m]))('accepts %s unchanged', (_type, message) => {
    expect(parsePageMessage(structuredClone(message))).toEqual(message);
  });

  it('returns a fresh object holding only the known fields', () => {
    const input = { ...valid[3], extra: 'x' } as Record<string, unknown>;
    const parsed = parsePageMessage(input);
    expect(parsed).toEqual(valid[3]);
    expect(parsed).not.toBe(input);
    expect(parsed).not.toHaveProperty('extra');
    const open = parsePageMessage({ ...valid[1], probe: { ...probe, note: 'ignored' } });
    expect(open).toEqual(valid[1]);
  });
});

describe('parsePageMessage: malformed input is dropped', () => {
  const chunk = (fields: Record<string, unknown>) => ({
    v: 1,
    type: 'guard-chunk',
    streamId: 'a',
    bytes: new Uint8Array([120]),
    last: false,
    ...fields,
  });
  const cases: [string, unknown][] = [
    ['undefined', undefined],
    ['null', null],
    ['a string', 'hello'],
    ['an array', [1, 2]],
    ['no version', { type: 'hello', hooks: [] }],
    ['another version', { v: 2, type: 'hello', hooks: [] }],
    ['version as string', { v: '1', type: 'hello', hooks: [] }],
    ['unknown type', { v: 1, type: 'config', config: {} }],
    ['a report the page must not send', { v: 1, type: 'holding', streamId: 'a', holding: true }],
    ['hooks not strings', { v: 1, type: 'hello', hooks: [1] }],
    ['stream id with odd characters', chunk({ streamId: 'a b' })],
    ['empty stream id', chunk({ streamId: '' })],
    ['bytes as a string', chunk({ bytes: 'x' })],
    ['bytes as 16-bit units', chunk({ bytes: new Uint16Array(2) })],
    ['bytes as a plain array', chunk({ bytes: [120] })],
    ['oversized bytes', chunk({ bytes: new Uint8Array(PAGE_MESSAGE_LIMITS.chunk + 1) })],
    ['last not a boolean', chunk({ last: 1 })],
    ['unknown kind', { ...valid[1], kind: 'pipe' }],
    ['probe missing', { ...valid[1], probe: undefined }],
    ['probe head not a string', { ...valid[1], probe: { ...probe, head: 1 } }],
    ['recogniser not a string', { ...valid[1], recogniser: 3 }],
    [
      'hook-failed with a long reason',
      { v: 1, type: 'hook-failed', hook: 'xhr', reason: 'x'.repeat(65) },
    ],
    ['hook-failed without its hook', { v: 1, type: 'hook-failed', reason: 'decision' }],
    ['chatRequest not a boolean', { ...valid[1], probe: { ...probe, chatRequest: 'yes' } }],
    ['an unknown request shape', { ...valid[1], probe: { ...probe, requestShape: 'ai-sdk-v9' } }],
    ['headers not an object', { ...valid[1], probe: { ...probe, headers: 'x-a: b' } }],
    ['a header value not a string', { ...valid[1], probe: { ...probe, headers: { 'x-a': 1 } } }],
    [
      'an oversized header value',
      { ...valid[1], probe: { ...probe, headers: { 'x-a': 'v'.repeat(257) } } },
    ],
    ['request missing its method', { ...valid[7], request: { url: 'u', contentType: '' } }],
    ['request body not a string', { ...valid[7], body: {} }],
    ['request id with odd characters', { ...valid[7], requestId: 'r 1' }],
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
    const known = fc.constantFrom(...valid.map((m) => m.type));
    const field = fc.oneof(fc.jsonValue(), known, fc.constant(1), fc.constant('ab'));
    const messageLike = fc.record(
      {
        v: fc.oneof(fc.constant(1), fc.jsonValue()),
        type: known,
        streamId: field,
        requestId: field,
        kind: fc.oneof(field, fc.constantFrom('wire', 'plain-text', 'socket')),
        recogniser: field,
        probe: fc.oneof(field, fc.constant(probe)),
        text: field,
        last: fc.oneof(field, fc.boolean()),
        message: field,
        hooks: field,
        request: field,
        body: field,
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
