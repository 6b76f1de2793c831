/**
 * Issue 18 §1: a request that looks like a chat request has its answer
 * guarded even when no response adapter claims it. What counts as chat-shaped.
 */
import { describe, expect, it } from 'vitest';
import {
  isChatRequest,
  isChatShapedBody,
} from '../../../src/core/wire/requests/chat-request-shape.ts';

const post = (url: string) => ({ url, method: 'POST', contentType: 'application/json' });

describe('chat-shaped requests', () => {
  it.each([
    ['messages', { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true }],
    ['a prompt', { prompt: 'Say hi', conversation_uuid: 'c' }],
    ['Responses input', { model: 'm', input: [{ role: 'user', content: 'hi' }] }],
    ['Gemini contents', { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }],
    ['Hugging Face inputs', { inputs: 'hi', parameters: {} }],
    ['a message text', { message: 'hi', chat_history: [] }],
    ['a Dify query', { query: 'hi', conversation_id: '', inputs: {} }],
    ['LibreChat text', { text: 'hi', conversationId: 'c', parentMessageId: 'p' }],
    ['a tRPC batch', { 0: { json: { messages: [{ role: 'user', content: 'hi' }] } } }],
    ['a wrapped body', { data: { prompt: 'hi' } }],
  ])('%s', (_name, body) => {
    expect(isChatShapedBody(JSON.stringify(body))).toBe(true);
    expect(isChatRequest(post('https://x.example/api/stream'), JSON.stringify(body))).toBe(true);
  });

  it('form bodies: Gemini web f.req, a prompt field', () => {
    expect(isChatShapedBody('f.req=%5B%5D&at=token')).toBe(true);
    expect(isChatShapedBody('prompt=hello&x=1')).toBe(true);
  });

  it.each([
    ['settings', { theme: 'dark', notifications: true }],
    ['empty messages', { messages: [] }],
    ['a login', { username: 'a', password: 'b' }],
    ['a list', [1, 2, 3]],
  ])('not %s', (_name, body) => {
    expect(isChatShapedBody(JSON.stringify(body))).toBe(false);
    expect(isChatRequest(post('https://x.example/api/save'), JSON.stringify(body))).toBe(false);
  });

  it('a known chat route is chat-shaped whatever its body; a GET never is', () => {
    expect(isChatRequest(post('https://api.example/v1/chat/completions'), undefined)).toBe(true);
    expect(isChatRequest({ ...post('https://x.example/api/stream'), method: 'GET' }, '{}')).toBe(
      false,
    );
    expect(isChatShapedBody('not json {')).toBe(false);
    expect(isChatShapedBody('{"messages": [')).toBe(false);
  });

  it('a very long body is judged by its keys without parsing', () => {
    const long = `{"messages":[{"role":"user","content":"${'a'.repeat(5 * 1024 * 1024)}"}]}`;
    expect(isChatShapedBody(long)).toBe(true);
  });
});
