import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { chatgptWebHistory } from '../../../src/core/wire/adapters/chatgpt-web-history.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { blockingPack, fixture, wholeReplay } from '../../support/wire-harness.ts';

const pack = getCorePack();
const history = fixture('chatgpt-web/history.json');
const TOKEN = 'ghp_' + 'EXAMPLEexample'.repeat(2) + '01234567';

type Json = Record<string, unknown>;
type Node = { message: Json | null };
const nodes = (body: string) => (JSON.parse(body) as { mapping: Record<string, Node> }).mapping;
const partsOf = (node: Node) => (node.message!.content as Json).parts as string[];

describe('chatgpt-web history load (GET /backend-api/conversation/{id})', () => {
  it('guards visible assistant texts; user, tool, hidden and system messages and every other byte stay', () => {
    const replay = wholeReplay(chatgptWebHistory, pack, history);
    expect(replay.issues).toEqual([]);
    const before = nodes(history);
    const after = nodes(replay.output);

    const answer = partsOf(after['asst-0005']!)[0]!;
    expect(answer).toBe(scanText(pack, partsOf(before['asst-0005']!)[0]!).output);
    expect(answer).toContain('[redacted:github-pat]');
    expect(answer).toContain('[image blocked: collector.example.net]');
    for (const id of ['user-0002', 'asst-0003', 'tool-0004']) {
      expect(partsOf(after[id]!)[0]).toContain(TOKEN);
    }
    // The citation into the changed text points at its marker again (code points).
    const [ref] = (after['asst-0005']!.message!.metadata as Json).content_references as Json[];
    const cps = Array.from(answer);
    expect(cps.slice(ref!.start_idx as number, ref!.end_idx as number).join('')).toBe(
      ref!.matched_text,
    );

    // Byte-exact elsewhere: only the answer's text literal and its two offsets changed,
    // and a number beyond double precision keeps its spelling.
    const oldRef = (before['asst-0005']!.message!.metadata as Json).content_references as Json[];
    const expected = history
      .replace(
        JSON.stringify(partsOf(before['asst-0005']!)[0]).slice(1, -1),
        JSON.stringify(answer).slice(1, -1),
      )
      .replace(
        `"start_idx": ${oldRef[0]!.start_idx as number}`,
        `"start_idx": ${ref!.start_idx as number}`,
      )
      .replace(
        `"end_idx": ${oldRef[0]!.end_idx as number}`,
        `"end_idx": ${ref!.end_idx as number}`,
      );
    expect(replay.output).toBe(expected);
    expect(replay.output).toContain('"sequence": 12345678901234567890');
    expect(replay.events.map((e) => [e.channel, (e.event as { rule: string }).rule])).toEqual([
      ['node:asst-0005', 'github-pat'],
      ['node:asst-0005', 'markdown-image-exfil'],
    ]);
  });

  it('a history without matches is passed through byte for byte', () => {
    const clean = history.replaceAll(TOKEN, 'a-token').replace('?d=abc', '');
    const body = clean.replace('collector.example.net', 'img.example.org').replace('![x](', '[x](');
    expect(wholeReplay(chatgptWebHistory, pack, body).output).toBe(body);
  });

  it('a block cuts the blocked text and still yields a well-formed document', () => {
    const blocking = blockingPack('github-pat');
    const replay = replayBody(chatgptWebHistory, blocking, [history]);
    expect(replay.blocked).toBe(true);
    const after = nodes(replay.output);
    expect(partsOf(after['asst-0005']!)[0]).toBe('Your token ');

    // Blocked at the very first character: nothing to cut, the texts are emptied.
    const atStart = history.replace('"Your token ghp_', '"ghp_');
    const empty = nodes(replayBody(chatgptWebHistory, blocking, [atStart]).output);
    expect(partsOf(empty['asst-0005']!)[0]).toBe('');
    expect(partsOf(empty['user-0002']!)[0]).toContain(TOKEN);
  });

  it('detects the conversation GET, not the stream or the status endpoints', () => {
    const probe = (url: string) => ({ url, contentType: 'application/json', head: '{' });
    const id = '6a35c0de-0000-4000-8000-00000000c0de';
    expect(
      chatgptWebHistory.detect(probe(`https://chatgpt.com/backend-api/conversation/${id}`)),
    ).toBe(true);
    expect(
      chatgptWebHistory.detect(
        probe(`https://chatgpt.com/backend-api/conversation/${id}/stream_status`),
      ),
    ).toBe(false);
    expect(chatgptWebHistory.detect(probe('https://chatgpt.com/backend-api/conversation'))).toBe(
      false,
    );
    const raw = { url: '', contentType: 'application/json', head: history.slice(0, 1024) };
    expect(chatgptWebHistory.detect(raw)).toBe(true);
    expect(chatgptWebHistory.detect({ ...raw, head: '{"choices":[]}' })).toBe(false);
  });
});
