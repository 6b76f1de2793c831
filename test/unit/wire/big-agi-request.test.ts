/**
 * big-AGI's request side (WIRE-FORMATS.md §6.5, src/core/wire/requests/big-agi-request.ts):
 * bodies shaped as `aix.chatGenerateContent`'s input in enricoros/big-AGI
 * (`aix.router.ts`, `aix.wiretypes.ts`), wrapped as tRPC's batch stream link sends
 * them with superjson (`{"0":{"json":…}}`), with texts of our own. Recognised by the
 * registry, located part by part, rewritten string by string; DLP on send redacts
 * the new text only; history projection leaves out reference-only messages of
 * `chatSequence`, keeps tool invocations and every other byte, and is idempotent.
 */
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  historyFormatOfBody,
  historyFormatOfRequest,
} from '../../../src/core/outgoing/history-messages.ts';
import { guardOutgoingRequest } from '../../../src/core/outgoing/outgoing-dlp.ts';
import { projectHistory } from '../../../src/core/outgoing/project-history.ts';
import { getDefaultLabelPack } from '../../../src/core/outgoing/source-label-pack.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { bigAgiRequest } from '../../../src/core/wire/requests/big-agi-request.ts';
import { detectRequestAdapter } from '../../../src/core/wire/requests/request-registry.ts';
import type { RequestText } from '../../../src/core/wire/requests/request-text.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';
import { runCsg } from '../cli/run-csg.ts';
import { TempFiles } from '../cli/temp-files.ts';

const URL_BATCHED = 'https://agi.example.org/api/edge/aix.chatGenerateContent?batch=1';
const post = (url: string) => ({ url, method: 'POST', contentType: 'application/json' });

type Part = Record<string, unknown>;
type Message = { role: 'user' | 'model' | 'tool'; parts: Part[] };
const text = (t: string): Part => ({ pt: 'text', text: t });
const user = (...parts: Part[]): Message => ({ role: 'user', parts });
const model = (...parts: Part[]): Message => ({ role: 'model', parts });

const SIGNED_REASONING: Part = {
  pt: 'ma',
  aType: 'reasoning',
  aText: 'thinking about the garden',
  textSignature: 'sig-abc',
};
const TOOL_CALL: Part = {
  pt: 'tool_invocation',
  id: 'call_1',
  invocation: { type: 'function_call', name: 'lookup_weather', args: '{"city":"Oslo"}' },
};

/** The procedure input, as big-AGI's client builds it. */
function input(sequence: Message[]) {
  return {
    access: { dialect: 'openai', oaiKey: '', oaiOrg: '', oaiHost: '', heliKey: '' },
    model: { id: 'gpt-4o-mini', acceptsOutputs: ['text'], temperature: 0.5 },
    chatGenerate: {
      systemMessage: { parts: [text('You are a gardening helper.')] },
      chatSequence: sequence,
    },
    context: { method: 'chat-generate', name: 'conversation', ref: 'conv-1' },
    streaming: true,
  };
}

/** tRPC httpBatchStreamLink + superjson: `{"0":{"json":input}}`, pretty-printed to catch byte drift. */
const batched = (sequence: Message[]) => JSON.stringify({ 0: { json: input(sequence) } }, null, 1);

const sequenceOf = (body: string): Message[] =>
  (JSON.parse(body) as { 0: { json: ReturnType<typeof input> } })[0].json.chatGenerate
    .chatSequence as Message[];

const HISTORY: Message[] = [
  user(text('Which roses survive frost?')),
  model(SIGNED_REASONING, text('Rugosa roses are the hardiest.')),
  user(
    text('And what about tulips?'),
    {
      pt: 'doc',
      vdt: 'text/plain',
      ref: 'notes.txt',
      l1Title: 'notes',
      data: { idt: 'text', text: 'planting notes: bulbs in October' },
    },
    { pt: 'meta_in_reference_to', referTo: [{ mrt: 'dmsg', mText: 'hardiest', mRole: 'model' }] },
  ),
];

describe('big-AGI request adapter', () => {
  it('is what the registry picks for aix.chatGenerateContent, batched or not, and only on POST', () => {
    expect(detectRequestAdapter(post(URL_BATCHED))?.name).toBe('big-agi');
    expect(
      detectRequestAdapter(post('http://localhost:3000/api/cloud/aix.chatGenerateContent'))?.name,
    ).toBe('big-agi');
    expect(
      detectRequestAdapter(post('/api/edge/llmOpenAI.listModels,aix.chatGenerateContent?batch=1'))
        ?.name,
    ).toBe('big-agi');
    expect(detectRequestAdapter({ ...post(URL_BATCHED), method: 'GET' })).toBeUndefined();
    expect(detectRequestAdapter(post('/api/edge/aix.reattachContent?batch=1'))).toBeUndefined();
    expect(bigAgiRequest.sendsHistory).toBe(true);
    expect(historyFormatOfRequest('big-agi')).toBe('big-agi');
  });

  it('locates system, history, the new text and its documents; never signed reasoning', () => {
    const located = bigAgiRequest.locate(batched(HISTORY));
    const summary = located.map((t: RequestText) => [t.part, t.role, t.message, t.text]);
    expect(summary).toEqual([
      ['system', 'system', -1, 'You are a gardening helper.'],
      ['history', 'user', 0, 'Which roses survive frost?'],
      ['history', 'assistant', 1, 'Rugosa roses are the hardiest.'],
      ['new', 'user', 2, 'And what about tulips?'],
      ['attachment', 'user', 2, 'planting notes: bulbs in October'],
      ['attachment', 'user', 2, 'hardiest'],
    ]);
    expect(located.map((t) => t.text)).not.toContain(SIGNED_REASONING.aText);
    expect(located[3]?.path).toEqual([
      '0',
      'json',
      'chatGenerate',
      'chatSequence',
      2,
      'parts',
      0,
      'text',
    ]);
  });

  it('reads the unbatched and the bare wrappings too, and refuses a body without chatSequence', () => {
    const unbatched = JSON.stringify({ json: input(HISTORY) });
    expect(bigAgiRequest.locate(unbatched).find((t) => t.part === 'new')?.path).toEqual([
      'json',
      'chatGenerate',
      'chatSequence',
      2,
      'parts',
      0,
      'text',
    ]);
    const bare = JSON.stringify(input(HISTORY));
    expect(bigAgiRequest.locate(bare).filter((t) => t.part === 'new')).toHaveLength(1);
    expect(() => bigAgiRequest.locate('{"0":{"json":{"chatGenerate":{}}}}')).toThrow(SyntaxError);
  });

  it('a rewrite changes only the located string; every other byte stays', () => {
    const body = batched(HISTORY);
    const target = bigAgiRequest.locate(body).find((t) => t.part === 'new') as RequestText;
    const out = bigAgiRequest.rewrite(body, [
      { path: target.path, value: 'And what about lilies?' },
    ]);
    expect(out).toBe(body.replace('And what about tulips?', 'And what about lilies?'));
  });

  it('for any new text, a rewrite to the same text is the identity and locate reads it back', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (typed, replacement) => {
        const body = batched([...HISTORY.slice(0, 2), user(text(typed))]);
        const target = bigAgiRequest.locate(body).find((t) => t.part === 'new') as RequestText;
        expect(target.text).toBe(typed);
        expect(bigAgiRequest.rewrite(body, [{ path: target.path, value: typed }])).toBe(body);
        const out = bigAgiRequest.rewrite(body, [{ path: target.path, value: replacement }]);
        expect(bigAgiRequest.locate(out).find((t) => t.part === 'new')?.text).toBe(replacement);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });
});

describe('DLP on send for big-AGI', () => {
  const pack = compilePack({
    name: 'dlp-test',
    version: '1',
    rules: [
      {
        id: 'test-token',
        kind: 'secret',
        description: 'tok- and twelve digits',
        pattern: 'tok-[0-9]{12}',
        keywords: ['tok-'],
        action: 'redact',
        examples: { match: ['tok-123456789012'], noMatch: ['tok-1'] },
      },
    ],
  });
  const newToken = 'tok-' + '40'.repeat(6);
  const oldToken = 'tok-' + '1'.repeat(12);

  it('redacts the new text and an attached document in the copy; history is left to projection', () => {
    const body = batched([
      user(text(`earlier ${oldToken}`)),
      model(text('noted')),
      user(text(`my key ${newToken}`), {
        pt: 'doc',
        vdt: 'text/plain',
        ref: 'k.txt',
        data: { idt: 'text', text: `doc ${newToken}` },
      }),
    ]);
    const r = guardOutgoingRequest(post(URL_BATCHED), body, { pack });
    expect(r.format).toBe('big-agi');
    expect(r.decision).toBe('redact');
    expect(r.body).not.toContain(newToken);
    expect(r.body).toContain(oldToken);
    expect(r.findings.map((f) => f.part)).toEqual(['new', 'attachment']);
    // Only the two strings changed: the rest of the body parses to the same structure.
    const sent = sequenceOf(r.body);
    expect((sent[2]?.parts[0] as { text: string }).text).toMatch(/^my key \[redacted/);
    expect(sent.slice(0, 2)).toEqual(sequenceOf(body).slice(0, 2));
  });
});

describe('history projection for big-AGI', () => {
  const key = Buffer.from('test key for digests');
  const digest = (t: string) => createHmac('sha256', key).update(t).digest('hex');
  const labels = getDefaultLabelPack();

  it('applies only to bodies that carry chatSequence', () => {
    expect(historyFormatOfBody('big-agi', batched(HISTORY))).toBe('big-agi');
    expect(historyFormatOfBody('big-agi', '{"0":{"json":{}}}')).toBeUndefined();
    expect(historyFormatOfBody('openai-chat', '{"messages":[]}')).toBe('openai-chat');
    expect(historyFormatOfBody('chatgpt-web', '{"messages":[]}')).toBeUndefined();
  });

  it('leaves out a reference-only answer (with its reasoning), keeps the rest byte for byte', () => {
    const body = batched(HISTORY);
    const marked = new Set([digest('Rugosa roses are the hardiest.')]);
    const r = projectHistory(body, 'big-agi', { referenceOnly: marked, digest, labels });
    expect(r.changes).toEqual([{ action: 'drop', reason: 'reference-only', message: 1 }]);
    const sent = sequenceOf(r.body);
    expect(sent.map((m) => m.role)).toEqual(['user', 'user']);
    expect(sent).toEqual([HISTORY[0], HISTORY[2]]);
    // Everything outside chatSequence is untouched.
    const outside = (b: string) => {
      const json = JSON.parse(b) as { 0: { json: ReturnType<typeof input> } };
      return { ...json[0].json, chatGenerate: { ...json[0].json.chatGenerate, chatSequence: [] } };
    };
    expect(outside(r.body)).toEqual(outside(body));
    // Projecting again changes nothing.
    expect(projectHistory(r.body, 'big-agi', { referenceOnly: marked, digest, labels }).body).toBe(
      r.body,
    );
  });

  it('the new turn is never left out, whatever is marked', () => {
    const marked = new Set([digest('And what about tulips?')]);
    const r = projectHistory(batched(HISTORY), 'big-agi', { referenceOnly: marked, digest });
    expect(r.changes).toEqual([]);
  });

  it('a marked answer that invoked a tool stays with its text removed, so the tool link holds', () => {
    const sequence: Message[] = [
      user(text('Weather in Oslo?')),
      model(text('Let me check.'), TOOL_CALL),
      {
        role: 'tool',
        parts: [
          {
            pt: 'tool_response',
            id: 'call_1',
            response: { type: 'function_call', result: '{"c":3}', _name: 'lookup_weather' },
          },
        ],
      },
      model(text('It is 3 degrees.')),
      user(text('Thanks, and tomorrow?')),
    ];
    const marked = new Set([digest('Let me check.')]);
    const r = projectHistory(batched(sequence), 'big-agi', { referenceOnly: marked, digest });
    expect(r.changes).toEqual([{ action: 'empty', reason: 'reference-only', message: 1 }]);
    const sent = sequenceOf(r.body);
    expect(sent[1]).toEqual(model(TOOL_CALL));
    expect(sent[2]).toEqual(sequence[2]);
    expect(sent).toHaveLength(5);
  });

  it('source labels are stripped from model text parts only', () => {
    const sequence: Message[] = [
      user(text('[Source: me] keep this')),
      model(text('[Source: camera] The chart rises.')),
      user(text('go on')),
    ];
    const sent = sequenceOf(projectHistory(batched(sequence), 'big-agi', { labels }).body);
    expect(sent[0]).toEqual(sequence[0]);
    expect(sent[1]).toEqual(model(text('The chart rises.')));
  });
});

describe('csg outgoing --format big-agi', () => {
  it('redacts the new text and leaves out the marked answer, offline', async () => {
    const pat = 'gh' + 'p_' + ['Zq8vK2', 'mX9pL4', 'nR7tW1', 'yB5cD3', 'fG6hJ0', 'sE8aUx'].join('');
    const body = batched([
      user(text('Which roses survive frost?')),
      model(text('Rugosa roses are the hardiest.')),
      user(text(`my token ${pat} thanks`)),
    ]);
    const temp = new TempFiles();
    try {
      const file = temp.path('reference-only.jsonl');
      writeFileSync(file, '{"index": 1}\n');
      const run = await runCsg(['outgoing', '--format', 'big-agi', '--reference-only', file], {
        stdin: body,
      });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const sent = sequenceOf(run.out);
      expect(sent.map((m) => m.role)).toEqual(['user', 'user']);
      expect((sent[1]?.parts[0] as { text: string }).text).toMatch(
        /^my token \[redacted:[a-z-]+\] thanks$/,
      );
    } finally {
      temp.remove();
    }
  }, 30_000);
});
