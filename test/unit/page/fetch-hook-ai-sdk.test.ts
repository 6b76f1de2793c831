/**
 * Issue 20 §1 through the fetch hook: AI SDK answers are known by the request's
 * shape (WIRE-FORMATS-2.md §1.2) and the SDK's marker headers, on any URL. The
 * plain text stream carries no marker at all (§1.7): only the request's shape tells
 * that `text/plain` bytes are the SDK's answer.
 */
import { createContext, runInContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { recogniseResponse } from '../../../src/core/wire/wire-recognisers.ts';
import type { WireProbe } from '../../../src/core/wire/wire-event.ts';
import { chatRequestOf, requestVerdictOf } from '../../../src/page/chat-request-probe.ts';
import { type FetchHookTarget, installFetchHook } from '../../../src/page/fetch-hook.ts';
import { localWireGuard } from '../../support/local-guards.ts';

const ORIGIN = 'http://127.0.0.1:8080';
const SECRET = 'ghp_EXAMPLEexampleEXAMPLEexample01234567';
/** useChat of SDK 3/4: the chat id beside messages with `content`, no model. */
const V4_BODY = JSON.stringify({ id: 'chat-1', messages: [{ role: 'user', content: 'the key?' }] });
/** useChat of SDK 5+: messages with `parts` and no `content`. */
const UI_BODY = JSON.stringify({
  id: 'chat-2',
  messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'the key?' }] }],
  trigger: 'submit-message',
});

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

/** Installs the hook; `seen` collects the probes the recognisers were asked about. */
function install(target: FetchHookTarget, verdicts: boolean, seen: WireProbe[] = []): void {
  installFetchHook(target, {
    detectAdapter: (probe) => {
      seen.push(probe);
      return recogniseResponse(probe);
    },
    createWireGuard: (recogniser) => localWireGuard(recogniser),
    chatRequest: verdicts
      ? (input, init) => requestVerdictOf(input, init, { baseUrl: () => ORIGIN })
      : (input, init) => chatRequestOf(input, init, { baseUrl: () => ORIGIN }),
  });
}

const textStream = `Here: ${SECRET.slice(0, 12)}` + `${SECRET.slice(12)} ok`;

describe('fetch hook: AI SDK answers (issue 20 §1)', () => {
  it('guards the plain text stream of a useChat request on any route, known by the body', async () => {
    const seen: WireProbe[] = [];
    const realm = realmWith(
      () => new Response(textStream, { headers: { 'content-type': 'text/plain; charset=utf-8' } }),
    );
    install(realm, true, seen);
    const response = await realm.fetch('/api/my-assistant', { method: 'POST', body: V4_BODY });
    const text = await response.text();
    expect(text).toBe('Here: [redacted:github-pat] ok');
    expect(seen.some((probe) => probe.requestShape === 'ai-sdk-v4')).toBe(true);
  });

  it('reads the request shape only from a body it read whole, never from a GET', async () => {
    const options = { baseUrl: () => ORIGIN };
    expect(await requestVerdictOf('/x', { method: 'POST', body: UI_BODY }, options)).toEqual({
      chat: true,
      shape: 'ai-sdk-ui',
    });
    expect(await requestVerdictOf('/x', { method: 'POST', body: V4_BODY }, options)).toEqual({
      chat: true,
      shape: 'ai-sdk-v4',
    });
    const openAi = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(await requestVerdictOf('/x', { method: 'POST', body: openAi }, options)).toEqual({
      chat: true,
    });
    expect(await requestVerdictOf('/x?messages=1', undefined, options)).toEqual({ chat: false });
  });

  it('hands the recognisers the marker header of a UI message stream', async () => {
    const seen: WireProbe[] = [];
    const chunks = [`Here: ${SECRET.slice(0, 12)}`, `${SECRET.slice(12)} ok`]
      .map((delta) => `data: ${JSON.stringify({ type: 'text-delta', id: '0', delta })}\n\n`)
      .join('');
    const body =
      `data: {"type":"start"}\n\ndata: {"type":"text-start","id":"0"}\n\n${chunks}` +
      `data: {"type":"text-end","id":"0"}\n\ndata: {"type":"finish"}\n\ndata: [DONE]\n\n`;
    const realm = realmWith(
      () =>
        new Response(body, {
          headers: {
            'content-type': 'text/event-stream',
            'x-vercel-ai-ui-message-stream': 'v1',
          },
        }),
    );
    install(realm, true, seen);
    const response = await realm.fetch('/api/chat-ui', { method: 'POST', body: UI_BODY });
    const text = await response.text();
    expect(text).toContain('[redacted:github-pat]');
    expect(text).not.toContain('EXAMPLEexam');
    expect(seen.some((p) => p.headers?.['x-vercel-ai-ui-message-stream'] === 'v1')).toBe(true);
  });
});
