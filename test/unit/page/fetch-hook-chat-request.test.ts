/**
 * Issue 18 §1 through the fetch hook: the answer to a chat-shaped request is
 * guarded although no adapter claims its URL or content type, and an answer that
 * cannot be decoded reaches the page as nothing (the guard reports it).
 */
import { createContext, runInContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { recogniseResponse } from '../../../src/core/wire/wire-recognisers.ts';
import { chatRequestOf } from '../../../src/page/chat-request-probe.ts';
import { type FetchHookTarget, installFetchHook } from '../../../src/page/fetch-hook.ts';
import { localWireGuard } from '../../support/local-guards.ts';

const ORIGIN = 'http://127.0.0.1:8080';
const SECRET = 'ghp_EXAMPLEexampleEXAMPLEexample01234567';
const CHAT_BODY = JSON.stringify({ messages: [{ role: 'user', content: 'the key?' }] });

/** A realm whose native fetch answers with `respond()`. */
function realmWith(respond: () => Response): FetchHookTarget {
  const context = createContext({});
  const global = runInContext('globalThis', context) as Record<string, unknown>;
  const makeFetch = runInContext(
    '(impl) => ({ fetch(input) { return impl(input, arguments[1]); } }).fetch',
    context,
  ) as (impl: unknown) => typeof fetch;
  Object.defineProperty(global, 'fetch', {
    value: makeFetch(() => Promise.resolve(respond())),
    writable: true,
    enumerable: true,
    configurable: true,
  });
  global.location = { href: `${ORIGIN}/app`, origin: ORIGIN };
  return global as unknown as FetchHookTarget;
}

function install(target: FetchHookTarget, chat = true): void {
  installFetchHook(target, {
    detectAdapter: recogniseResponse,
    createWireGuard: (recogniser) => localWireGuard(recogniser),
    ...(chat
      ? { chatRequest: (input, init) => chatRequestOf(input, init, { baseUrl: () => ORIGIN }) }
      : {}),
  });
}

/** OpenAI-compatible chunks with only `choices[].delta`, the secret split across two. */
const openAiChunks = [`Here: ${SECRET.slice(0, 12)}`, `${SECRET.slice(12)} ok`]
  .map((content) => `data: ${JSON.stringify({ choices: [{ delta: { content } }] })}\n\n`)
  .join('');

const answer = (body: BodyInit, contentType?: string) => () =>
  new Response(body, contentType === undefined ? {} : { headers: { 'content-type': contentType } });

describe('fetch hook: answers to chat-shaped requests (issue 18 §1)', () => {
  it.each(['text/plain', 'application/octet-stream', undefined])(
    'guards an OpenAI-compatible stream from POST /api/stream served as %s',
    async (contentType) => {
      const realm = realmWith(answer(openAiChunks, contentType));
      install(realm);
      const response = await realm.fetch('/api/stream', { method: 'POST', body: CHAT_BODY });
      const text = await response.text();
      expect(text).toContain('[redacted:github-pat]');
      expect(text).not.toContain('EXAMPLEexam');
    },
  );

  it('without the chat-shaped request, an octet-stream answer is not looked at', async () => {
    const realm = realmWith(answer(openAiChunks, 'application/octet-stream'));
    install(realm, false);
    const response = await realm.fetch('/api/stream', { method: 'POST', body: CHAT_BODY });
    expect(await response.text()).toBe(openAiChunks);
  });

  it('guards an unknown JSON answer generically, per string field', async () => {
    const body = JSON.stringify({ result: { reply: `Key ${SECRET}` }, ok: true });
    const realm = realmWith(answer(body, 'application/json'));
    install(realm);
    const response = await realm.fetch('/api/ask', { method: 'POST', body: CHAT_BODY });
    expect(await response.json()).toEqual({
      result: { reply: 'Key [redacted:github-pat]' },
      ok: true,
    });
  });

  it('a binary answer to a chat request: the page gets none of it', async () => {
    const binary = new Uint8Array([0, 0, 0, 0, 18, 10, 16, ...new TextEncoder().encode(SECRET)]);
    const realm = realmWith(answer(binary, 'application/grpc-web+proto'));
    install(realm);
    const response = await realm.fetch('/api/stream', { method: 'POST', body: CHAT_BODY });
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(new Uint8Array(0));
  });

  it('media answers are left to the page', async () => {
    const audio = new Uint8Array([0xff, 0xfb, 0x90, 0x00]);
    const realm = realmWith(answer(audio, 'audio/mpeg'));
    install(realm);
    const response = await realm.fetch('/v1/audio/speech', {
      method: 'POST',
      body: JSON.stringify({ input: 'hello', voice: 'alloy' }),
    });
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(audio);
  });
});
