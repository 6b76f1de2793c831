/**
 * Tencent Yuanbao (WIRE-FORMATS-2.md §3.4, MED), read back the way the public
 * clients read it: JSON `data:` chunks by `type` (`text` → `msg`, `think` →
 * `content`), non-JSON lines skipped. The shared harness covers byte identity,
 * any split and the block ending (test/fixtures/wire/yuanbao-web).
 */
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { yuanbaoWeb } from '../../../src/core/wire/adapters/yuanbao-web.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { fixture } from '../../support/wire-harness.ts';

const pack = getCorePack();
const secret = fixture('yuanbao-web/chat-secret-split.sse');

function readYuanbao(body: string) {
  const read = { answer: '', think: '', skipped: 0 };
  const parser = createParser({
    onEvent: (m) => {
      // The TS client's rule (§3.4): data starting with `[` or a lowercase letter is not JSON.
      if (/^(?:\[|[a-z])/.test(m.data)) {
        read.skipped++;
        return;
      }
      const chunk = JSON.parse(m.data) as { type?: string; msg?: string; content?: string };
      if (chunk.type === 'text') read.answer += chunk.msg ?? '';
      if (chunk.type === 'think') read.think += chunk.content ?? '';
    },
  });
  parser.feed(body);
  return read;
}

describe('Yuanbao (§3.4)', () => {
  it('guards text msg and think content deltas; non-JSON lines pass as they are', () => {
    const original = readYuanbao(secret);
    const replay = replayBody(yuanbaoWeb, pack, [secret]);
    const guarded = readYuanbao(replay.output);
    expect(guarded.answer).toBe(scanText(pack, original.answer).output);
    expect(guarded.answer).toContain('[redacted:github-pat]');
    expect(guarded.think).toBe(scanText(pack, original.think).output);
    expect(guarded.skipped).toBe(original.skipped);
    expect(replay.output).toContain('data: [MSGINDEX:2]\n\n');
    expect(replay.output).not.toMatch(/EXAMPLEexam|collector\.example\.net\/p/);
    expect(replay.issues).toEqual([]);
  });
});
