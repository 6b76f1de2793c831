/**
 * Qwen Chat (WIRE-FORMATS-2.md §3.1, MED: Chat2API and gpt4free agree), read
 * back the way those clients read it: `choices[0].delta.content` by `phase`,
 * the thinking summary from `extra.summary_thought.content` (re-sent whole as
 * it grows). The shared harness covers byte identity, any split and the block
 * ending (test/fixtures/wire/qwen-chat).
 */
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { detectAdapter } from '../../../src/core/wire/adapter-registry.ts';
import { qwenChat } from '../../../src/core/wire/adapters/qwen-chat.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { fixture } from '../../support/wire-harness.ts';

const pack = getCorePack();
const secret = fixture('qwen-chat/completions-secret-split.sse');

interface Delta {
  content?: string;
  phase?: string | null;
  extra?: { summary_thought?: { content?: string[] } };
}

function readQwen(body: string) {
  const deltas: Delta[] = [];
  const parser = createParser({
    onEvent: (m) => {
      if (m.data === '[DONE]') return;
      const json = JSON.parse(m.data) as { choices?: { delta: Delta }[] };
      if (json.choices !== undefined) deltas.push(json.choices[0]?.delta ?? {});
    },
  });
  parser.feed(body);
  const text = (pick: (d: Delta) => boolean) =>
    deltas
      .filter(pick)
      .map((d) => d.content ?? '')
      .join('');
  const thinking = (d: Delta) => d.phase === 'think' || d.phase === 'thinking_summary';
  const summaries = deltas
    .map((d) => d.extra?.summary_thought?.content)
    .filter((c) => c !== undefined);
  return {
    answer: text((d) => !thinking(d)),
    think: text(thinking),
    summary: summaries.at(-1) ?? [],
  };
}

describe('Qwen Chat (§3.1)', () => {
  it('guards answer and think deltas by phase, and each cumulative summary entry', () => {
    const original = readQwen(secret);
    const replay = replayBody(qwenChat, pack, [secret]);
    const guarded = readQwen(replay.output);
    expect(guarded.answer).toBe(scanText(pack, original.answer).output);
    expect(guarded.answer).toContain('[redacted:github-pat]');
    expect(guarded.think).toBe(scanText(pack, original.think).output);
    expect(guarded.summary).toEqual(original.summary.map((s) => scanText(pack, s).output));
    expect(replay.output).not.toMatch(/EXAMPLEexam|collector\.example\.net\/p/);
    expect(replay.issues).toEqual([]);
  });

  it('is claimed before the OpenAI chat adapter on its /chat/completions route', () => {
    const adapter = detectAdapter({
      url: 'https://chat.qwen.ai/api/v2/chat/completions?chat_id=1',
      method: 'POST',
      contentType: 'text/event-stream',
      head: '',
    });
    expect(adapter?.id).toBe('qwen-chat');
  });
});
