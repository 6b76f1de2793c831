/**
 * Issue 18 §1 in the page: which requests the fetch hook marks as chat-shaped,
 * read from copies of their bodies (the page's own objects stay unread).
 */
import { describe, expect, it } from 'vitest';
import { chatRequestOf, isChatRequestBody } from '../../../src/page/chat-request-probe.ts';

const options = { baseUrl: () => 'https://app.example/chat' };
const chat = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
const other = JSON.stringify({ theme: 'dark' });

describe('chatRequestOf', () => {
  it('reads a string body', async () => {
    expect(await chatRequestOf('/api/stream', { method: 'POST', body: chat }, options)).toBe(true);
    expect(await chatRequestOf('/api/save', { method: 'POST', body: other }, options)).toBe(false);
  });

  it('judges only once the site routes are there (`ready`), and never rejects meanwhile', async () => {
    // The route part of the verdict reads routes the bridge sends (page-site-routes.ts).
    let release!: () => void;
    const routes = new Promise<void>((resolve) => (release = resolve));
    let judged = 0;
    const waiting = {
      ...options,
      ready: () => routes,
      judge: <T>(decide: () => T) => (judged++, decide()),
    };
    const verdict = chatRequestOf('/api/stream', { method: 'POST', body: chat }, waiting);
    const unreadable = chatRequestOf(
      '/api/stream',
      { method: 'POST', body: new Blob([chat]).stream() as unknown as BodyInit },
      waiting,
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(judged).toBe(0);
    release();
    expect(await verdict).toBe(true);
    expect(await unreadable).toBe(false);
    expect(judged).toBe(2);
  });

  it('reads a Request from a clone: the page can still read its body', async () => {
    const request = new Request('https://app.example/api/stream', { method: 'POST', body: chat });
    expect(await chatRequestOf(request, undefined, options)).toBe(true);
    expect(request.bodyUsed).toBe(false);
    expect(await request.text()).toBe(chat);
  });

  it('reads Blob, buffer, URLSearchParams and FormData bodies (files never)', async () => {
    const post = (body: BodyInit) => chatRequestOf('/x', { method: 'POST', body }, options);
    expect(await post(new Blob([chat]))).toBe(true);
    expect(await post(new TextEncoder().encode(chat))).toBe(true);
    expect(await post(new TextEncoder().encode(chat).buffer)).toBe(true);
    expect(await post(new URLSearchParams({ prompt: 'hi' }))).toBe(true);
    const form = new FormData();
    form.append('prompt', 'hi');
    expect(await post(form)).toBe(true);
    const upload = new FormData();
    upload.append('file', new Blob(['{"messages":[1]}']), 'a.json');
    expect(await post(upload)).toBe(false);
  });

  it('a long body is searched for the keys in its first bytes only', async () => {
    const long = new Blob([`{"messages":[{"content":"${'a'.repeat(5 * 1024 * 1024)}"}]}`]);
    expect(await chatRequestOf('/x', { method: 'POST', body: long }, options)).toBe(true);
  });

  it('GETs are not chat requests; a stream body counts by its route only', async () => {
    expect(await chatRequestOf('/api/stream?q=hi', undefined, options)).toBe(false);
    const stream = () => new Blob([chat]).stream();
    const init = { method: 'POST', body: stream(), duplex: 'half' } as RequestInit;
    expect(await chatRequestOf('/api/stream', init, options)).toBe(false);
    const routed = { method: 'POST', body: stream(), duplex: 'half' } as RequestInit;
    expect(await chatRequestOf('/v1/chat/completions', routed, options)).toBe(true);
  });

  it('never throws or rejects', async () => {
    expect(await chatRequestOf('http://[bad', { method: 'POST', body: chat }, options)).toBe(false);
    const judge = () => {
      throw new Error('boom');
    };
    expect(await chatRequestOf('/x', { method: 'POST', body: chat }, { ...options, judge })).toBe(
      false,
    );
  });
});

describe('isChatRequestBody (XMLHttpRequest.send)', () => {
  const request = { url: 'https://app.example/api/stream', method: 'POST', contentType: '' };

  it('reads strings, forms and buffers; a Blob counts by its route only', () => {
    expect(isChatRequestBody(request, chat)).toBe(true);
    expect(isChatRequestBody(request, other)).toBe(false);
    expect(isChatRequestBody(request, new URLSearchParams({ prompt: 'hi' }))).toBe(true);
    expect(isChatRequestBody(request, new TextEncoder().encode(chat))).toBe(true);
    expect(isChatRequestBody(request, new TextEncoder().encode(chat).buffer)).toBe(true);
    expect(isChatRequestBody(request, new Blob([chat]))).toBe(false);
    const routed = { ...request, url: 'https://api.example/v1/chat/completions' };
    expect(isChatRequestBody(routed, new Blob([chat]))).toBe(true);
    expect(isChatRequestBody({ ...request, method: 'GET' }, chat)).toBe(false);
    expect(isChatRequestBody(request, undefined)).toBe(false);
  });
});
