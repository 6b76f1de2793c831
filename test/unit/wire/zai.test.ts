/**
 * Z.ai (WIRE-FORMATS-2.md §3.5, MED: Chat2API, a capture note and Go clients
 * agree), read back the way those clients read it: `data.delta_content` by
 * `data.phase`. The shared harness covers byte identity, any split and the
 * block ending (test/fixtures/wire/zai); the integrity-bound send is
 * test/unit/content/integrity-bound-send.test.ts.
 */
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { detectAdapter } from '../../../src/core/wire/adapter-registry.ts';
import { zai } from '../../../src/core/wire/adapters/zai.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { detectRequestAdapter } from '../../../src/core/wire/requests/request-registry.ts';
import { fixture } from '../../support/wire-harness.ts';

const pack = getCorePack();
const secret = fixture('zai/completions-secret-split.sse');

function readZai(body: string) {
  const text: Record<string, string> = {};
  let done = false;
  const parser = createParser({
    onEvent: (m) => {
      const event = JSON.parse(m.data) as {
        data: { phase: string; delta_content?: string; done?: boolean };
      };
      const { phase, delta_content: delta = '' } = event.data;
      text[phase] = (text[phase] ?? '') + delta;
      if (event.data.done === true) done = true;
    },
  });
  parser.feed(body);
  return { answer: text.answer ?? '', thinking: text.thinking ?? '', done };
}

const SIGNED_URL =
  'https://chat.z.ai/api/v2/chat/completions?timestamp=1&requestId=r&user_id=u&signature_timestamp=1';

describe('Z.ai (§3.5)', () => {
  it('guards answer and thinking deltas, each phase its own text', () => {
    const original = readZai(secret);
    const replay = replayBody(zai, pack, [secret]);
    const guarded = readZai(replay.output);
    expect(guarded.answer).toBe(scanText(pack, original.answer).output);
    expect(guarded.answer).toContain('[redacted:github-pat]');
    expect(guarded.thinking).toBe(scanText(pack, original.thinking).output);
    expect(guarded.done).toBe(true);
    expect(replay.output).not.toMatch(/EXAMPLEexam|collector\.example\.net\/p/);
    expect(replay.issues).toEqual([]);
  });

  it('is claimed before OpenAI chat on its route, on the site or by its signature parameters', () => {
    const probe = { method: 'POST', contentType: 'text/event-stream', head: '' };
    expect(detectAdapter({ ...probe, url: SIGNED_URL })?.id).toBe('zai');
    const mirror = 'http://127.0.0.1:1/api/v2/chat/completions?requestId=r&signature_timestamp=1';
    expect(detectAdapter({ ...probe, url: mirror })?.id).toBe('zai');
    // Without the signature parameters another host's v2 route is not Z.ai's.
    const other = 'http://127.0.0.1:1/api/v2/chat/completions';
    expect(detectAdapter({ ...probe, url: other })?.id).not.toBe('zai');
  });

  it('its send is read as integrity-bound: the text in messages and in signature_prompt', () => {
    const body = JSON.stringify({
      stream: true,
      messages: [
        { role: 'user', content: 'earlier' },
        { role: 'assistant', content: 'reply' },
        { role: 'user', content: 'now' },
      ],
      signature_prompt: 'now',
    });
    const adapter = detectRequestAdapter({
      url: SIGNED_URL,
      method: 'POST',
      contentType: 'application/json',
    });
    expect(adapter?.name).toBe('zai');
    expect(adapter?.integrityBound).toBe(true);
    const news = adapter?.locate(body).filter((t) => t.part === 'new');
    expect(news?.map((t) => [t.path, t.text])).toEqual([
      [['messages', 2, 'content'], 'now'],
      [['signature_prompt'], 'now'],
    ]);
  });
});
