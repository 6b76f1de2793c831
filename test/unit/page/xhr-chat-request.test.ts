/**
 * Issue 18 §1 through the XMLHttpRequest hook: the answer to a chat-shaped request
 * (judged at `send()` from the body, chat-request-probe.ts `isChatRequestBody`) is
 * guarded by the generic adapter although no adapter claims its URL or content type,
 * on every reading path; an answer that cannot be decoded reaches the page as nothing;
 * a request that is not chat-shaped keeps the browser's own answer, as before.
 */
import { describe, expect, it } from 'vitest';
import { recogniseResponse } from '../../../src/core/wire/wire-recognisers.ts';
import type { WireProbe } from '../../../src/core/wire/wire-event.ts';
import { newFetchHookStats } from '../../../src/page/fetch-hook.ts';
import { installXhrHook, type XhrHookTarget } from '../../../src/page/xhr-hook.ts';
import { fakeGithubToken } from '../../mock-chat/scripted-answers.ts';
import { localWireGuard } from '../../support/local-guards.ts';
import { createFakeXhrClass, FakeEventTarget, FakeProgressEvent } from './fake-xhr.ts';

const SECRET = fakeGithubToken(18);
const CHAT_BODY = JSON.stringify({ messages: [{ role: 'user', content: 'the key?' }] });
const OTHER_BODY = JSON.stringify({ theme: 'dark' });

/** OpenAI-compatible chunks with only `choices[].delta`, the secret split across two. */
const openAiChunks = [`Here: ${SECRET.slice(0, 12)}`, `${SECRET.slice(12)} ok`]
  .map((content) => `data: ${JSON.stringify({ choices: [{ delta: { content } }] })}\n\n`)
  .join('');

function hooked(chatRequestBody?: () => boolean) {
  const stats = newFetchHookStats();
  const probes: WireProbe[] = [];
  const reports: string[] = [];
  const target = {
    XMLHttpRequest: createFakeXhrClass(),
    ProgressEvent: FakeProgressEvent,
    Event,
    EventTarget: FakeEventTarget,
    Function,
    location: { href: 'http://127.0.0.1:8080/app' },
  };
  installXhrHook(target as unknown as XhrHookTarget, {
    detectAdapter: (probe) => {
      probes.push(probe);
      return recogniseResponse(probe);
    },
    createWireGuard: (recogniser) => localWireGuard(recogniser),
    stats,
    reportFailure: (hook, reason) => reports.push(`${hook}:${reason}`),
    ...(chatRequestBody ? { chatRequestBody } : {}),
  });
  return { Xhr: target.XMLHttpRequest, stats, probes, reports };
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
}

/** Posts `body` to `/api/stream` and answers `answer` as `contentType`; what the page read. */
async function ask(
  body: unknown,
  answer: string | Uint8Array,
  contentType: string,
  responseType: XMLHttpRequestResponseType = '',
) {
  const realm = hooked();
  const xhr = new realm.Xhr();
  let end = '';
  const views: string[] = [];
  xhr.addEventListener('progress', () => {
    if (responseType === '' || responseType === 'text') views.push(xhr.responseText);
  });
  for (const type of ['load', 'error']) xhr.addEventListener(type, () => (end = type));
  xhr.open('POST', '/api/stream');
  xhr.setRequestHeader('Content-Type', 'application/json');
  xhr.responseType = responseType;
  xhr.send(body as XMLHttpRequestBodyInit);
  xhr.respond(200, { 'content-type': contentType });
  const text = typeof answer === 'string' ? answer : new TextDecoder('latin1').decode(answer);
  const half = Math.floor(text.length / 2);
  xhr.receive(text.slice(0, half));
  xhr.receive(text.slice(half));
  xhr.finish();
  await until(() => end !== '');
  return { xhr, end, views, ...realm };
}

const readAll = async (response: unknown): Promise<string> => {
  if (typeof response === 'string') return response;
  if (response instanceof Blob) return response.text();
  if (response instanceof ArrayBuffer) return new TextDecoder().decode(response);
  return JSON.stringify(response);
};

describe('XMLHttpRequest hook: answers to chat-shaped requests (issue 18 §1)', () => {
  it.each(['text/plain', 'application/octet-stream', 'text/event-stream'])(
    'guards an OpenAI-compatible stream from POST /api/stream served as %s',
    async (contentType) => {
      const { xhr, end, views, probes } = await ask(CHAT_BODY, openAiChunks, contentType);
      expect(end).toBe('load');
      expect(xhr.responseText).toContain('[redacted:github-pat]');
      for (const view of [...views, xhr.responseText]) expect(view).not.toContain('EXAMPLE');
      expect(probes.at(-1)?.chatRequest).toBe(true);
    },
  );

  it.each(['arraybuffer', 'blob', 'json'] as const)(
    'guards it when the page reads responseType %s',
    async (responseType) => {
      const json = JSON.stringify({ result: { reply: `Key ${SECRET}` } });
      const { xhr, end } = await ask(CHAT_BODY, json, 'application/octet-stream', responseType);
      expect(end).toBe('load');
      const read = await readAll(xhr.response);
      expect(read).toContain('[redacted:github-pat]');
      expect(read).not.toContain(SECRET.slice(4, 14));
    },
  );

  it('judges a body sent as bytes, and as URL-encoded form', async () => {
    const bytes = new TextEncoder().encode(CHAT_BODY);
    const fromBytes = await ask(bytes, openAiChunks, 'text/plain');
    expect(fromBytes.xhr.responseText).toContain('[redacted:github-pat]');
    const form = new URLSearchParams({ prompt: 'the key?' });
    const fromForm = await ask(form, openAiChunks, 'text/plain');
    expect(fromForm.xhr.responseText).toContain('[redacted:github-pat]');
  });

  it('without a chat-shaped request, an answer in no known shape is the browser’s own', async () => {
    const json = JSON.stringify({ result: { reply: `Key ${SECRET}` } });
    const { xhr, end, stats, probes } = await ask(OTHER_BODY, json, 'text/plain');
    expect(end).toBe('load');
    expect(xhr.responseText).toBe(json);
    expect(stats.wireGuarded).toBe(0);
    expect(probes.every((probe) => probe.chatRequest === undefined)).toBe(true);
  });

  it('a binary answer to a chat request: the page reads none of it', async () => {
    const binary = new Uint8Array([0, 0, 0, 0, 18, 10, 16, ...new TextEncoder().encode(SECRET)]);
    const { xhr, views } = await ask(CHAT_BODY, binary, 'application/grpc-web+proto');
    for (const view of [...views, xhr.responseText]) expect(view).not.toContain(SECRET.slice(4));
    expect(xhr.responseText).toBe('');
  });

  it('a synchronous chat request whose answer no adapter claims is refused with a notice', () => {
    const realm = hooked();
    const xhr = new realm.Xhr();
    xhr.open('POST', '/api/stream', false);
    xhr.answerSynchronously(200, { 'content-type': 'text/plain' }, openAiChunks);
    expect(() => xhr.send(CHAT_BODY)).toThrow(/refused/);
    expect(xhr.responseText).toBe('');
    expect(realm.reports).toEqual(['xhr:synchronous']);
  });

  it('a chat-request verdict that throws fails the answer closed, with a notice', async () => {
    const realm = hooked(() => {
      throw new Error('verdict');
    });
    const xhr = new realm.Xhr();
    let end = '';
    for (const type of ['load', 'error']) xhr.addEventListener(type, () => (end = type));
    xhr.open('POST', '/api/stream');
    xhr.send(CHAT_BODY);
    xhr.respond(200, { 'content-type': 'text/plain' });
    xhr.receive(openAiChunks);
    xhr.finish();
    await until(() => end !== '');
    expect(end).toBe('error');
    expect(xhr.responseText).toBe('');
    expect(realm.reports).toEqual(['xhr:decision']);
  });
});
