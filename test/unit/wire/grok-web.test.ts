/**
 * xAI Grok web (WIRE-FORMATS-2.md §4.3, MED: public clients, no live capture),
 * read back the way gpt4free's `Grok.py` reads it: one JSON per line, `token`
 * from `result.response` (or `result`), `isThinking` for reasoning, the final
 * `modelResponse.message`, `title.newTitle`. The shared harness covers byte
 * identity, any split and the block ending (test/fixtures/wire/grok-web).
 */
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { detectAdapter } from '../../../src/core/wire/adapter-registry.ts';
import { grokWeb } from '../../../src/core/wire/adapters/grok-web.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { fixture } from '../../support/wire-harness.ts';

const pack = getCorePack();
const secret = fixture('grok-web/new-secret-split.ndjson');
const imageBlocks = compilePack({
  name: 'image-blocks',
  version: '1',
  rules: pack.rules.map((r) =>
    r.id === 'markdown-image-exfil' ? { ...r.spec, action: 'block' as const } : r.spec,
  ),
});

type Line = { result?: Record<string, Record<string, unknown> | undefined> };

/** What a client takes from the stream (§4.3): every line must parse. */
function readGrok(body: string) {
  const lines = body
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Line);
  let answer = '';
  let thinking = '';
  let final: string | undefined;
  let title: string | undefined;
  let softStop = false;
  for (const { result } of lines) {
    const response = result?.response ?? result ?? {};
    if (typeof response.token === 'string') {
      if (response.isThinking === true) thinking += response.token;
      else answer += response.token;
    }
    if (response.isSoftStop === true) softStop = true;
    const model = response.modelResponse as { message?: string } | undefined;
    if (model?.message !== undefined) final = model.message;
    const newTitle = (result?.title as { newTitle?: string } | undefined)?.newTitle;
    if (newTitle !== undefined) title = newTitle;
  }
  return { lines, answer, thinking, final, title, softStop };
}

describe('Grok web (§4.3)', () => {
  it('guards the tokens, the full modelResponse echo and the title consistently', () => {
    const original = readGrok(secret);
    const replay = replayBody(grokWeb, pack, [secret]);
    const guarded = readGrok(replay.output);
    expect(guarded.answer).toBe(scanText(pack, original.answer).output);
    expect(guarded.answer).toContain('[redacted:github-pat]');
    expect(guarded.thinking).toBe(scanText(pack, original.thinking).output);
    // §0.2: the echo shows exactly what the tokens showed, never the raw answer.
    expect(guarded.final).toBe(guarded.answer);
    expect(guarded.title).toBe(scanText(pack, original.title ?? '').output);
    expect(replay.output).not.toMatch(/EXAMPLEexam|collector\.example\.net\/p/);
    expect(guarded.lines).toHaveLength(original.lines.length);
    expect(replay.issues).toEqual([]);
  });

  it('reads continuation lines whose token sits directly under result', () => {
    const body =
      '{"result":{"token":"key ghp_EXAMPLEexampleEXAMPLE","isThinking":false}}\n' +
      '{"result":{"token":"example01234567 end","isThinking":false}}\n';
    const replay = replayBody(grokWeb, pack, [body]);
    expect(readGrok(replay.output).answer).toBe('key [redacted:github-pat] end');
  });

  it('a block cuts the answer and ends it with a soft stop; the echo never goes out', () => {
    const replay = replayBody(grokWeb, imageBlocks, [secret]);
    expect(replay.blocked).toBe(true);
    const read = readGrok(replay.output);
    expect(read.answer).toBe('Here is the token you pasted: [redacted:github-pat]. And a chart ');
    expect(read.final).toBeUndefined();
    expect(read.softStop).toBe(true);
    expect(read.lines.at(-1)).toEqual({
      result: {
        response: { token: '', isThinking: false, isSoftStop: true, responseId: 'r-model-02' },
      },
    });
  });

  it('a modelResponse that differs from the tokens (trimmed) passes byte for byte', () => {
    const body =
      '{"result":{"response":{"token":"Paris.\\n","isThinking":false}}}\n' +
      '{"result":{"response":{"modelResponse":{"message":"Paris."}}}}\n';
    const replay = replayBody(grokWeb, pack, [body]);
    expect(replay.output).toBe(body);
    expect(replay.issues).toEqual([]);
  });

  it('claims the send, continue and reconnect routes, not the history load (§4.3)', () => {
    const id = (path: string) =>
      detectAdapter({
        url: `https://grok.com/rest/app-chat/conversations/${path}`,
        contentType: 'application/json',
        head: '',
        method: 'POST',
      })?.id;
    expect(id('new')).toBe('grok-web');
    expect(id('c0ffee00/responses')).toBe('grok-web');
    expect(id('reconnect-response-v2/r-1')).toBe('grok-web');
    expect(id('c0ffee00/load-responses')).not.toBe('grok-web');
  });

  it('an unknown line passes through and is reported', () => {
    const body = 'not json\n{"result":{"response":{"token":"hi","isThinking":false}}}\n';
    const replay = replayBody(grokWeb, pack, [body]);
    expect(replay.output).toBe(body);
    expect(replay.issues).toEqual([
      { kind: 'unrecognised-frame', detail: 'grok-web: line is not JSON' },
    ]);
  });
});
