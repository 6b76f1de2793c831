/**
 * The Vercel AI SDK adapters (WIRE-FORMATS-2.md §1), read back the way the
 * SDK's own clients read them. The shared harness (adapter-harness.test.ts)
 * covers byte identity, any split and the block ending from the fixtures in
 * test/fixtures/wire/ai-sdk; this file checks what the clients require.
 */
import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coreWithBlock } from '../../support/adapter-cases.ts';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { detectAdapter } from '../../../src/core/wire/adapter-registry.ts';
import { aiSdkDataStream } from '../../../src/core/wire/adapters/ai-sdk-data-stream.ts';
import { aiSdkUiStream } from '../../../src/core/wire/adapters/ai-sdk-ui-stream.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { createWireTransform } from '../../../src/core/wire/wire-transform.ts';
import type { WireProbe } from '../../../src/core/wire/wire-event.ts';
import { fixture, splitBytes } from '../../support/wire-harness.ts';
import { cutFractions } from '../../support/text-arbitraries.ts';

const pack = getCorePack();
const uiSecret = fixture('ai-sdk/ui-stream-secret-split.sse');
const dataSecret = fixture('ai-sdk/data-stream-secret-split.txt');
/** The core pack with exfiltration images blocked: the token is redacted, the image ends the answer. */
const imageBlocks = coreWithBlock('markdown-image-exfil');

type Chunk = Record<string, unknown> & { type: string };

/**
 * Reads a UI message stream as `parseJsonEventStream` and `processUIMessageStream`
 * do (§1.3, §1.5): `[DONE]` skipped, every other event one JSON chunk (a parse
 * failure errors the stream), a delta for a part that was never started throws.
 */
function readUi(body: string) {
  const chunks: Chunk[] = [];
  const parser = createParser({
    onEvent: (m) => {
      if (m.data !== '[DONE]') chunks.push(JSON.parse(m.data) as Chunk);
    },
  });
  parser.feed(body);
  const open = new Map<string, string>();
  const texts: Record<string, string> = {};
  for (const c of chunks) {
    const kind = c.type.split('-')[0] as string;
    const key = `${kind}:${String(c.id)}`;
    if (c.type === 'text-start' || c.type === 'reasoning-start') open.set(key, '');
    if (c.type === 'text-delta' || c.type === 'reasoning-delta') {
      if (!open.has(key)) throw new Error(`Received ${c.type} for missing ${kind} part`);
      texts[kind] = (texts[kind] ?? '') + String(c.delta);
    }
    if (c.type === 'finish-step') open.clear();
  }
  return { chunks, texts, done: body.endsWith('data: [DONE]\n\n') };
}

/** Reads a data stream as `processDataStream` does (§1.6): every line `code:JSON`, known codes only. */
function readData(body: string) {
  const parts: { code: string; value: unknown }[] = [];
  for (const line of body.split('\n')) {
    if (line === '') continue;
    const m = /^([0-9a-k]):(.*)$/.exec(line);
    if (m === null) throw new Error(`bad line ${line}`);
    parts.push({ code: m[1] as string, value: JSON.parse(m[2] as string) });
  }
  const text = (code: string) =>
    parts
      .filter((p) => p.code === code)
      .map((p) => p.value as string)
      .join('');
  return { parts, text: text('0'), reasoning: text('g') };
}

describe('AI SDK UI message stream (§1.3–§1.5)', () => {
  it('redacts text and reasoning split across deltas; chunks keep their keys, count and order', () => {
    const replay = replayBody(aiSdkUiStream, pack, [uiSecret]);
    const original = readUi(uiSecret);
    const guarded = readUi(replay.output);
    expect(guarded.texts.text).toBe(scanText(pack, original.texts.text ?? '').output);
    expect(guarded.texts.reasoning).toBe(scanText(pack, original.texts.reasoning ?? '').output);
    expect(guarded.texts.text).toContain('[redacted:github-pat]');
    expect(guarded.texts.text).toContain('[image blocked: collector.example.net]');
    expect(replay.output).not.toMatch(/EXAMPLEexam|collector\.example\.net\/p/);
    // §1.5 rule 1: no chunk gains (or loses) a field; rule 2: every text-start is kept.
    expect(guarded.chunks.map((c) => Object.keys(c))).toEqual(
      original.chunks.map((c) => Object.keys(c)),
    );
    const untouched = (chunks: Chunk[]) => chunks.filter((c) => !c.type.endsWith('-delta'));
    expect(untouched(guarded.chunks)).toEqual(untouched(original.chunks));
    expect(guarded.done).toBe(true);
    expect(replay.issues).toEqual([]);
  });

  it('a block inside the text closes the part, the step and the message, and the client reads it', () => {
    const replay = replayBody(aiSdkUiStream, imageBlocks, [uiSecret]);
    expect(replay.blocked).toBe(true);
    const read = readUi(replay.output);
    expect(read.texts.text).toBe(
      'Sure — here is the token you pasted: [redacted:github-pat]. And a chart ',
    );
    expect(read.chunks.slice(-3)).toEqual([
      { type: 'text-end', id: 'txt-0' },
      { type: 'finish-step' },
      // ai@5.0.0's strict `finish` schema has no finishReason: none is added.
      { type: 'finish' },
    ]);
    expect(read.done).toBe(true);
  });

  it('a part id reused in a later step is a fresh part, not a reopened channel', () => {
    const step = (text: string) =>
      `data: {"type":"start-step"}\n\ndata: {"type":"text-start","id":"0"}\n\n` +
      `data: {"type":"text-delta","id":"0","delta":${JSON.stringify(text)}}\n\n` +
      `data: {"type":"text-end","id":"0"}\n\ndata: {"type":"finish-step"}\n\n`;
    const body = `data: {"type":"start"}\n\n${step('one')}${step('two')}data: {"type":"finish"}\n\ndata: [DONE]\n\n`;
    const replay = replayBody(aiSdkUiStream, pack, [body]);
    expect(replay.output).toBe(body);
    expect(replay.issues).toEqual([]);
  });

  it('passes unknown chunk types through and reports them', () => {
    const body = `data: {"type":"start"}\n\ndata: {"type":"brand-new","x":1}\n\ndata: [DONE]\n\n`;
    const replay = replayBody(aiSdkUiStream, pack, [body]);
    expect(replay.output).toBe(body);
    expect(replay.issues).toEqual([
      { kind: 'unrecognised-frame', detail: 'ai-sdk-ui: chunk brand-new' },
    ]);
  });
});

describe('AI SDK data stream (§1.6)', () => {
  it('redacts 0: and g: text; every line stays code:JSON and other parts are unchanged', () => {
    const replay = replayBody(aiSdkDataStream, pack, [dataSecret]);
    const original = readData(dataSecret);
    const guarded = readData(replay.output);
    expect(guarded.text).toBe(scanText(pack, original.text).output);
    expect(guarded.reasoning).toBe(scanText(pack, original.reasoning).output);
    expect(guarded.text).toContain('[image blocked: collector.example.net]');
    const other = (r: typeof original) => r.parts.filter((p) => p.code !== '0' && p.code !== 'g');
    expect(other(guarded)).toEqual(other(original));
    expect(guarded.parts.map((p) => p.code)).toEqual(original.parts.map((p) => p.code));
  });

  it('for any split of the wire bytes, every chunk the page receives is whole lines', async () => {
    const bytes = new TextEncoder().encode(dataSecret);
    await fc.assert(
      fc.asyncProperty(cutFractions(24), async (cuts) => {
        const source = new ReadableStream<Uint8Array>({
          start(controller) {
            for (const c of splitBytes(bytes, cuts)) controller.enqueue(c);
            controller.close();
          },
        });
        const reader = source.pipeThrough(createWireTransform(aiSdkDataStream, pack)).getReader();
        const decoder = new TextDecoder();
        for (let r = await reader.read(); !r.done; r = await reader.read()) {
          expect(decoder.decode(r.value).endsWith('\n')).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  }, 60_000);

  it('a block ends with e: and d: finishReason content-filter, read without error', () => {
    const replay = replayBody(aiSdkDataStream, imageBlocks, [dataSecret]);
    expect(replay.blocked).toBe(true);
    const read = readData(replay.output);
    expect(read.text).toBe('Here is the token you pasted: [redacted:github-pat]. And a chart ');
    expect(read.parts.slice(-2)).toEqual([
      { code: 'e', value: { finishReason: 'content-filter', isContinued: false } },
      { code: 'd', value: { finishReason: 'content-filter' } },
    ]);
  });
});

describe('AI SDK detection (§1, "Detection pitfall"; §1.2 request shapes)', () => {
  const probe = (p: Partial<WireProbe>): WireProbe => ({
    url: '',
    contentType: '',
    head: '',
    ...p,
  });

  it('by the marker headers, whatever the body opens with', () => {
    const sse = 'data: {"type":"custom-app"}\n\n';
    expect(
      detectAdapter(
        probe({
          contentType: 'text/event-stream',
          head: sse,
          headers: { 'x-vercel-ai-ui-message-stream': 'v1' },
        }),
      )?.id,
    ).toBe('ai-sdk-ui-stream');
    expect(
      detectAdapter(
        probe({
          contentType: 'text/plain',
          head: '2:[1]\n',
          headers: { 'x-vercel-ai-data-stream': 'v1' },
        }),
      )?.id,
    ).toBe('ai-sdk-data-stream');
  });

  it('by the request body shape, on any URL', () => {
    const head = 'data: {"type":"custom-app"}\n\n';
    expect(
      detectAdapter(probe({ contentType: 'text/event-stream', head, requestShape: 'ai-sdk-ui' }))
        ?.id,
    ).toBe('ai-sdk-ui-stream');
    expect(
      detectAdapter(
        probe({
          contentType: 'text/plain; charset=utf-8',
          head: 'Hello',
          requestShape: 'ai-sdk-ui',
        }),
      )?.id,
    ).toBe('ai-sdk-text-stream');
    // Plain text with no AI SDK request behind it is not claimed as the text stream.
    expect(detectAdapter(probe({ contentType: 'text/plain', head: 'Hello' }))?.id).not.toBe(
      'ai-sdk-text-stream',
    );
  });

  it('the resume GET ({api}/{chatId}/stream, §1.5 "Resume") replays a stream that opens with start', () => {
    const head = fixture('ai-sdk/ui-stream-benign.sse').slice(0, 1024);
    const resume = probe({
      url: 'https://app.example/api/chat/chat_abc/stream',
      method: 'GET',
      contentType: 'text/event-stream',
      head,
    });
    expect(detectAdapter(resume)?.id).toBe('ai-sdk-ui-stream');
  });

  it('does not claim the API formats whose streams look alike', () => {
    const anthropic = fixture('anthropic/secret-split.sse').slice(0, 1024);
    const openai = fixture('openai-chat/secret-split.sse').slice(0, 1024);
    const ollama = fixture('ollama/chat-secret-split.ndjson').slice(0, 1024);
    expect(detectAdapter(probe({ contentType: 'text/event-stream', head: anthropic }))?.id).toBe(
      'anthropic-messages',
    );
    expect(detectAdapter(probe({ contentType: 'text/event-stream', head: openai }))?.id).toBe(
      'openai-chat-stream',
    );
    expect(
      detectAdapter(
        probe({
          url: 'http://127.0.0.1:11434/api/chat',
          contentType: 'application/x-ndjson',
          head: ollama,
        }),
      )?.id,
    ).toBe('ollama-stream');
  });
});
