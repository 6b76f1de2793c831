import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  byteChunks,
  fakeGithubToken,
  pickAttack,
  scriptedAnswer,
} from '../mock-chat/scripted-answers.ts';
import { startMockChat, type MockChat } from '../mock-chat/server.ts';

describe('scripted answers', () => {
  it('picks the attack from the prompt', () => {
    expect(pickAttack('show me the SECRET')).toBe('secret');
    expect(pickAttack('an image please')).toBe('image');
    expect(pickAttack('tags')).toBe('tags');
    expect(pickAttack('hello')).toBe('plain');
  });

  it('builds a GitHub-PAT-shaped token with varied characters', () => {
    const token = fakeGithubToken();
    expect(token).toMatch(/^ghp_[A-Za-z0-9]{36}$/);
    expect(new Set(token.slice(4)).size).toBeGreaterThan(15);
    expect(scriptedAnswer('secret').text).toContain(token);
  });

  it('hides the tags payload in Unicode tag characters', () => {
    const { text, payload } = scriptedAnswer('tags');
    expect(payload.length).toBeGreaterThan(0);
    for (const ch of payload) {
      const cp = ch.codePointAt(0)!;
      expect(cp >= 0xe0000 && cp <= 0xe007f).toBe(true);
    }
    expect(text).toContain(payload);
  });

  it('carries an external image with a query string', () => {
    const { text, payload } = scriptedAnswer('image');
    expect(payload).toMatch(/^https:\/\/[^/]+\/\S*\?q=/);
    expect(text).toContain(`![summary chart](${payload})`);
  });

  it('splits the UTF-8 bytes into small chunks, inside multi-byte sequences too', () => {
    const text = scriptedAnswer('tags').text;
    const chunks = byteChunks(text);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(text);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(7);
    const splitsInside = chunks.some((chunk) => {
      const last = chunk[chunk.length - 1]!;
      return last >= 0xc0 || (last >= 0x80 && last < 0xc0);
    });
    expect(splitsInside).toBe(true);
  });
});

describe('mock chat server', () => {
  let chat: MockChat;
  beforeAll(async () => {
    chat = await startMockChat({ chunkDelayMs: 0 });
  });
  afterAll(async () => {
    await chat.close();
  });

  it('binds to loopback only', async () => {
    expect(chat.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await expect(startMockChat({ host: '0.0.0.0' })).rejects.toThrow(/loopback/);
  });

  it('serves the chat page with a nonce CSP', async () => {
    const res = await fetch(`${chat.url}/`);
    const html = await res.text();
    const csp = res.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(html).not.toContain('{{nonce}}');
  });

  it('streams the scripted answer as text/plain in several chunks', async () => {
    const res = await fetch(`${chat.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ prompt: 'secret' }),
    });
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('x-mock-attack')).toBe('secret');
    let reads = 0;
    let text = '';
    const decoder = new TextDecoder();
    const reader = res.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      reads++;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toBe(scriptedAnswer('secret').text);
    expect(reads).toBeGreaterThan(1);
  });

  it('answers 404, 405 and 400 where it should', async () => {
    expect((await fetch(`${chat.url}/nope`)).status).toBe(404);
    expect((await fetch(`${chat.url}/api/chat`)).status).toBe(405);
    const big = await fetch(`${chat.url}/api/chat`, { method: 'POST', body: 'x'.repeat(20_000) });
    expect(big.status).toBe(400);
  });
});
