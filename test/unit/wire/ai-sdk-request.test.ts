/**
 * AI SDK request bodies (WIRE-FORMATS-2.md §1.2): recognised by shape on any
 * URL, every user and assistant text located (full history is sent), and a
 * rewrite that changes only those strings.
 */
import { describe, expect, it } from 'vitest';
import {
  aiSdkRequestShape,
  aiSdkRequestShapeOfBody,
} from '../../../src/core/wire/requests/ai-sdk-request-shape.ts';
import { detectRequestAdapter } from '../../../src/core/wire/requests/request-registry.ts';

const NEW = 'My key is ghp_EXAMPLEexampleEXAMPLEexample01234567 é 😀';

/** §1.2: the body captured from the real SDK 6 transport, with the new text swapped in. */
const uiBody = JSON.stringify({
  id: 'chat_abc',
  messages: [
    { id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hello' }] },
    {
      id: 'm2',
      role: 'assistant',
      parts: [
        { type: 'step-start' },
        { type: 'reasoning', text: '...', state: 'done' },
        { type: 'text', text: 'Hi! How can I help?', state: 'done' },
      ],
    },
    { id: 'm3', role: 'user', parts: [{ type: 'text', text: NEW }] },
  ],
  trigger: 'submit-message',
});

/** §1.2 AI SDK 4 `useChat`: `{id, messages, …body}`, `content` and (4.2+) `parts`. */
const v4Body = JSON.stringify({
  id: 'chat_v4',
  messages: [
    { role: 'user', content: 'Hello', parts: [{ type: 'text', text: 'Hello' }] },
    { role: 'assistant', content: 'Hi!', parts: [{ type: 'text', text: 'Hi!' }] },
    { role: 'user', content: NEW, parts: [{ type: 'text', text: NEW }] },
  ],
});

const post = (url: string) => ({ url, method: 'POST', contentType: 'application/json' });
const triples = (body: string, url: string) =>
  detectRequestAdapter(post(url), body)
    ?.locate(body)
    .map((t) => [t.part, t.role, t.text]);

describe('AI SDK request shapes (§1.2)', () => {
  it('tells SDK 5+ and SDK 3/4 bodies from OpenAI-style and Ollama bodies', () => {
    expect(aiSdkRequestShapeOfBody(uiBody)).toBe('ai-sdk-ui');
    expect(aiSdkRequestShapeOfBody(v4Body)).toBe('ai-sdk-v4');
    const openai = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
    expect(aiSdkRequestShape(openai)).toBeUndefined();
    expect(aiSdkRequestShape({ ...openai, id: 'x' })).toBeUndefined();
    expect(aiSdkRequestShapeOfBody('{"messages":[]}')).toBeUndefined();
    expect(aiSdkRequestShapeOfBody('not json')).toBeUndefined();
  });

  it('an SDK 5+ body on any URL: every text part, the last user message new, reasoning left alone', () => {
    const adapter = detectRequestAdapter(post('https://app.example/api/assistant/send'), uiBody);
    expect(adapter?.name).toBe('ai-sdk');
    expect(adapter?.sendsHistory).toBe(true);
    expect(triples(uiBody, 'https://app.example/api/assistant/send')).toEqual([
      ['history', 'user', 'Hello'],
      ['history', 'assistant', 'Hi! How can I help?'],
      ['new', 'user', NEW],
    ]);
  });

  it('an SDK 4 body: content and its copy in parts are both located and both rewritten', () => {
    const adapter = detectRequestAdapter(post('https://app.example/api/chat'), v4Body);
    const texts = adapter?.locate(v4Body) ?? [];
    expect(texts.filter((t) => t.part === 'new').map((t) => t.path)).toEqual([
      ['messages', 2, 'content'],
      ['messages', 2, 'parts', 0, 'text'],
    ]);
    const edits = texts.filter((t) => t.part === 'new').map((t) => ({ path: t.path, value: 'X' }));
    expect(adapter?.rewrite(v4Body, edits)).toBe(v4Body.split(JSON.stringify(NEW)).join('"X"'));
  });

  it('on the default /api/chat path without the body, the route adapter still reads parts', () => {
    // Ollama shares the path; its adapter reads `parts` too, so the user text is never missed.
    const adapter = detectRequestAdapter(post('https://app.example/api/chat'));
    expect(adapter?.locate(uiBody).map((t) => t.text)).toEqual([
      'Hello',
      'Hi! How can I help?',
      NEW,
    ]);
  });

  it('useCompletion: the prompt on /api/completion', () => {
    const body = JSON.stringify({ prompt: NEW, temperature: 0.5 });
    expect(triples(body, 'https://app.example/api/completion')).toEqual([['new', 'user', NEW]]);
  });
});
