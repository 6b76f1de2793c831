import fc from 'fast-check';
import { Stream } from 'openai/streaming';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { openAiChatJson, openAiChatStream } from '../../../src/core/wire/adapters/openai-chat.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { StreamRewriter } from '../../../src/core/wire/stream-rewriter.ts';
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
const secret = fixture('openai-chat/secret-split.sse');
const benign = fixture('openai-chat/benign-crlf.sse');

async function readWithSdk(body: string): Promise<{ text: string; chunks: ChatCompletionChunk[] }> {
  const stream = Stream.fromSSEResponse<ChatCompletionChunk>(
    sseResponse(body),
    new AbortController(),
  );
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
  return { text, chunks };
}

describe('openai-chat adapter', () => {
  it('releases everything at [DONE], before the connection closes', () => {
    // The last delta ends in a prefix a rule could still extend (`sk-`): the guard holds
    // it until the channel ends. `[DONE]` ends it, so a client that waits for `[DONE]`
    // before closing the connection is not left waiting.
    const chunk = (content: string) =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    const body = chunk('The key starts with ') + chunk('sk-') + 'data: [DONE]\n\n';
    const rewriter = new StreamRewriter(openAiChatStream, pack);
    const beforeDone = rewriter.push(chunk('The key starts with ') + chunk('sk-'));
    expect(beforeDone).not.toContain('sk-');
    const atDone = rewriter.push('data: [DONE]\n\n');
    expect(beforeDone + atDone).toBe(body);
    expect(rewriter.end()).toBe('');
  });

  it('passes a stream without matches through byte for byte (CRLF, comments, no space after data:)', () => {
    expect(wholeReplay(openAiChatStream, pack, benign).output).toBe(benign);
  });

  it('redacts a secret split across three deltas; the official SDK reads the guarded stream', async () => {
    const replay = wholeReplay(openAiChatStream, pack, secret);
    const original = await readWithSdk(secret);
    const guarded = await readWithSdk(replay.output);
    expect(guarded.text).toBe(scanText(pack, original.text).output);
    expect(guarded.text).toContain('[redacted:github-pat]');
    expect(guarded.text).not.toMatch(/EXAMPLEexam/);
    // Same events, same order; only text changed: tool calls and usage intact.
    expect(guarded.chunks.length).toBe(original.chunks.length);
    const strip = (c: ChatCompletionChunk) =>
      JSON.stringify({
        ...c,
        choices: c.choices.map((x) => ({ ...x, delta: { ...x.delta, content: undefined } })),
      });
    expect(guarded.chunks.map(strip)).toEqual(original.chunks.map(strip));
    expect(replay.events).toMatchObject([
      { channel: 'choice:0', event: { rule: 'github-pat', action: 'redact' } },
    ]);
  });

  it('for any split of the wire bytes, the page receives the single-chunk result', async () => {
    const bytes = new TextEncoder().encode(secret);
    const expected = wholeReplay(openAiChatStream, pack, secret).output;
    await fc.assert(
      fc.asyncProperty(cutFractions(24), async (cuts) => {
        const out = await throughTransform(openAiChatStream, pack, splitBytes(bytes, cuts));
        expect(new TextDecoder().decode(out)).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('a block ends the answer the way OpenAI ends a filtered one, and the SDK finishes cleanly', async () => {
    const blocking = blockingPack('github-pat');
    const replay = replayBody(openAiChatStream, blocking, [secret]);
    expect(replay.blocked).toBe(true);
    const read = await readWithSdk(replay.output);
    expect(read.text).toBe('Sure — here is the token you pasted: ');
    expect(read.chunks.at(-1)?.choices[0]?.finish_reason).toBe('content_filter');
    expect(replay.output.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('non-streaming answers are guarded in place, other bytes untouched', () => {
    const token = 'ghp_' + 'EXAMPLEexample'.repeat(2) + '01234567';
    const body = `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"key: ${token}"},"finish_reason":"stop"}],"usage":{"total_tokens":12345678901234567890}}`;
    const out = wholeReplay(openAiChatJson, pack, body).output;
    expect(out).toBe(body.replace(token, '[redacted:github-pat]'));
  });

  it('a non-streaming answer blocked before any text still parses, with finish_reason content_filter', () => {
    const blocking = blockingPack('github-pat');
    const token = 'ghp_' + 'EXAMPLEexample'.repeat(2) + '01234567';
    const body = `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"${token} rest"},"finish_reason":"stop"}]}`;
    const replay = replayBody(openAiChatJson, blocking, [body]);
    expect(replay.blocked).toBe(true);
    const json = JSON.parse(replay.output) as {
      choices: { message: { content: string }; finish_reason: string }[];
    };
    expect(json.choices[0]).toMatchObject({
      message: { content: '' },
      finish_reason: 'content_filter',
    });
  });
});
