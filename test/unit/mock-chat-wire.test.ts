/**
 * The mock chat's provider endpoints: the official `openai` and `@anthropic-ai/sdk`
 * clients read them, the secret is split across events, the server records the exact
 * bytes it sent, and the wire layer recognises and guards them like the fixtures.
 */

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getCorePack } from '../../src/core/rules/builtin-packs.ts';
import { detectAdapter } from '../../src/core/wire/adapter-registry.ts';
import { createWireTransform } from '../../src/core/wire/wire-transform.ts';
import { fakeGithubToken, scriptedAnswer } from '../mock-chat/scripted-answers.ts';
import { startMockChat, type MockChat } from '../mock-chat/server.ts';
import { anthropicSse, openAiChatSse, textDeltas } from '../mock-chat/wire-answers.ts';

async function readBytes(response: Response): Promise<{ bytes: Buffer; reads: number }> {
  const parts: Uint8Array[] = [];
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
  }
  return { bytes: Buffer.concat(parts), reads: parts.length };
}

async function guard(body: string, url: string): Promise<string> {
  const adapter = detectAdapter({
    url,
    method: 'POST',
    contentType: 'text/event-stream',
    head: body.slice(0, 1024),
  });
  expect(adapter).toBeDefined();
  const out = new Response(body).body!.pipeThrough(createWireTransform(adapter!, getCorePack()));
  return new Response(out).text();
}

describe('wire answers', () => {
  it('cuts the text into deltas by code point, splitting the secret across events', () => {
    const { text, payload } = scriptedAnswer('secret');
    const deltas = textDeltas(text);
    expect(deltas.join('')).toBe(text);
    expect(deltas.some((d) => d.includes(payload))).toBe(false);
    const tags = textDeltas(scriptedAnswer('tags').text);
    for (const delta of tags) expect(delta).not.toMatch(/[\uD800-\uDBFF]$/);
  });

  it('is recognised and guarded by the wire layer: secrets redacted, benign bytes unchanged', async () => {
    const secret = scriptedAnswer('secret');
    for (const [body, url] of [
      [openAiChatSse(secret, { includeUsage: true }), 'http://127.0.0.1/v1/chat/completions'],
      [anthropicSse(secret), 'http://127.0.0.1/v1/messages'],
    ] as const) {
      const guarded = await guard(body, url);
      expect(guarded).not.toContain(secret.payload.slice(4, 20));
      expect(guarded).toContain('[redacted:github-pat]');
    }
    const plain = scriptedAnswer('hello “there” 中文 😀');
    const benign = openAiChatSse(plain, { includeUsage: true });
    expect(await guard(benign, 'http://127.0.0.1/v1/chat/completions')).toBe(benign);
    expect(await guard(anthropicSse(plain), 'http://127.0.0.1/v1/messages')).toBe(
      anthropicSse(plain),
    );
  });
});

describe('mock chat provider endpoints', () => {
  let chat: MockChat;
  beforeAll(async () => {
    chat = await startMockChat({ chunkDelayMs: 0 });
  });
  afterAll(async () => {
    await chat.close();
  });

  it('streams OpenAI Chat Completions SSE that the official client reads', async () => {
    const client = new OpenAI({ apiKey: 'mock', baseURL: `${chat.url}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'mock-gpt',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'the secret please' }],
    });
    let text = '';
    let contentEvents = 0;
    let usage: unknown;
    for await (const chunk of stream) {
      const content = chunk.choices[0]?.delta.content;
      if (content) {
        text += content;
        contentEvents++;
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(scriptedAnswer('secret').text);
    expect(text).toContain(fakeGithubToken());
    expect(contentEvents).toBeGreaterThan(5);
    expect(usage).toMatchObject({ completion_tokens: expect.any(Number) });
  });

  it('answers without stream: true with one JSON body, as the real APIs do', async () => {
    const client = new OpenAI({ apiKey: 'mock', baseURL: `${chat.url}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'mock-gpt',
      messages: [{ role: 'user', content: 'image' }],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]?.message.content).toBe(scriptedAnswer('image').text);
    const anthropic = new Anthropic({ apiKey: 'mock', baseURL: chat.url, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: 'mock-claude',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'image' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: scriptedAnswer('image').text }]);
  });

  it('streams Anthropic Messages SSE that the official client reads', async () => {
    const client = new Anthropic({ apiKey: 'mock', baseURL: chat.url, maxRetries: 0 });
    const stream = await client.messages.create({
      model: 'mock-claude',
      max_tokens: 1024,
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'tags' }] }],
    });
    let text = '';
    const types: string[] = [];
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
        text += event.delta.text;
      }
    }
    expect(text).toBe(scriptedAnswer('tags').text);
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
  });

  it('records the exact bytes it sent, in many network chunks', async () => {
    const res = await fetch(`${chat.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: 'secret' }] }),
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('x-mock-attack')).toBe('secret');
    const id = res.headers.get('x-mock-request-id')!;
    const { bytes, reads } = await readBytes(res);
    expect(reads).toBeGreaterThan(10);
    const sent = chat.sent(id)!;
    expect(sent).toMatchObject({ route: 'POST /v1/chat/completions', finished: true });
    expect(sent.closedEarly).toBe(false);
    expect(sent.bytes.equals(bytes)).toBe(true);
    expect(bytes.toString('utf8')).toBe(openAiChatSse(scriptedAnswer('secret')));
  });

  it('notices a client that goes away before the end', async () => {
    const slow = await startMockChat({ chunkDelayMs: 20 });
    try {
      const controller = new AbortController();
      const res = await fetch(`${slow.url}/v1/messages`, {
        method: 'POST',
        body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: 'secret' }] }),
        signal: controller.signal,
      });
      const id = res.headers.get('x-mock-request-id')!;
      const reader = res.body!.getReader();
      await reader.read();
      controller.abort();
      await expect(reader.read()).rejects.toThrow();
      await expect.poll(() => slow.sent(id)?.closedEarly, { timeout: 2000 }).toBe(true);
      expect(slow.sent(id)?.finished).toBe(false);
    } finally {
      await slow.close();
    }
  });

  it('serves an unrelated JSON document with its length', async () => {
    const res = await fetch(`${chat.url}/api/status`);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = await res.text();
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(JSON.parse(body)).toMatchObject({ service: 'mock-chat', ok: true });
  });

  it('answers 405 on the provider routes for other methods', async () => {
    expect((await fetch(`${chat.url}/v1/chat/completions`)).status).toBe(405);
    expect((await fetch(`${chat.url}/v1/messages`)).status).toBe(405);
  });
});
