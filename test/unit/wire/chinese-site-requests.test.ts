/**
 * The sends of Doubao, Yuanbao and Qianwen (WIRE-FORMATS-2.md §3.3, §3.4,
 * §3.2; bodies shaped as those sections show them): recognised by their
 * routes, every copy of the person's text located (Yuanbao and Qianwen send it
 * twice), and rewritten with every other byte kept.
 */
import { describe, expect, it } from 'vitest';
import { detectRequestAdapter } from '../../../src/core/wire/requests/request-registry.ts';

const TEXT = 'deploy key ghp_EXAMPLEexampleEXAMPLEexample01234567 数据';

const cases = [
  {
    name: 'doubao-web',
    url: 'https://www.doubao.com/chat/completion?aid=497858&device_platform=web&msToken=x&a_bogus=y',
    body: JSON.stringify({
      client_meta: {
        local_conversation_id: 'local_1',
        conversation_id: 'c-1',
        bot_id: '7338286299411103781',
      },
      messages: [
        {
          local_message_id: 'u-1',
          content_block: [{ block_type: 10000, content: { text_block: { text: TEXT } } }],
        },
      ],
      option: { need_deep_think: 0, sse_recv_event_options: { support_chunk_delta: true } },
    }),
    copies: 1,
  },
  {
    name: 'yuanbao-web',
    url: 'https://yuanbao.tencent.com/api/chat/conv-0001',
    body: JSON.stringify({
      model: 'gpt_175B_0404',
      prompt: TEXT,
      plugin: 'Adaptive',
      displayPrompt: TEXT,
      displayPromptType: 1,
      agentId: 'naQivTmsDa',
      chatModelId: 'deep_seek_v3',
      multimedia: [],
      version: 'v2',
    }),
    copies: 2,
  },
  {
    name: 'qianwen-web',
    url: 'https://chat2.qianwen.com/api/v2/chat?biz_id=ai_qwen&chat_client=h5&device=pc&fr=pc&pr=qwen',
    body: JSON.stringify({
      model: 'Qwen',
      session_id: 's-1',
      scene: 'chat',
      messages: [{ content: TEXT, mime_type: 'text/plain', meta_data: { ori_query: TEXT } }],
      protocol_version: 'v2',
      biz_id: 'ai_qwen',
    }),
    copies: 2,
  },
];

describe.each(cases)('$name send', ({ name, url, body, copies }) => {
  const adapter = detectRequestAdapter(
    { url, method: 'POST', contentType: 'application/json' },
    body,
  );

  it('is recognised by its route and finds every copy of the new text', () => {
    expect(adapter?.name).toBe(name);
    const texts = adapter?.locate(body) ?? [];
    expect(texts.map((t) => t.text)).toEqual(Array<string>(copies).fill(TEXT));
    expect(texts.every((t) => t.part === 'new' && t.role === 'user')).toBe(true);
  });

  it('rewrites every copy and keeps every other byte', () => {
    const texts = adapter?.locate(body) ?? [];
    const out =
      adapter?.rewrite(
        body,
        texts.map((t) => ({ path: t.path, value: 'deploy key [redacted]' })),
      ) ?? '';
    expect(out).not.toContain('ghp_');
    expect(out.split('deploy key [redacted]')).toHaveLength(copies + 1);
    expect(out.replaceAll('"deploy key [redacted]"', JSON.stringify(TEXT))).toBe(body);
  });
});
