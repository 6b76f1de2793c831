import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { historyFormatOfRequest } from '../../../src/core/outgoing/history-messages.ts';
import { findLabels } from '../../../src/core/outgoing/label-spans.ts';
import { projectHistory } from '../../../src/core/outgoing/project-history.ts';
import { getDefaultLabelPack } from '../../../src/core/outgoing/source-label-pack.ts';
import { detectRequestAdapter } from '../../../src/core/wire/requests/request-registry.ts';

const labels = getDefaultLabelPack();
const key = Buffer.from('test key for digests');
const digest = (text: string) => createHmac('sha256', key).update(text).digest('hex');

type Msg = Record<string, unknown>;
const u = (content: unknown): Msg => ({ role: 'user', content });
const a = (content: unknown, extra: Msg = {}): Msg => ({ role: 'assistant', content, ...extra });
const body = (messages: Msg[], extra: Msg = {}) =>
  JSON.stringify({ model: 'm', ...extra, messages }, null, 2);
const project = (messages: Msg[], options = {}) =>
  projectHistory(body(messages), 'openai-chat', { labels, ...options });
const sent = (messages: Msg[], options = {}) =>
  (JSON.parse(project(messages, options).body) as { messages: Msg[] }).messages;

const C1 = '这个视频画面好漂亮，色调很温柔呢。';
const C2 = '右下角那只猫好可爱，一直在打哈欠。';
const C3 = '字幕的颜色也很好看，很适合夜里看。';

describe('source labels are stripped from assistant messages (seed 001 §7.1.2 无条件去标签)', () => {
  it('the seed example: the first comment stays, cut at its sentence end', () => {
    const text = '好呀～屏幕搭话：这个视频画面好漂亮，色调很温柔呢。屏幕搭话：右下角那只猫好可爱……';
    expect(sent([u('hi'), a(text), u('next')])[1]).toEqual(
      a('好呀～这个视频画面好漂亮，色调很温柔呢。'),
    );
  });

  it('a single labelled comment loses its label even when short, and nothing else changes', () => {
    const r = project([u('hi'), a('嗯。【来源：屏幕截图】猫。'), u('next')]);
    expect((JSON.parse(r.body) as { messages: Msg[] }).messages[1]).toEqual(a('嗯。猫。'));
    expect(r.changes).toEqual([
      {
        action: 'strip-label',
        rule: 'zh-bracket-source',
        message: 1,
        part: null,
        start: 2,
        end: 11,
      },
    ]);
  });

  it('English labels: [Source: …], (via …), "screen comment:"; never in user messages', () => {
    const m = sent([
      u('[Source: me] keep this'),
      a('[Source: camera] The chart rises (via screen). Screen comment: fine.'),
      u('go'),
    ]);
    expect(m[0]).toEqual(u('[Source: me] keep this'));
    expect(m[1]).toEqual(a('The chart rises. fine.'));
  });

  it('a message of labels only leaves the view; with tool calls it stays, emptied', () => {
    const call = {
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
    };
    const r = project([
      u('hi'),
      a('屏幕搭话： '),
      u('x'),
      a('【屏幕画面】', call),
      { role: 'tool', tool_call_id: 'call_1', content: 'r' },
      u('y'),
    ]);
    const m = (JSON.parse(r.body) as { messages: Msg[] }).messages;
    expect(m).toEqual([
      u('hi'),
      u('x'),
      a('', call),
      { role: 'tool', tool_call_id: 'call_1', content: 'r' },
      u('y'),
    ]);
    expect(r.changes.filter((c) => c.action === 'drop' || c.action === 'empty')).toEqual([
      { action: 'drop', reason: 'label-only', message: 1 },
      { action: 'empty', reason: 'label-only', message: 3 },
    ]);
  });

  it('what is not a label stays (seed 001 §7.1.3): URLs, paths, link text, words', () => {
    const keep = [
      '看 https://host/屏幕搭话：a.png 这个。',
      '文件在 /tmp/屏幕搭话：a.png 里。',
      '路径 C:\\tmp\\[屏幕画面]\\b.png 对。',
      '链接 [屏幕画面](https://x.org/a) 好。',
      '屏幕搭话就是主动聊天的功能。',
      'A screenshot comment: none here.',
      'the prescreen comment: none',
      '[Source: doc](https://example.org) is a link.',
    ];
    for (const text of keep) expect(findLabels(labels, text), text).toEqual([]);
    const m = sent([u('hi'), ...keep.map((t) => a(t)), u('next')]);
    expect(m.slice(1, -1)).toEqual(keep.map((t) => a(t)));
  });

  it('a URL ends at 。, …, ～ and whitespace, so a label right after one is a label (§7.1.3)', () => {
    const m = sent([
      u('hi'),
      a('看 https://host/a.png～屏幕搭话：好看。 //cdn.host/x.png 屏幕搭话：嗯。'),
      u('q'),
    ]);
    expect(m[1]).toEqual(a('看 https://host/a.png～好看。 //cdn.host/x.png 嗯。'));
  });

  it('removing a label that joins a new one removes that too (the copy holds no label)', () => {
    const m = sent([u('hi'), a('嗯。屏幕屏幕搭话：搭话：猫在睡觉。'), u('q')]);
    expect(m[1]).toEqual(a('嗯。猫在睡觉。'));
  });
});

describe('chain truncation "成链截断" (seed 001 §7.1.2)', () => {
  it('short comments between two counting ones do not break the chain and are cut with it', () => {
    const text = `前言。屏幕搭话：${C1}屏幕搭话：嗯。屏幕搭话：${C2}`;
    expect(sent([u('hi'), a(text), u('q')])[1]).toEqual(a(`前言。${C1}`));
  });

  it('one counting comment is no chain: labels go, text stays', () => {
    const text = `屏幕搭话：${C1}屏幕搭话：嗯`;
    expect(sent([u('hi'), a(text), u('q')])[1]).toEqual(a(`${C1}嗯`));
  });

  it('a comment without a sentence end does not count (example.com is no sentence end)', () => {
    const text = `屏幕搭话：看看这个网站吧 example.com 屏幕搭话：${C2}`;
    expect(sent([u('hi'), a(text), u('q')])[1]).toEqual(a(`看看这个网站吧 example.com ${C2}`));
  });

  it('closing quotes after the sentence end stay with the first comment', () => {
    const text = `屏幕搭话：“${C1}”屏幕搭话：${C2}`;
    expect(sent([u('hi'), a(text), u('q')])[1]).toEqual(a(`“${C1}”`));
  });

  it('cuts per text part in a parts list; later text parts go, images stay', () => {
    const content = [
      { type: 'text', text: `屏幕搭话：${C1}` },
      { type: 'image_url', image_url: { url: 'https://img/1.png' } },
      { type: 'text', text: `屏幕搭话：${C2}` },
    ];
    expect(sent([u('hi'), a(content), u('q')])[1]).toEqual(
      a([
        { type: 'text', text: C1 },
        { type: 'image_url', image_url: { url: 'https://img/1.png' } },
      ]),
    );
  });
});

describe('the cross-message tail rule (seed 001 §7.1.3)', () => {
  it('[u, a, a, ask]: the chain spans the run; the message holding the cut point onward leaves', () => {
    const m = sent([
      u('hi'),
      a(`屏幕搭话：${C1}`),
      a(`屏幕搭话：${C2}`),
      a(`屏幕搭话：${C3}`),
      u('ask'),
    ]);
    expect(m).toEqual([u('hi'), a(C1), u('ask')]);
  });

  it('the cut message keeps its text before the cut, up to its last sentence end', () => {
    const m = sent([
      u('hi'),
      a(`好的！屏幕搭话：${C1}`),
      a(`嗯嗯。还有呢屏幕搭话：${C2}`),
      u('ask'),
    ]);
    expect(m).toEqual([u('hi'), a(`好的！${C1}`), a('嗯嗯。'), u('ask')]);
  });

  it('[a, a, u]: no user turn before the run, so no cross-message cut (labels still go)', () => {
    const m = sent([a(`屏幕搭话：${C1}`), a(`屏幕搭话：${C2}`), u('ask')]);
    expect(m).toEqual([a(C1), a(C2), u('ask')]);
  });

  it('[a, a, u1, ask]: only the run right before the last user turn is read', () => {
    const m = sent([u('0'), a(`屏幕搭话：${C1}`), a(`屏幕搭话：${C2}`), u('u1'), u('ask')]);
    expect(m).toEqual([u('0'), a(C1), a(C2), u('u1'), u('ask')]);
  });

  it('[u, a, tool, a, ask]: a tool result breaks the run', () => {
    const call = {
      tool_calls: [{ id: 'c9', type: 'function', function: { name: 'f', arguments: '{}' } }],
    };
    const tool = { role: 'tool', tool_call_id: 'c9', content: 'r' };
    const m = sent([u('hi'), a(`屏幕搭话：${C1}`, call), tool, a(`屏幕搭话：${C2}`), u('ask')]);
    expect(m).toEqual([u('hi'), a(C1, call), tool, a(C2), u('ask')]);
  });

  it('a run message with tool calls after the cut stays with its text emptied', () => {
    const call = {
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
    };
    const m = sent([u('hi'), a(`屏幕搭话：${C1}`), a(`屏幕搭话：${C2}`, call), u('ask')]);
    expect(m).toEqual([u('hi'), a(C1), a('', call), u('ask')]);
  });
});

describe('reference-only messages', () => {
  const history = [u('old question'), a('old answer'), u('second'), a('second answer'), u('now')];

  it('are left out by digest; the new message never is', () => {
    const marked = new Set([digest('old answer'), digest('now'), digest('old question')]);
    const r = project(history, { referenceOnly: marked, digest });
    expect((JSON.parse(r.body) as { messages: Msg[] }).messages).toEqual([
      u('second'),
      a('second answer'),
      u('now'),
    ]);
    expect(r.changes).toEqual([
      { action: 'drop', reason: 'reference-only', message: 0 },
      { action: 'drop', reason: 'reference-only', message: 1 },
    ]);
  });

  it('one carrying tool calls stays emptied and its tool results stay', () => {
    const call = {
      tool_calls: [{ id: 'call_7', type: 'function', function: { name: 'f', arguments: '{}' } }],
    };
    const tool = { role: 'tool', tool_call_id: 'call_7', content: 'result' };
    const m = sent([u('q'), a('I will look it up', call), tool, a('done'), u('now')], {
      referenceOnly: new Set([digest('I will look it up'), digest('result')]),
      digest,
    });
    expect(m).toEqual([u('q'), a('', call), tool, a('done'), u('now')]);
  });

  it('a user message with an image is left out whole when marked', () => {
    const withImage = u([
      { type: 'text', text: 'look' },
      { type: 'image_url', image_url: { url: 'data:1' } },
    ]);
    const m = sent([withImage, a('ok'), u('now')], {
      referenceOnly: new Set([digest('look')]),
      digest,
    });
    expect(m).toEqual([a('ok'), u('now')]);
  });

  it('needs a digest function', () => {
    expect(() => project(history, { referenceOnly: new Set(['x']) })).toThrow(/digest/);
  });
});

describe('the projection contract (DESIGN.md §3.8)', () => {
  it('an unchanged history returns the very same bytes', () => {
    const raw = body([u('a'), a('b'), u('c')], { temperature: 0.5, stream: true });
    expect(projectHistory(raw, 'openai-chat', { labels }).body).toBe(raw);
  });

  it('keeps every other field and byte: ids, names, reasoning, extras', () => {
    const raw =
      '{"model":"m",  "messages":[ {"role":"user","content":"hi","id":"u1"},' +
      ' {"role":"assistant","name":"bot","reasoning_content":"r","content":"屏幕搭话：' +
      C1 +
      '","id":"a1"} , {"role":"user","content":"q"}], "files":[{"id":"f"}], "n":1.50}';
    const out = projectHistory(raw, 'open-webui', { labels }).body;
    expect(out).toBe(raw.replace('屏幕搭话：', ''));
  });

  it('Anthropic: tool_use blocks and tool_result turns keep their ids; a tool_result turn is no user turn', () => {
    const messages = [
      u('hi'),
      a([{ type: 'text', text: `屏幕搭话：${C1}` }]),
      a([
        { type: 'text', text: `屏幕搭话：${C2}` },
        { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} },
      ]),
      u([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }]),
      u('ask'),
    ];
    const out = JSON.parse(
      projectHistory(body(messages, { system: 's' }), 'anthropic', { labels }).body,
    ) as {
      messages: Msg[];
    };
    expect(out.messages).toEqual([
      u('hi'),
      a([{ type: 'text', text: C1 }]),
      a([
        { type: 'text', text: C2 },
        { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} },
      ]),
      u([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }]),
      u('ask'),
    ]);
  });

  it('rejects unknown formats and bodies without a message list', () => {
    expect(() => projectHistory('{}', 'gemini-web', {})).toThrow(/format/);
    expect(() => projectHistory('{"prompt":"x"}', 'openai-chat', {})).toThrow(SyntaxError);
  });
});

describe('historyFormatOfRequest', () => {
  it('maps the request adapters of history-sending clients, and no other', () => {
    const of = (url: string) => {
      const adapter = detectRequestAdapter({
        url,
        method: 'POST',
        contentType: 'application/json',
      });
      return adapter === undefined ? undefined : historyFormatOfRequest(adapter.name);
    };
    expect(of('https://webui.local/api/chat/completions')).toBe('openai-chat');
    expect(of('https://lobe.local/webapi/chat/openai')).toBe('openai-chat');
    expect(of('https://next.local/api/anthropic/v1/messages')).toBe('anthropic');
    expect(of('http://localhost:11434/api/chat')).toBe('ollama');
    expect(of('https://chatgpt.com/backend-api/f/conversation')).toBeUndefined();
  });
});
