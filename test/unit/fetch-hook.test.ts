/**
 * The MAIN-world fetch hook, in a fresh JavaScript realm (node:vm) with a fake native
 * fetch: which requests are guarded (the plain-text chat endpoint; every response a wire
 * adapter recognises, with the real registry and core pack), what the guarded Response
 * keeps, how errors surface, and that the replacement looks native.
 */

import { createContext, runInContext } from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { detectAdapter } from '../../src/core/wire/adapter-registry.ts';
import type { WireAdapter, WireProbe } from '../../src/core/wire/wire-event.ts';
import {
  guardResponse,
  installFetchHook,
  isGuardedRequest,
  isGuardedResponse,
  newFetchHookStats,
  type FetchHookOptions,
  type FetchHookTarget,
} from '../../src/page/fetch-hook.ts';
import { GUARD_FAILURE_MESSAGE } from '../../src/page/guarded-response.ts';
import { localWireGuard, textGuardAsBytes } from '../support/local-guards.ts';
import { fixture } from '../support/wire-harness.ts';
import { fakeGithubToken } from '../mock-chat/scripted-answers.ts';

/**
 * A native Response has the URL of its request and says whether it was redirected; Node's
 * cannot be given either. The hooks read both through Response.prototype's getters as
 * captured when they load (src/page/intrinsics.ts), so the getters are taught, before
 * anything is imported, to answer what the fake network said for a response.
 */
const { fromNetwork } = vi.hoisted(() => {
  const meta = new WeakMap<object, Record<string, unknown>>();
  for (const key of ['url', 'redirected']) {
    const native = Object.getOwnPropertyDescriptor(Response.prototype, key)!;
    Object.defineProperty(Response.prototype, key, {
      ...native,
      get(this: Response) {
        const told = meta.get(this);
        return told && key in told ? told[key] : native.get!.call(this);
      },
    });
  }
  return {
    fromNetwork: <R extends Response>(
      response: R,
      told: { url?: string; redirected?: boolean },
    ) => {
      meta.set(response, told);
      return response;
    },
  };
});

const location = { href: 'http://127.0.0.1:8080/chat/1', origin: 'http://127.0.0.1:8080' };

/** A stand-in for the guard: upper-cases text, so a guarded body is easy to recognise. */
const upperCaseGuard = () =>
  new TransformStream<string, string>({
    transform(chunk, controller) {
      controller.enqueue(chunk.toUpperCase());
    },
  });

function streamOf(parts: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

function plainResponse(parts: Uint8Array[], init: ResponseInit = {}): Response {
  return new Response(streamOf(parts), {
    status: 200,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'content-length': '99' },
    ...init,
  });
}

interface Realm extends FetchHookTarget {
  calls: { input: unknown; init: unknown; self: unknown }[];
  evaluate<T>(code: string): T;
}

/** A fresh realm whose `fetch` answers `respond` and records its calls. */
function realmWith(respond: (input: unknown) => Response): Realm {
  const context = createContext({});
  const calls: Realm['calls'] = [];
  const evaluate = <T>(code: string) => runInContext(code, context) as T;
  const global = evaluate<Record<string, unknown>>('globalThis');
  const makeFetch = evaluate<(impl: unknown) => typeof fetch>(
    '(impl) => ({ fetch(input) { return impl(this, input, arguments[1]); } }).fetch',
  );
  Object.defineProperty(global, 'fetch', {
    value: makeFetch((self: unknown, input: unknown, init: unknown) => {
      calls.push({ input, init, self });
      return Promise.resolve(respond(input));
    }),
    writable: true,
    enumerable: true,
    configurable: true,
  });
  global.location = location;
  return Object.assign(global as unknown as FetchHookTarget, { calls, evaluate });
}

describe('isGuardedRequest', () => {
  it.each([
    ['/api/chat', { method: 'POST' }, true],
    ['/api/chat', { method: 'post' }, true],
    ['http://127.0.0.1:8080/backend/api/chat', { method: 'POST' }, true],
    [new URL('http://127.0.0.1:8080/api/chat'), { method: 'POST' }, true],
    ['/api/chat', undefined, false],
    ['/api/chat', { method: 'GET' }, false],
    ['/api/chat/history', { method: 'POST' }, false],
    ['/api/echo', { method: 'POST' }, false],
    ['http://127.0.0.1:9999/api/chat', { method: 'POST' }, false],
    ['https://evil.example/api/chat', { method: 'POST' }, false],
    ['http://[bad', { method: 'POST' }, false],
  ] as const)('%s %o → %s', (input, init, expected) => {
    expect(isGuardedRequest(input, init, location)).toBe(expected);
  });

  it('reads method and URL from a Request', () => {
    const request = new Request('http://127.0.0.1:8080/api/chat', { method: 'POST', body: 'x' });
    expect(isGuardedRequest(request, undefined, location)).toBe(true);
    expect(isGuardedRequest(request, { method: 'GET' }, location)).toBe(false);
  });
});

describe('isGuardedResponse', () => {
  it('guards text/plain bodies only', () => {
    const encode = (s: string) => [new TextEncoder().encode(s)];
    expect(isGuardedResponse(plainResponse(encode('a')))).toBe(true);
    expect(
      isGuardedResponse(plainResponse(encode('a'), { headers: { 'content-type': 'Text/Plain' } })),
    ).toBe(true);
    expect(
      isGuardedResponse(
        plainResponse(encode('a'), { headers: { 'content-type': 'text/event-stream' } }),
      ),
    ).toBe(false);
    expect(isGuardedResponse(new Response(null, { status: 204 }))).toBe(false);
  });
});

describe('guardResponse', () => {
  it('decodes across split UTF-8 sequences, guards, re-encodes and keeps metadata', async () => {
    const bytes = new TextEncoder().encode('héllo 世界 🙂 done');
    const parts = Array.from(bytes, (byte) => Uint8Array.of(byte));
    const original = plainResponse(parts, {
      status: 201,
      statusText: 'Created',
      headers: {
        'content-type': 'text/plain; charset=utf-8',
        'content-length': '99',
        'content-encoding': 'gzip',
        'x-request-id': 'r-1',
      },
    });
    fromNetwork(original, { url: 'http://127.0.0.1:8080/api/chat', redirected: true });
    const guarded = guardResponse(original, () => textGuardAsBytes(upperCaseGuard()));
    expect(guarded.status).toBe(201);
    expect(guarded.statusText).toBe('Created');
    expect(guarded.url).toBe('http://127.0.0.1:8080/api/chat');
    expect(guarded.redirected).toBe(true);
    expect(guarded.headers.get('x-request-id')).toBe('r-1');
    expect(guarded.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(guarded.headers.has('content-length')).toBe(false);
    expect(guarded.headers.has('content-encoding')).toBe(false);
    expect(await guarded.text()).toBe('HÉLLO 世界 🙂 DONE');
  });

  it('fails closed when the guard cannot be built', async () => {
    const original = plainResponse([new TextEncoder().encode('raw secret text')]);
    let reported: unknown;
    const guarded = guardResponse(
      original,
      () => {
        throw new Error('engine failed');
      },
      (error) => (reported = error),
    );
    await expect(guarded.text()).rejects.toThrow(GUARD_FAILURE_MESSAGE);
    expect(String(reported)).toContain('engine failed');
  });

  it('errors the body when the guard errors mid-stream (no raw text after the error)', async () => {
    const failing = () =>
      new TransformStream<string, string>({
        transform(chunk, controller) {
          if (chunk.includes('!')) throw new Error('rule failed');
          controller.enqueue(chunk);
        },
      });
    const encode = (s: string) => new TextEncoder().encode(s);
    const guarded = guardResponse(
      plainResponse([encode('ok '), encode('bad! '), encode('raw')]),
      () => textGuardAsBytes(failing()),
    );
    const reader = guarded.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = '';
    await expect(
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          seen += value;
        }
      })(),
    ).rejects.toThrow(GUARD_FAILURE_MESSAGE);
    expect(seen).toBe('ok ');
  });
});

const plainOnly: FetchHookOptions = { plainTextGuard: () => textGuardAsBytes(upperCaseGuard()) };

describe('installFetchHook', () => {
  it('guards the answer of a same-origin POST to /api/chat', async () => {
    const realm = realmWith(() => plainResponse([new TextEncoder().encode('secret answer')]));
    installFetchHook(realm, plainOnly);
    const response = await realm.fetch('/api/chat', { method: 'POST', body: '{}' });
    expect(await response.text()).toBe('SECRET ANSWER');
    expect(realm.calls).toHaveLength(1);
    expect(realm.calls[0]!.input).toBe('/api/chat');
  });

  it('returns every other response untouched (the same object)', async () => {
    const responses: Response[] = [];
    const realm = realmWith(() => {
      const response = plainResponse([new TextEncoder().encode('plain')]);
      responses.push(response);
      return response;
    });
    installFetchHook(realm, plainOnly);
    expect(await realm.fetch('/api/echo', { method: 'POST' })).toBe(responses[0]);
    expect(await realm.fetch('/api/chat')).toBe(responses[1]);
    expect(await realm.fetch('https://other.example/api/chat', { method: 'POST' })).toBe(
      responses[2],
    );
  });

  it('leaves non-text answers of the guarded endpoint untouched', async () => {
    const json = new Response('{"a":1}', { headers: { 'content-type': 'application/json' } });
    const realm = realmWith(() => json);
    installFetchHook(realm, plainOnly);
    expect(await realm.fetch('/api/chat', { method: 'POST' })).toBe(json);
  });

  it('passes `this` and all arguments to the native fetch', async () => {
    const realm = realmWith(() => new Response('x'));
    installFetchHook(realm, plainOnly);
    const init = { method: 'GET', headers: { a: 'b' } };
    await realm.fetch.call(realm, '/x', init);
    expect(realm.calls[0]).toEqual({ input: '/x', init, self: realm });
  });

  it('looks native: name, length, toString and property flags', () => {
    const realm = realmWith(() => new Response('x'));
    const before = realm.evaluate<string>('Function.prototype.toString.call(fetch)');
    const descriptor = Object.getOwnPropertyDescriptor(realm, 'fetch');
    const original = installFetchHook(realm, plainOnly);
    expect(realm.fetch).not.toBe(original);
    expect(realm.evaluate('fetch.name')).toBe('fetch');
    expect(realm.evaluate('fetch.length')).toBe(original.length);
    expect(realm.evaluate('Function.prototype.toString.call(fetch)')).toBe(before);
    expect(realm.evaluate('String(fetch)')).toBe(before);
    expect(realm.evaluate('fetch.toString()')).toBe(before);
    expect(realm.evaluate('Object.getOwnPropertyNames(fetch).sort().join()')).toBe(
      Object.getOwnPropertyNames(original).sort().join(),
    );
    expect(realm.evaluate('Function.prototype.toString.call(Function.prototype.toString)')).toBe(
      'function toString() { [native code] }',
    );
    expect(realm.evaluate("'prototype' in fetch")).toBe(false);
    const after = Object.getOwnPropertyDescriptor(realm, 'fetch');
    expect({ ...after, value: undefined }).toEqual({ ...descriptor, value: undefined });
  });

  it('installs once per target', () => {
    const realm = realmWith(() => new Response('x'));
    const original = installFetchHook(realm, plainOnly);
    const hooked = realm.fetch;
    expect(installFetchHook(realm, plainOnly)).toBe(original);
    expect(realm.fetch).toBe(hooked);
  });

  it('leaves toString of other functions alone', () => {
    const realm = realmWith(() => new Response('x'));
    installFetchHook(realm, plainOnly);
    expect(realm.evaluate('(function add(a, b) { return a + b; }).toString()')).toBe(
      'function add(a, b) { return a + b; }',
    );
    expect(realm.evaluate('Function.prototype.toString.call(Math.max)')).toBe(
      'function max() { [native code] }',
    );
    expect(() => realm.evaluate('Function.prototype.toString.call({})')).toThrow(
      /requires that 'this' be a Function/,
    );
    expect(realm.evaluate('fetch instanceof Function')).toBe(true);
  });
});

/** A body that delivers `parts` (then closes unless `open`) and records its cancellation. */
function sourceOf(parts: Uint8Array[], open = false) {
  const seen = { cancelled: false, reason: undefined as unknown };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      if (!open) controller.close();
    },
    cancel(reason) {
      seen.cancelled = true;
      seen.reason = reason;
    },
  });
  return { stream, seen };
}

/** The UTF-8 bytes of `text` cut into pieces of 1..`max` bytes (inside characters too). */
function bytePieces(text: string, max = 13): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const pieces: Uint8Array[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = 1 + ((i * 7 + 3) % max);
    pieces.push(bytes.slice(at, at + size));
    at += size;
  }
  return pieces;
}

function wireResponse(
  body: ReadableStream<Uint8Array> | string,
  type: string,
  meta: { url?: string; redirected?: boolean; headers?: Record<string, string> } = {},
): Response {
  const response = new Response(body, {
    status: 200,
    statusText: 'OK',
    headers: { 'content-type': type, 'content-length': '123', ...meta.headers },
  });
  return fromNetwork(response, { url: meta.url ?? '', redirected: meta.redirected ?? false });
}

async function readAll(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** The hook as main-world.ts installs it, with probes recorded. */
function wireHook(overrides: FetchHookOptions = {}) {
  const stats = newFetchHookStats();
  const probes: WireProbe[] = [];
  const options: FetchHookOptions = {
    plainTextGuard: () => textGuardAsBytes(upperCaseGuard()),
    detectAdapter: (probe) => {
      probes.push(probe);
      return detectAdapter(probe);
    },
    createWireGuard: localWireGuard,
    stats,
    ...overrides,
  };
  return { options, stats, probes };
}

describe('installFetchHook: wire formats', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('redacts a secret split across OpenAI chat events, whatever the network chunks', async () => {
    const sse = fixture('openai-chat/secret-split.sse');
    const { options, stats, probes } = wireHook();
    const realm = realmWith(() =>
      wireResponse(sourceOf(bytePieces(sse)).stream, 'text/event-stream; charset=utf-8', {
        url: 'https://api.example.com/proxy/stream',
      }),
    );
    installFetchHook(realm, options);
    const response = await realm.fetch('/proxy/stream', { method: 'POST', body: '{}' });
    const body = await response.text();
    expect(body).toContain('[redacted:github-pat]');
    expect(body).not.toContain('EXAMPLEexam');
    expect(body).toContain('"tool_calls"');
    expect(body.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(stats).toMatchObject({ wireGuarded: 1, decisionErrors: 0 });
    // Detected by the head (the URL says nothing), from the absolute response URL.
    expect(probes.at(-1)).toMatchObject({
      url: 'https://api.example.com/proxy/stream',
      method: 'POST',
      contentType: 'text/event-stream; charset=utf-8',
    });
    expect(probes.at(-1)!.head).toContain('"chat.completion.chunk"');
  });

  it('decides nothing before the site routes arrive (`ready`), then guards', async () => {
    // main-world.ts: the routes the recognisers read come from the bridge as data
    // (page-site-routes.ts); an answer that comes first waits, never passes raw.
    let release!: () => void;
    const routes = new Promise<void>((resolve) => (release = resolve));
    let pending = true;
    const { options, probes } = wireHook({ ready: () => (pending ? routes : undefined) });
    const sse = fixture('openai-chat/secret-split.sse');
    const realm = realmWith(() =>
      wireResponse(sourceOf(bytePieces(sse)).stream, 'text/event-stream', {
        url: 'https://api.example.com/proxy/stream',
      }),
    );
    installFetchHook(realm, options);
    let settled = false;
    const answer = realm.fetch('/proxy/stream', { method: 'POST', body: '{}' }).then((r) => {
      settled = true;
      return r;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    expect(probes).toEqual([]);
    pending = false;
    release();
    const body = await (await answer).text();
    expect(body).toContain('[redacted:github-pat]');
    expect(body).not.toContain('EXAMPLEexam');
  });

  it('redacts a secret split across Anthropic events', async () => {
    const sse = fixture('anthropic/secret-split.sse');
    const { options } = wireHook();
    const realm = realmWith(() =>
      wireResponse(sourceOf(bytePieces(sse, 5)).stream, 'text/event-stream'),
    );
    installFetchHook(realm, options);
    const body = await (await realm.fetch('/v1/messages', { method: 'POST' })).text();
    expect(body).toContain('[redacted:github-pat]');
    expect(body).not.toContain('EXAMPLEexam');
    expect(body).not.toContain('https://collector.example.net');
    expect(body).toContain('[image blocked: collector.example.net]');
    expect(body.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
  });

  it('passes a benign stream through byte for byte, with the metadata of the original', async () => {
    const sse = fixture('openai-chat/benign-crlf.sse');
    const pieces = bytePieces(sse, 9);
    const { options, stats } = wireHook();
    const realm = realmWith(() =>
      wireResponse(sourceOf(pieces).stream, 'text/event-stream', {
        url: 'http://127.0.0.1:8080/v1/chat/completions',
        redirected: true,
        headers: { 'content-encoding': 'br', 'x-request-id': 'r-9' },
      }),
    );
    installFetchHook(realm, options);
    const response = await realm.fetch('/v1/chat/completions', { method: 'POST' });
    expect(response.status).toBe(200);
    expect(response.statusText).toBe('OK');
    expect(response.ok).toBe(true);
    expect(response.url).toBe('http://127.0.0.1:8080/v1/chat/completions');
    expect(response.redirected).toBe(true);
    expect(response.headers.get('x-request-id')).toBe('r-9');
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.has('content-length')).toBe(false);
    expect(response.headers.has('content-encoding')).toBe(false);
    expect(await readAll(response.body!)).toEqual(new TextEncoder().encode(sse));
    expect(stats.wireGuarded).toBe(1);
  });

  it('serves clone(), tee() and BYOB readers on a guarded body', async () => {
    const sse = fixture('openai-chat/benign-crlf.sse');
    const { options } = wireHook();
    const realm = realmWith(() =>
      wireResponse(sourceOf(bytePieces(sse)).stream, 'text/event-stream'),
    );
    installFetchHook(realm, options);
    const first = await realm.fetch('/v1/chat/completions', { method: 'POST' });
    const copy = first.clone();
    const [a, b] = first.body!.tee();
    expect(text(await readAll(a))).toBe(sse);
    expect(text(await readAll(b))).toBe(sse);
    expect(await copy.text()).toBe(sse);

    const second = await realm.fetch('/v1/chat/completions', { method: 'POST' });
    const byob = second.body!.getReader({ mode: 'byob' });
    let got = '';
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await byob.read(new Uint8Array(64));
      if (done) break;
      got += decoder.decode(value, { stream: true });
    }
    expect(got).toBe(sse);
  });

  it('keeps url, redirected and type on clones of a guarded response, with a native clone()', async () => {
    const sse = fixture('openai-chat/benign-crlf.sse');
    const { options } = wireHook();
    const realm = realmWith(() =>
      wireResponse(sourceOf(bytePieces(sse)).stream, 'text/event-stream', {
        url: 'https://api.example.com/v1/chat/completions',
        redirected: true,
      }),
    );
    installFetchHook(realm, options);
    const response = await realm.fetch('/v1/chat/completions', { method: 'POST' });
    const copy = response.clone();
    const copyOfCopy = copy.clone();
    for (const r of [copy, copyOfCopy]) {
      expect(r.url).toBe('https://api.example.com/v1/chat/completions');
      expect(r.redirected).toBe(true);
      expect(r.headers.has('content-length')).toBe(false);
    }
    expect(response.clone.name).toBe('clone');
    expect(Function.prototype.toString.call(response.clone)).toBe(
      Function.prototype.toString.call(Response.prototype.clone),
    );
    expect(Object.keys(response)).not.toContain('clone');
    expect(await copyOfCopy.text()).toBe(sse);
    expect(await response.text()).toBe(sse);
  });

  it('serves json() on a guarded JSON answer, and on its clone', async () => {
    const answer = JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: `the key is ${fakeGithubToken()} ok` },
          finish_reason: 'stop',
        },
      ],
    });
    const { options, stats } = wireHook();
    const realm = realmWith(() =>
      wireResponse(sourceOf(bytePieces(answer)).stream, 'application/json'),
    );
    installFetchHook(realm, options);
    const response = await realm.fetch('/v1/chat/completions', { method: 'POST' });
    const copy = response.clone();
    type Answer = { choices: { message: { content: string } }[] };
    const [a, b] = (await Promise.all([response.json(), copy.json()])) as [Answer, Answer];
    expect(a).toEqual(b);
    expect(a.choices[0]!.message.content).toContain('[redacted:github-pat]');
    expect(JSON.stringify(a)).not.toContain(fakeGithubToken());
    expect(response.bodyUsed).toBe(true);
    expect(stats.wireGuarded).toBe(1);
  });

  it('an AbortSignal abort reaches the page as AbortError; the signal went to the native fetch', async () => {
    const encode = (s: string) => new TextEncoder().encode(s);
    const upstream = { errored: false };
    const realm: Realm = realmWith(() => respondWithSignal());
    // Like the browser: the native fetch watches the signal and errors the body with its reason.
    const respondWithSignal = () => {
      const signal = (realm.calls.at(-1)!.init as RequestInit).signal!;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encode('data: {"object":"chat.completion.chunk","choices":[]}\n\n'));
          signal.addEventListener('abort', () => {
            upstream.errored = true;
            controller.error(signal.reason);
          });
        },
      });
      return wireResponse(body, 'text/event-stream');
    };
    const { options, stats } = wireHook();
    installFetchHook(realm, options);

    // Aborted while the page reads.
    const reading = new AbortController();
    const response = await realm.fetch('/v1/chat/completions', {
      method: 'POST',
      signal: reading.signal,
    });
    expect((realm.calls.at(-1)!.init as RequestInit).signal).toBe(reading.signal);
    const reader = response.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    const pending = reader.read();
    reading.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(upstream.errored).toBe(true);

    // Aborted before the page read anything (the guard was not even built yet).
    const early = new AbortController();
    const second = await realm.fetch('/v1/chat/completions', {
      method: 'POST',
      signal: early.signal,
    });
    early.abort();
    await expect(second.text()).rejects.toMatchObject({ name: 'AbortError' });
    expect(stats.guardFailures).toBe(0);
  });

  it('returns an unrecognised JSON answer as the very same object, body intact', async () => {
    const json = '{"service":"status","ok":true,"items":[1,2,3]}';
    const original = wireResponse(json, 'application/json');
    const { options, stats } = wireHook();
    const realm = realmWith(() => original);
    installFetchHook(realm, options);
    const response = await realm.fetch('/api/status');
    expect(response).toBe(original);
    expect(response.headers.get('content-length')).toBe('123');
    expect(await response.json()).toEqual(JSON.parse(json));
    expect(stats).toMatchObject({ unrecognised: 1, wireGuarded: 0 });
  });

  it('does not peek at content types no adapter wants', async () => {
    const original = wireResponse('PNG…', 'image/png');
    const clone = vi.spyOn(original, 'clone');
    const { options, stats, probes } = wireHook();
    const realm = realmWith(() => original);
    installFetchHook(realm, options);
    expect(await realm.fetch('/logo.png')).toBe(original);
    expect(clone).not.toHaveBeenCalled();
    expect(probes.map((p) => p.head)).toEqual(['']);
    expect(stats.unrecognised).toBe(0);
  });

  it('stops peeking at an unrelated event stream after its first complete data event', async () => {
    const encode = (s: string) => new TextEncoder().encode(s);
    // A stream that stays open: waiting for 1 KB would hold the page's fetch forever.
    const { stream } = sourceOf([encode(': hi\n\n'), encode('event: tick\ndata: 1\n\n')], true);
    const original = wireResponse(stream, 'text/event-stream');
    const { options, stats } = wireHook();
    const realm = realmWith(() => original);
    installFetchHook(realm, options);
    const response = await realm.fetch('/notifications');
    expect(response).toBe(original);
    expect(stats.unrecognised).toBe(1);
    const reader = response.body!.getReader();
    expect(text((await reader.read()).value!)).toBe(': hi\n\n');
    expect(text((await reader.read()).value!)).toBe('event: tick\ndata: 1\n\n');
    await reader.cancel();
  });

  it('keeps the plain-text chat endpoint on the text guard', async () => {
    const { options, stats, probes } = wireHook();
    const realm = realmWith(() => plainResponse([new TextEncoder().encode('plain answer')]));
    installFetchHook(realm, options);
    const response = await realm.fetch('/api/chat', { method: 'POST' });
    expect(await response.text()).toBe('PLAIN ANSWER');
    expect(stats.plainTextGuarded).toBe(1);
    expect(probes).toEqual([]);
  });

  it('fails closed, with a report, when its own decision logic throws', async () => {
    const log = vi.spyOn(console, 'log');
    const warn = vi.spyOn(console, 'warn');
    const error = vi.spyOn(console, 'error');
    const { stream, seen } = sourceOf([new TextEncoder().encode('data: {}\n\n')], true);
    const reports: string[][] = [];
    const { options, stats } = wireHook({
      detectAdapter: () => {
        throw new Error('adapter bug');
      },
      reportFailure: (hook, reason) => reports.push([hook, reason]),
    });
    const realm = realmWith(() => wireResponse(stream, 'text/event-stream'));
    installFetchHook(realm, options);
    const answer = realm.fetch('/v1/chat/completions', { method: 'POST' });
    await expect(answer).rejects.toThrow(GUARD_FAILURE_MESSAGE);
    await expect(answer).rejects.toBeInstanceOf(TypeError);
    // The network body is stopped: none of it is read by anyone.
    await vi.waitFor(() => expect(seen.cancelled).toBe(true));
    expect(stats.decisionErrors).toBe(1);
    expect(reports).toEqual([['fetch', 'decision']]);
    expect(log).not.toHaveBeenCalled();
    expect(warn).not.toHaveBeenCalled();
    expect(error).not.toHaveBeenCalled();
  });

  it('passes the original through when the body fails while peeked', async () => {
    const failing = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.error(new DOMException('The operation was aborted.', 'AbortError'));
      },
    });
    const original = wireResponse(failing, 'text/event-stream');
    const { options, stats } = wireHook();
    const realm = realmWith(() => original);
    installFetchHook(realm, options);
    const response = await realm.fetch('/v1/chat/completions', { method: 'POST' });
    expect(response).toBe(original);
    await expect(response.text()).rejects.toMatchObject({ name: 'AbortError' });
    expect(stats.peekFailed).toBe(1);
  });

  it('fails closed when the wire guard fails mid-stream: nothing after the error point', async () => {
    const encode = (s: string) => new TextEncoder().encode(s);
    const head = 'data: {"object":"chat.completion.chunk","n":1}\n\n';
    const failingGuard = (): TransformStream<Uint8Array, Uint8Array> => {
      let n = 0;
      return new TransformStream({
        transform(chunk, controller) {
          if (++n === 2) throw new Error('render failed near ghp_ token');
          controller.enqueue(chunk.slice());
        },
      });
    };
    const { options, stats } = wireHook({ createWireGuard: failingGuard });
    const { stream, seen } = sourceOf([encode(head), encode('data: raw 1\n\n'), encode('x')], true);
    const realm = realmWith(() => wireResponse(stream, 'text/event-stream'));
    installFetchHook(realm, options);
    const response = await realm.fetch('/v1/chat/completions', { method: 'POST' });
    const reader = response.body!.getReader();
    let got = '';
    let failure: unknown;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        got += text(value);
      }
    } catch (error) {
      failure = error;
    }
    expect(got).toBe(head);
    expect(failure).toBeInstanceOf(TypeError);
    expect(String(failure)).toContain(GUARD_FAILURE_MESSAGE);
    expect(String(failure)).not.toContain('ghp_');
    expect(stats.guardFailures).toBe(1);
    await vi.waitFor(() => expect(seen.cancelled).toBe(true));
  });

  it('surfaces a network error or abort of a guarded body unchanged', async () => {
    const abort = new DOMException('The operation was aborted.', 'AbortError');
    let fail!: (reason: unknown) => void;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(
          new TextEncoder().encode('data: {"object":"chat.completion.chunk"}\n\n'),
        );
        fail = (reason) => controller.error(reason);
      },
    });
    const { options, stats } = wireHook();
    const realm = realmWith(() => wireResponse(stream, 'text/event-stream'));
    installFetchHook(realm, options);
    const response = await realm.fetch('/v1/chat/completions', { method: 'POST' });
    const reader = response.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    fail(abort);
    await expect(reader.read()).rejects.toBe(abort);
    expect(stats.guardFailures).toBe(0);
  });

  it('cancelling the guarded body cancels the upstream body', async () => {
    const encode = (s: string) => new TextEncoder().encode(s);
    const { stream, seen } = sourceOf(
      [encode('data: {"object":"chat.completion.chunk","choices":[]}\n\n')],
      true,
    );
    const { options } = wireHook();
    const realm = realmWith(() => wireResponse(stream, 'text/event-stream'));
    installFetchHook(realm, options);
    const response = await realm.fetch('/v1/chat/completions', { method: 'POST' });
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel(new DOMException('stop', 'AbortError'));
    await vi.waitFor(() => expect(seen.cancelled).toBe(true));
  });

  it('a guard that ends the stream (a block) closes the page body and cancels upstream', async () => {
    const encode = (s: string) => new TextEncoder().encode(s);
    const blockingGuard = (): TransformStream<Uint8Array, Uint8Array> =>
      new TransformStream({
        transform(chunk, controller) {
          controller.enqueue(encode('data: {"refused":true}\n\n'));
          controller.terminate();
        },
      });
    const { stream, seen } = sourceOf([encode('data: {"a":1}\n\n'), encode('data: raw\n\n')], true);
    const { options } = wireHook({ createWireGuard: blockingGuard });
    const realm = realmWith(() => wireResponse(stream, 'text/event-stream'));
    installFetchHook(realm, options);
    const response = await realm.fetch('/v1/chat/completions', { method: 'POST' });
    expect(await response.text()).toBe('data: {"refused":true}\n\n');
    await vi.waitFor(() => expect(seen.cancelled).toBe(true));
  });

  it('builds the probe from the request when the response has no URL', async () => {
    const { options, probes } = wireHook({
      detectAdapter: (probe: WireProbe): WireAdapter | undefined => {
        probes.push(probe);
        return undefined;
      },
    });
    const realm = realmWith(() => wireResponse('{"a":1}', 'Application/JSON; charset=UTF-8'));
    installFetchHook(realm, options);
    await realm.fetch(new Request('http://127.0.0.1:8080/api/x?y=1', { method: 'PUT', body: 'z' }));
    expect(probes.at(-1)).toEqual({
      url: 'http://127.0.0.1:8080/api/x?y=1',
      method: 'PUT',
      contentType: 'application/json; charset=utf-8',
      head: '{"a":1}',
    });
  });
});
