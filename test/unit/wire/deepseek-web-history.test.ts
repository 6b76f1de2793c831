import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { deepseekWebHistory } from '../../../src/core/wire/adapters/deepseek-web-history.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { blockingPack, fixture, wholeReplay } from '../../support/wire-harness.ts';

const pack = getCorePack();
const history = fixture('deepseek-web/history.json');
const TOKEN = 'ghp_' + 'EXAMPLEexample'.repeat(2) + '01234567';

type Json = Record<string, unknown>;
const messages = (body: string) =>
  ((JSON.parse(body) as Json).data as { biz_data: { chat_messages: Json[] } }).biz_data
    .chat_messages;
const fragment = (m: Json, k: number) => (m.fragments as Json[])[k]!;

describe('deepseek-web history load (GET /api/v0/chat/history_messages)', () => {
  it('guards assistant content, thinking and RESPONSE/THINK fragments; user messages and search results stay', () => {
    const replay = wholeReplay(deepseekWebHistory, pack, history);
    expect(replay.issues).toEqual([]);
    const before = messages(history);
    const after = messages(replay.output);
    const guard = (text: unknown) => scanText(pack, text as string).output;

    expect(after[1]!.content).toBe(guard(before[1]!.content));
    expect(after[1]!.thinking_content).toBe(guard(before[1]!.thinking_content));
    expect(fragment(after[3]!, 1).content).toBe(guard(fragment(before[3]!, 1).content));
    expect(fragment(after[3]!, 2).content).toBe(guard(fragment(before[3]!, 2).content));
    expect(fragment(after[3]!, 2).content).toBe(
      'Done: [redacted:github-pat] [image blocked: collector.example.net] [citation:1]',
    );
    // The user's own words, the search results and an answer without matches are untouched.
    expect(after[0]).toEqual(before[0]);
    expect(after[2]).toEqual(before[2]);
    expect(after[4]).toEqual(before[4]);
    expect(fragment(after[3]!, 0)).toEqual(fragment(before[3]!, 0));

    // Only the guarded literals changed: every other byte is the server's.
    let expected = history;
    for (const [a, b] of [
      [before[1]!.content, after[1]!.content],
      [before[1]!.thinking_content, after[1]!.thinking_content],
      [fragment(before[3]!, 1).content, fragment(after[3]!, 1).content],
      [fragment(before[3]!, 2).content, fragment(after[3]!, 2).content],
    ] as const) {
      expected = expected.replace(JSON.stringify(a), JSON.stringify(b));
    }
    expect(replay.output).toBe(expected);
    expect(replay.output.split(TOKEN).length - 1).toBe(3);
  });

  it('a history without matches is passed through byte for byte', () => {
    const body = history.replaceAll(TOKEN, 'a-token').replaceAll('![x](', '[x](');
    expect(wholeReplay(deepseekWebHistory, pack, body).output).toBe(body);
  });

  it('an error answer passes through; a body that is not JSON is reported', () => {
    const error = '{"code":40003,"msg":"Authorization Failed","data":null}';
    const replay = wholeReplay(deepseekWebHistory, pack, error);
    expect(replay.output).toBe(error);
    expect(replay.issues).toEqual([]);
    expect(wholeReplay(deepseekWebHistory, pack, '<html>').issues.map((i) => i.kind)).toEqual([
      'unrecognised-frame',
    ]);
  });

  it('a block cuts the blocked text and still yields a well-formed document', () => {
    const blocking = blockingPack('github-pat');
    const replay = replayBody(deepseekWebHistory, blocking, [history]);
    expect(replay.blocked).toBe(true);
    const after = messages(replay.output);
    expect(after[1]!.content).toBe('Rotate ');
    expect(after[0]!.content).toContain(TOKEN);
  });

  it('detects the history endpoint, or a capture of it without its URL', () => {
    const probe = (url: string) => ({ url, contentType: 'application/json', head: '{' });
    const raw = { url: '', contentType: 'application/json', head: history.slice(0, 1024) };
    expect(deepseekWebHistory.detect(raw)).toBe(true);
    expect(deepseekWebHistory.detect({ ...raw, head: '{"code":0,"data":{}}' })).toBe(false);
    expect(
      deepseekWebHistory.detect(
        probe('https://chat.deepseek.com/api/v0/chat/history_messages?chat_session_id=d213'),
      ),
    ).toBe(true);
    expect(
      deepseekWebHistory.detect(probe('https://chat.deepseek.com/api/v0/chat/completion')),
    ).toBe(false);
  });
});
