/**
 * ChatGLM (WIRE-FORMATS-2.md §3.5, MED: Chat2API and glm-free-api agree), read
 * back the way both clients read it: each event re-sends whole parts, the
 * client replaces the part cached under its `logic_id` and keeps its latest
 * text per item. The shared harness covers byte identity, any split and the
 * block ending (test/fixtures/wire/chatglm).
 */
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { chatglm } from '../../../src/core/wire/adapters/chatglm.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { detectRequestAdapter } from '../../../src/core/wire/requests/request-registry.ts';
import { fixture } from '../../support/wire-harness.ts';
import { blockAllPack } from '../../support/adapter-cases.ts';

const pack = getCorePack();
const secret = fixture('chatglm/stream-secret-split.sse');

interface Item {
  type: string;
  text?: string;
  think?: string;
  code?: string;
}
interface GlmEvent {
  status: string;
  parts: { logic_id: string; content: Item[] }[];
}

/** Latest text per part item, as the clients cache it by logic_id. */
function readGlm(body: string) {
  const parts = new Map<string, Item[]>();
  const statuses: string[] = [];
  const parser = createParser({
    onEvent: (m) => {
      const event = JSON.parse(m.data) as GlmEvent;
      statuses.push(event.status);
      for (const part of event.parts) parts.set(part.logic_id, part.content);
    },
  });
  parser.feed(body);
  const items = [...parts.values()].flat();
  const of = (type: string) =>
    items.filter((i) => i.type === type).map((i) => i.text ?? i.think ?? i.code ?? '');
  return { text: of('text'), think: of('think'), code: of('code'), statuses };
}

const event = (status: string, text: string, partStatus = 'init') =>
  `data: ${JSON.stringify({
    conversation_id: 'c',
    status,
    parts: [{ logic_id: 'L', status: partStatus, content: [{ type: 'text', text }] }],
  })}\n\n`;

describe('ChatGLM (§3.5)', () => {
  it('guards each cumulative item whole: think, text and code', () => {
    const original = readGlm(secret);
    const replay = replayBody(chatglm, pack, [secret]);
    const guarded = readGlm(replay.output);
    for (const kind of ['text', 'think', 'code'] as const) {
      expect(guarded[kind]).toEqual(original[kind].map((t) => scanText(pack, t).output));
    }
    expect(guarded.text.join('')).toContain('[redacted:github-pat]');
    expect(replay.output).not.toMatch(/EXAMPLEexam|collector\.example\.net\/p/);
    expect(replay.issues).toEqual([]);
  });

  it('each event shows the guarded text so far: never a fragment the next one retracts', () => {
    const replay = replayBody(chatglm, pack, [secret]);
    const texts: string[] = [];
    createParser({
      onEvent: (m) => {
        const e = JSON.parse(m.data) as GlmEvent;
        const item = e.parts.find((p) => p.logic_id === 'L-2')?.content[0];
        if (item?.text !== undefined) texts.push(item.text);
      },
    }).feed(replay.output);
    for (let i = 1; i < texts.length; i++) {
      expect((texts[i] as string).startsWith(texts[i - 1] as string)).toBe(true);
    }
  });

  it('a complete item whose text changes after all is guarded anew, never dropped', () => {
    const body =
      `data: ${JSON.stringify({
        conversation_id: 'c',
        status: 'init',
        parts: [
          {
            logic_id: 'L',
            status: 'init',
            content: [
              { type: 'text', text: 'first' },
              { type: 'code', code: 'x' },
            ],
          },
        ],
      })}\n\n` +
      event('init', 'first, then more') +
      event('finish', 'first, then more', 'finish');
    const replay = replayBody(chatglm, pack, [body]);
    expect(replay.output).toBe(body);
  });

  it('a block ends with status intervene, which the clients read as the end', () => {
    const replay = replayBody(chatglm, blockAllPack(), [secret]);
    expect(replay.blocked).toBe(true);
    expect(readGlm(replay.output).statuses.at(-1)).toBe('intervene');
  });

  it('its send is read at messages[].content[].text and may be rewritten (X-Sign does not cover it)', () => {
    const adapter = detectRequestAdapter({
      url: 'https://chatglm.cn/chatglm/backend-api/assistant/stream',
      method: 'POST',
      contentType: 'application/json',
    });
    expect(adapter?.name).toBe('chatglm');
    expect(adapter?.integrityBound).not.toBe(true);
    const body = JSON.stringify({
      assistant_id: 'a',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
    });
    expect(adapter?.locate(body).map((t) => [t.path, t.part])).toEqual([
      [['messages', 0, 'content', 0, 'text'], 'new'],
    ]);
  });
});
