/**
 * The send hook fails closed when it cannot decide (src/page/outgoing-hook.ts): a
 * recogniser that throws — in the page, a site route missing from the bridge's table
 * (page-site-routes.ts `siteRoute` throws) — must not let the POST leave untouched,
 * which is what `prepare` answering undefined means.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createOutgoingHook } from '../../../src/page/outgoing-hook.ts';

const routes = vi.hoisted(() => ({ missing: false }));

vi.mock('../../../src/core/wire/site-route-table.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/core/wire/site-route-table.ts')>();
  return {
    ...real,
    onRoute: (...args: Parameters<typeof real.onRoute>) => {
      if (routes.missing) throw new TypeError('site route');
      return real.onRoute(...args);
    },
  };
});

function hook() {
  const guarded: string[] = [];
  let undecided = 0;
  const outgoing = createOutgoingHook({
    guard: (_request, body) => {
      guarded.push(body);
      return Promise.resolve({ send: true, body });
    },
    baseUrl: () => 'https://chat.example/c/1',
    undecided: () => void undecided++,
  });
  return { outgoing, guarded, undecided: () => undecided };
}

const post = (body: string, headers: HeadersInit = { 'content-type': 'application/json' }) => ({
  method: 'POST',
  headers,
  body,
});

afterEach(() => {
  routes.missing = false;
});

describe('outgoing hook, undecidable request', () => {
  it('refuses a POST whose recognition throws, and says so', async () => {
    routes.missing = true;
    const { outgoing, guarded, undecided } = hook();
    const prepared = outgoing.prepare('https://chat.example/api/chat', post('{"a":1}'));
    expect(prepared).toBeInstanceOf(Promise);
    await expect(prepared).rejects.toBeInstanceOf(TypeError);
    expect(guarded).toEqual([]);
    expect(undecided()).toBe(1);
  });

  it('refuses a request whose headers cannot be read, as fetch itself would', async () => {
    const { outgoing, undecided } = hook();
    const prepared = outgoing.prepare(
      'https://chat.example/api/chat',
      post('x', { 'bad name': 'v' }),
    );
    await expect(prepared).rejects.toBeInstanceOf(TypeError);
    expect(undecided()).toBe(1);
  });

  it('still leaves GETs and unrecognised POSTs alone when it can decide', () => {
    const { outgoing, undecided } = hook();
    expect(outgoing.prepare('https://chat.example/api/chat', undefined)).toBeUndefined();
    expect(outgoing.prepare('https://chat.example/upload', post('x', {}))).toBeUndefined();
    expect(undecided()).toBe(0);
  });
});
