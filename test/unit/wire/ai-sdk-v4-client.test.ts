/**
 * The AI SDK 3/4 data stream read by the SDK's own v4 client (issue 20 §4, in
 * Node): `callChatApi` of @ai-sdk/ui-utils 1.2.11, the code under v4 `useChat`
 * (WIRE-FORMATS-2.md §1.6 names it), reads the guarded fixture as a page would,
 * the body cut into small network chunks. The fixture follows §1.6's part codes.
 */
import { type Message, type UIMessage, callChatApi } from '@ai-sdk/ui-utils';
import { describe, expect, it } from 'vitest';
import { coreWithBlock } from '../../support/adapter-cases.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import type { CompiledPack } from '../../../src/core/rules/compile-pack.ts';
import { aiSdkDataStream } from '../../../src/core/wire/adapters/ai-sdk-data-stream.ts';
import { createWireTransform } from '../../../src/core/wire/wire-transform.ts';
import { fixture } from '../../support/wire-harness.ts';

const body = fixture('ai-sdk/data-stream-secret-split.txt');
const pack = getCorePack();
/** The core pack with exfiltration images blocked: the token is redacted, the image ends the answer. */
const imageBlocks = coreWithBlock('markdown-image-exfil');

/** The body in 7-byte network chunks (cuts inside lines and characters), guarded. */
function guardedResponse(guardPack: CompiledPack | undefined): Response {
  const bytes = new TextEncoder().encode(body);
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 7) controller.enqueue(bytes.slice(i, i + 7));
      controller.close();
    },
  });
  const stream =
    guardPack === undefined
      ? source
      : source.pipeThrough(createWireTransform(aiSdkDataStream, guardPack));
  return new Response(stream, {
    headers: { 'content-type': 'text/plain; charset=utf-8', 'x-vercel-ai-data-stream': 'v1' },
  });
}

async function readV4(response: Response) {
  let last: UIMessage | Message | undefined;
  let finishReason: string | undefined;
  let error: unknown;
  try {
    await callChatApi({
      api: 'https://app.example/api/chat',
      body: { messages: [{ role: 'user', content: 'x' }] },
      streamProtocol: 'data',
      credentials: undefined,
      headers: undefined,
      abortController: undefined,
      restoreMessagesOnFailure: () => {},
      onResponse: undefined,
      onUpdate: ({ message }) => {
        last = message;
      },
      onFinish: (message, options) => {
        last = message;
        finishReason = options.finishReason;
      },
      onToolCall: undefined,
      generateId: () => 'id',
      fetch: async () => response,
      lastMessage: undefined,
    });
  } catch (e) {
    error = e;
  }
  return { last, finishReason, error };
}

const reasoningOf = (m: UIMessage | Message | undefined) =>
  (m?.parts ?? []).map((p) => (p.type === 'reasoning' ? p.reasoning : '')).join('');

describe('AI SDK v4 client (@ai-sdk/ui-utils 1.2.11 callChatApi) on the guarded data stream', () => {
  it('shows the answer redacted, the image neutralised and the tool call intact', async () => {
    const { last, finishReason, error } = await readV4(guardedResponse(pack));
    expect(error).toBeUndefined();
    expect(last?.content).toBe(
      'Here is the token you pasted: [redacted:github-pat]. And a chart [image blocked: collector.example.net] done. 数据 😀',
    );
    expect(reasoningOf(last)).toBe('The user pasted [redacted:github-pat].');
    expect(last?.toolInvocations?.[0]).toMatchObject({ toolCallId: 'call_1', state: 'result' });
    expect(finishReason).toBe('stop');
  }, 30_000);

  it('a block ends the message with finishReason content-filter, read without error', async () => {
    const { last, finishReason, error } = await readV4(guardedResponse(imageBlocks));
    expect(error).toBeUndefined();
    expect(last?.content).toBe('Here is the token you pasted: [redacted:github-pat]. And a chart ');
    expect(finishReason).toBe('content-filter');
  }, 30_000);

  it('unguarded, the same client shows the raw token (the oracle sees what the guard prevents)', async () => {
    const { last } = await readV4(guardedResponse(undefined));
    expect(last?.content).toContain('ghp_EXAMPLEexampleEXAMPLEexample01234567');
  }, 30_000);
});
