/**
 * Qianwen (WIRE-FORMATS-2.md §3.2, LOW), read back the way Chat2API reads it:
 * each `text/plain` message's `content` and each `think_content` is the whole
 * text so far (cumulative); the page shows the last one. The shared harness
 * covers byte identity, any split and the block ending
 * (test/fixtures/wire/qianwen-web).
 */
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { qianwenWeb } from '../../../src/core/wire/adapters/qianwen-web.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { fixture } from '../../support/wire-harness.ts';

const pack = getCorePack();
const secret = fixture('qianwen-web/chat-secret-split.sse');

interface Message {
  mime_type?: string;
  content?: string;
  meta_data?: { multi_load?: { content?: { think_content?: string } }[] };
}

function readQianwen(body: string) {
  const snapshots = { answer: [] as string[], think: [] as string[] };
  const parser = createParser({
    onEvent: (m) => {
      if (m.event === 'complete') return;
      const json = JSON.parse(m.data) as { data?: { messages?: Message[] } };
      for (const message of json.data?.messages ?? []) {
        if (message.mime_type === 'text/plain') snapshots.answer.push(message.content ?? '');
        const think = message.meta_data?.multi_load?.[0]?.content?.think_content;
        if (think !== undefined) snapshots.think.push(think);
      }
    },
  });
  parser.feed(body);
  return snapshots;
}

describe('Qianwen (§3.2)', () => {
  it('guards cumulative answer and think snapshots; each shows the guarded text so far', () => {
    const original = readQianwen(secret);
    const replay = replayBody(qianwenWeb, pack, [secret]);
    const guarded = readQianwen(replay.output);
    expect(guarded.answer.at(-1)).toBe(scanText(pack, original.answer.at(-1) ?? '').output);
    expect(guarded.answer.at(-1)).toContain('[redacted:github-pat]');
    expect(guarded.think.at(-1)).toBe(scanText(pack, original.think.at(-1) ?? '').output);
    // Every snapshot is a prefix of the next: the page never sees text taken back.
    for (const list of [guarded.answer, guarded.think]) {
      list.slice(1).forEach((s, i) => expect(s.startsWith(list[i] ?? '')).toBe(true));
    }
    expect(replay.output).not.toMatch(/EXAMPLEexam|collector\.example\.net\/p/);
    expect(replay.issues).toEqual([]);
  });
});
