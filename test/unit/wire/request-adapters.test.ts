/**
 * Request side of the wire layer: for each provider, where the new text, the
 * attachments and the history sit, and that a rewrite changes only those
 * strings (every other byte of the body stays as the page wrote it).
 */
import { describe, expect, it } from 'vitest';
import { detectRequestAdapter } from '../../../src/core/wire/requests/request-registry.ts';
import type { RequestText } from '../../../src/core/wire/requests/request-text.ts';

interface Case {
  name: string;
  url: string;
  body: string;
  /** [part, role, text] of every located string, in order. */
  texts: [RequestText['part'], RequestText['role'], string][];
  sendsHistory: boolean;
}

const NEW = 'my key is ghp_EXAMPLEexampleEXAMPLEexample01234567 é 😀';

const cases: Case[] = [
  {
    name: 'openai-chat',
    url: 'https://api.openai.com/v1/chat/completions',
    body: `{"model":"gpt-4o","stream":true,"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},{"role":"user","content":[{"type":"text","text":${JSON.stringify(NEW)}},{"type":"image_url","image_url":{"url":"data:x"}}]}],"temperature":0.70}`,
    texts: [
      ['system', 'system', 'Be brief.'],
      ['history', 'user', 'hi'],
      ['history', 'assistant', 'hello'],
      ['new', 'user', NEW],
    ],
    sendsHistory: true,
  },
  {
    name: 'open-webui (openai shape)',
    url: 'http://localhost:3000/api/chat/completions',
    body: `{"stream": true, "model": "llama3", "messages": [{"role": "user", "content": ${JSON.stringify(NEW)}}], "chat_id": "c1"}`,
    texts: [['new', 'user', NEW]],
    sendsHistory: true,
  },
  {
    name: 'anthropic',
    url: 'https://api.anthropic.com/v1/messages',
    body: `{"model":"claude","max_tokens":1024,"system":[{"type":"text","text":"sys"}],"messages":[{"role":"user","content":"q1"},{"role":"assistant","content":[{"type":"text","text":"a1"},{"type":"tool_use","id":"t","name":"n","input":{}}]},{"role":"user","content":${JSON.stringify(NEW)}}]}`,
    texts: [
      ['system', 'system', 'sys'],
      ['history', 'user', 'q1'],
      ['history', 'assistant', 'a1'],
      ['new', 'user', NEW],
    ],
    sendsHistory: true,
  },
  {
    name: 'openai-responses',
    url: 'https://api.openai.com/v1/responses',
    body: `{"model":"gpt-5","instructions":"ins","input":[{"role":"user","content":[{"type":"input_text","text":${JSON.stringify(NEW)}}]}]}`,
    texts: [
      ['system', 'system', 'ins'],
      ['new', 'user', NEW],
    ],
    sendsHistory: true,
  },
  {
    name: 'gemini-api',
    url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini:streamGenerateContent?alt=sse',
    body: `{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"text":"a"}]},{"role":"user","parts":[{"text":${JSON.stringify(NEW)}}]}]}`,
    texts: [
      ['history', 'user', 'q'],
      ['history', 'assistant', 'a'],
      ['new', 'user', NEW],
    ],
    sendsHistory: true,
  },
  {
    name: 'ollama',
    url: 'http://127.0.0.1:11434/api/chat',
    body: `{"model":"llama3","messages":[{"role":"user","content":${JSON.stringify(NEW)},"images":[]}],"stream":true}`,
    texts: [['new', 'user', NEW]],
    sendsHistory: true,
  },
  {
    name: 'chatgpt-web (new message and the pre-warm partial query)',
    url: 'https://chatgpt.com/backend-api/f/conversation',
    body: `{"action":"next","messages":[{"id":"u1","author":{"role":"user"},"create_time":1781867837.054,"content":{"content_type":"text","parts":[${JSON.stringify(NEW)}]},"metadata":{}}],"parent_message_id":"client-created-root","model":"auto","partial_query":{"content":{"parts":["my key is gh"]}}}`,
    texts: [
      ['new', 'user', NEW],
      ['new', 'user', 'my key is gh'],
    ],
    sendsHistory: false,
  },
  {
    name: 'claude-web (prompt and extracted attachment text)',
    url: 'https://claude.ai/api/organizations/o1/chat_conversations/c1/completion',
    body: `{"prompt":${JSON.stringify(NEW)},"parent_message_uuid":"p","timezone":"UTC","attachments":[{"file_name":"a.txt","file_size":3,"extracted_content":"doc text"}],"files":[],"rendering_mode":"messages"}`,
    texts: [
      ['new', 'user', NEW],
      ['attachment', 'user', 'doc text'],
    ],
    sendsHistory: false,
  },
  {
    name: 'deepseek-web',
    url: 'https://chat.deepseek.com/api/v0/chat/completion',
    body: `{"chat_session_id":"s","parent_message_id":null,"prompt":${JSON.stringify(NEW)},"ref_file_ids":[],"thinking_enabled":false}`,
    texts: [['new', 'user', NEW]],
    sendsHistory: false,
  },
  {
    name: 'librechat',
    url: 'http://localhost:3080/api/agents/chat/openAI',
    body: `{"text":${JSON.stringify(NEW)},"sender":"User","isCreatedByUser":true,"parentMessageId":"0"}`,
    texts: [['new', 'user', NEW]],
    sendsHistory: false,
  },
];

const geminiInner = JSON.stringify([
  [NEW, 0, null, [], null, null, 0],
  ['en'],
  ['', '', ''],
  null,
  null,
  null,
  null,
  1,
]);
cases.push({
  name: 'gemini-web (double-encoded form field)',
  url: 'https://gemini.google.com/_/BardChatUi/data/assistant.lamda.BardFrontendService/StreamGenerate?bl=x',
  body: `f.req=${encodeURIComponent(JSON.stringify([null, geminiInner]))}&at=AJvLN6M-EXAMPLE%3A1764400000000&`,
  texts: [['new', 'user', NEW]],
  sendsHistory: false,
});

describe.each(cases)('request adapter: $name', (c) => {
  const adapter = detectRequestAdapter({
    url: c.url,
    method: 'POST',
    contentType: 'application/json',
  });

  it('is detected from the route and locates every text', () => {
    expect(adapter).toBeDefined();
    expect(adapter!.sendsHistory).toBe(c.sendsHistory);
    expect(adapter!.locate(c.body).map((t) => [t.part, t.role, t.text])).toEqual(c.texts);
  });

  it('rewrites only the new text, byte for byte elsewhere', () => {
    const located = adapter!.locate(c.body);
    const edits = located
      .filter((t) => t.part === 'new')
      .map((t) => ({ path: t.path, value: t.text.replace(/ghp_\w+/, '[redacted:github-pat]') }));
    const out = adapter!.rewrite(c.body, edits);
    expect(adapter!.locate(out).map((t) => t.text)).toEqual(
      located.map((t) =>
        t.part === 'new' ? t.text.replace(/ghp_\w+/, '[redacted:github-pat]') : t.text,
      ),
    );
    if (!c.name.startsWith('gemini-web')) {
      // Every byte outside the replaced literal is the page's own.
      const literal = JSON.stringify(NEW);
      const replaced = JSON.stringify(NEW.replace(/ghp_\w+/, '[redacted:github-pat]'));
      expect(out).toBe(c.body.replace(literal, replaced));
    } else {
      expect(out.endsWith('&at=AJvLN6M-EXAMPLE%3A1764400000000&')).toBe(true);
    }
  });
});

describe('request adapters', () => {
  it('leave GET requests and unknown routes alone', () => {
    expect(
      detectRequestAdapter({
        url: 'https://chatgpt.com/backend-api/conversation/abc',
        method: 'GET',
        contentType: '',
      }),
    ).toBeUndefined();
    expect(
      detectRequestAdapter({
        url: 'https://example.org/api/save',
        method: 'POST',
        contentType: 'application/json',
      }),
    ).toBeUndefined();
  });

  it('reject a body that is not what the route promised', () => {
    const adapter = detectRequestAdapter({
      url: 'https://chat.deepseek.com/api/v0/chat/completion',
      method: 'POST',
      contentType: 'application/json',
    });
    expect(() => adapter!.locate('not json')).toThrow(SyntaxError);
  });
});
