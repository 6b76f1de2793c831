/**
 * The MAIN-world fetch hook, in a fresh JavaScript realm (node:vm) with a fake native
 * fetch: which requests are guarded, what the guarded Response keeps, and that the
 * replacement looks native.
 */

import { createContext, runInContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  guardResponse,
  installFetchHook,
  isGuardedRequest,
  isGuardedResponse,
  type FetchHookTarget,
} from '../../src/page/fetch-hook.ts';

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
    Object.defineProperties(original, {
      url: { value: 'http://127.0.0.1:8080/api/chat' },
      redirected: { value: true },
    });
    const guarded = guardResponse(original, upperCaseGuard);
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
    const guarded = guardResponse(original, () => {
      throw new Error('engine failed');
    });
    await expect(guarded.text()).rejects.toThrow('engine failed');
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
      failing,
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
    ).rejects.toThrow('rule failed');
    expect(seen).toBe('ok ');
  });
});

describe('installFetchHook', () => {
  it('guards the answer of a same-origin POST to /api/chat', async () => {
    const realm = realmWith(() => plainResponse([new TextEncoder().encode('secret answer')]));
    installFetchHook(realm, upperCaseGuard);
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
    installFetchHook(realm, upperCaseGuard);
    expect(await realm.fetch('/api/echo', { method: 'POST' })).toBe(responses[0]);
    expect(await realm.fetch('/api/chat')).toBe(responses[1]);
    expect(await realm.fetch('https://other.example/api/chat', { method: 'POST' })).toBe(
      responses[2],
    );
  });

  it('leaves non-text answers of the guarded endpoint untouched', async () => {
    const json = new Response('{"a":1}', { headers: { 'content-type': 'application/json' } });
    const realm = realmWith(() => json);
    installFetchHook(realm, upperCaseGuard);
    expect(await realm.fetch('/api/chat', { method: 'POST' })).toBe(json);
  });

  it('passes `this` and all arguments to the native fetch', async () => {
    const realm = realmWith(() => new Response('x'));
    installFetchHook(realm, upperCaseGuard);
    const init = { method: 'GET', headers: { a: 'b' } };
    await realm.fetch.call(realm, '/x', init);
    expect(realm.calls[0]).toEqual({ input: '/x', init, self: realm });
  });

  it('looks native: name, length, toString and property flags', () => {
    const realm = realmWith(() => new Response('x'));
    const before = realm.evaluate<string>('Function.prototype.toString.call(fetch)');
    const descriptor = Object.getOwnPropertyDescriptor(realm, 'fetch');
    const original = installFetchHook(realm, upperCaseGuard);
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
    const original = installFetchHook(realm, upperCaseGuard);
    const hooked = realm.fetch;
    expect(installFetchHook(realm, upperCaseGuard)).toBe(original);
    expect(realm.fetch).toBe(hooked);
  });

  it('leaves toString of other functions alone', () => {
    const realm = realmWith(() => new Response('x'));
    installFetchHook(realm, upperCaseGuard);
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
