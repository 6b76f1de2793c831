/**
 * History loads of the new chat sites (issue 20 §1), beyond what the shared
 * harness checks (byte identity, any split, block ending; test/fixtures/wire):
 * - HuggingChat's conversation document (WIRE-FORMATS-2.md §4.6 "History"),
 *   both the documented `/api/conversation/{id}` and the superjson
 *   `/api/v2/conversations/{id}`: the assistant's `content`, `reasoning` and
 *   `finalAnswer.text` are guarded as the stream is; the person's own message
 *   is left as written (DESIGN.md §3.8); read by the HuggingChat adapter, whose
 *   routes answer it (adapters/huggingchat-history.ts);
 * - Z.ai's `GET /api/v1/chats/{id}` (§3.5, inferred from Open WebUI) is read by
 *   the Open WebUI history adapter;
 * - the paths whose body no document gives (Grok §4.3, Qianwen §3.2, Doubao
 *   §3.3) go to the generic adapter when JSON, and only then.
 */
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { detectAdapter } from '../../../src/core/wire/adapter-registry.ts';
import { huggingChat } from '../../../src/core/wire/adapters/huggingchat.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { fixture } from '../../support/wire-harness.ts';

const pack = getCorePack();

interface ChatUiMessage {
  from: string;
  content: string;
  reasoning?: string;
  updates?: { type: string; text?: string }[];
}

function messagesOf(body: string): ChatUiMessage[] {
  const json = JSON.parse(body) as {
    messages?: ChatUiMessage[];
    json?: { messages: ChatUiMessage[] };
  };
  return json.messages ?? json.json?.messages ?? [];
}

describe('HuggingChat conversation document (§4.6 History)', () => {
  it.each(['history-secret.json', 'history-v2-secret.json'])(
    '%s: the assistant texts are guarded, the person’s message is not',
    (file) => {
      const body = fixture(`huggingchat/${file}`);
      const replay = replayBody(huggingChat, pack, [body]);
      const before = messagesOf(body);
      const after = messagesOf(replay.output);
      expect(after.map((m) => m.from)).toEqual(before.map((m) => m.from));
      const user = before.findIndex((m) => m.from === 'user');
      expect(after[user]?.content).toBe(before[user]?.content);
      expect(before[user]?.content).toContain('ghp_EXAMPLE');
      const bot = before.findIndex((m) => m.from === 'assistant');
      const answer = after[bot];
      expect(answer?.content).toBe(scanText(pack, before[bot]?.content ?? '').output);
      expect(answer?.content).toContain('[redacted:github-pat]');
      expect(answer?.content).not.toContain('collector.example.net/p');
      expect(answer?.reasoning).toBe(scanText(pack, before[bot]?.reasoning ?? '').output);
      const final = answer?.updates?.find((u) => u.type === 'finalAnswer');
      expect(final?.text).toBe(answer?.content);
    },
  );

  it.each(['{"message":"Conversation not found"}', '{"json":{"success":true}}'])(
    'a document with no messages (%s) passes as it is, unreported',
    (body) => {
      const replay = replayBody(huggingChat, pack, [body]);
      expect(replay.output).toBe(body);
      expect(replay.issues).toEqual([]);
    },
  );

  it('a document of another shape passes as it is and is reported', () => {
    const body = '{"conversation":{"turns":[]}}';
    const replay = replayBody(huggingChat, pack, [body]);
    expect(replay.output).toBe(body);
    expect(replay.issues.length).toBeGreaterThan(0);
  });

  it('both routes are the HuggingChat adapter’s; its answer stream is still read as one', () => {
    const probe = { contentType: 'application/json', head: '{"messages":[' };
    for (const url of [
      'https://huggingface.co/chat/api/conversation/6750f0a1b2c3d4e5f6a7b8c9',
      'https://huggingface.co/chat/api/v2/conversations/6750f0a1b2c3d4e5f6a7b8c9',
    ]) {
      expect(detectAdapter({ ...probe, url })?.id).toBe('huggingchat');
    }
    // The answer stream's first line is an update, not a document: the stream's session
    // reads it (its own fixtures, through the harness, end with its own block ending).
    const stream = fixture('huggingchat/conversation-secret-split.jsonl');
    const replay = replayBody(huggingChat, pack, [stream]);
    expect(replay.output).toContain('"type":"finalAnswer"');
    expect(replay.output).toContain('[redacted:github-pat]');
  });

  it('a conversation document split anywhere gives the single-chunk result', () => {
    const body = fixture('huggingchat/history-secret.json');
    const whole = replayBody(huggingChat, pack, [body]).output;
    for (const at of [1, 17, body.length >> 1, body.length - 1]) {
      expect(replayBody(huggingChat, pack, [body.slice(0, at), body.slice(at)]).output).toBe(whole);
    }
  });
});

describe('history paths with no documented body (§4.3, §3.2, §3.3)', () => {
  const urls = [
    'https://grok.com/rest/app-chat/conversations/c-1/load-responses',
    'https://www.qianwen.com/api/v2/conversation/history?sessionId=s-1',
    'https://www.doubao.com/im/chain/single?aid=497858',
  ];

  it.each(urls)('%s: a JSON answer goes to the generic adapter', (url) => {
    expect(detectAdapter({ url, contentType: 'application/json', head: '{"a":1}' })?.id).toBe(
      'generic',
    );
  });

  it.each(urls)('%s: an answer that is not JSON (protobuf, HTML) is left alone', (url) => {
    for (const contentType of ['application/x-protobuf', 'text/html']) {
      expect(detectAdapter({ url, contentType, head: '\u0008\u0001' })).toBeUndefined();
    }
  });
});

describe('Z.ai chat document (§3.5 History, inferred from Open WebUI)', () => {
  it('is read by the Open WebUI history adapter: assistant guarded, the person’s text kept', () => {
    const body = fixture('zai/chat-history-secret.json');
    const url = 'https://chat.z.ai/api/v1/chats/3c9e4f2a-7b1d-4e8a-9f60-1a2b3c4d5e6f';
    const adapter = detectAdapter({ url, contentType: 'application/json', head: body });
    expect(adapter?.id).toBe('open-webui-history');
    const replay = replayBody(adapter!, pack, [body]);
    type Doc = { chat: { messages: { role: string; content: string }[] } };
    const after = (JSON.parse(replay.output) as Doc).chat.messages;
    const before = (JSON.parse(body) as Doc).chat.messages;
    expect(after[0]?.content).toBe(before[0]?.content);
    expect(after[1]?.content).toBe(scanText(pack, before[1]?.content ?? '').output);
    expect(after[1]?.content).toContain('[redacted:github-pat]');
  });
});
