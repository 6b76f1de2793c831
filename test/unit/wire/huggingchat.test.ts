/**
 * HuggingChat (WIRE-FORMATS-2.md §4.6, HIGH: chat-ui's own source), read back
 * the way chat-ui's client reads it: split on `\n`, one update per line, NUL
 * stripped from stream tokens, `finalAnswer` merged by `interrupted`. The
 * shared harness covers byte identity, any split and the block ending
 * (test/fixtures/wire/huggingchat).
 */
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { huggingChat } from '../../../src/core/wire/adapters/huggingchat.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { fixture } from '../../support/wire-harness.ts';

const pack = getCorePack();
const secret = fixture('huggingchat/conversation-secret-split.jsonl');
const imageBlocks = compilePack({
  name: 'image-blocks',
  version: '1',
  rules: pack.rules.map((r) =>
    r.id === 'markdown-image-exfil' ? { ...r.spec, action: 'block' as const } : r.spec,
  ),
});

type Update = Record<string, unknown> & { type: string };

/** chat-ui's reading (§4.6): every non-blank line is a JSON update. */
function readUpdates(body: string) {
  const updates = body
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Update);
  const tokens = (pick: (u: Update) => boolean) =>
    updates
      .filter(pick)
      .map((u) => String(u.token).replaceAll('\0', ''))
      .join('');
  return {
    updates,
    answer: tokens((u) => u.type === 'stream'),
    reasoning: tokens((u) => u.type === 'reasoning' && u.subtype === 'stream'),
    final: updates.find((u) => u.type === 'finalAnswer'),
    title: updates.find((u) => u.type === 'title')?.title as string | undefined,
  };
}

describe('HuggingChat JSONL (§4.6)', () => {
  it('guards padded tokens, reasoning, the finalAnswer echo and the title consistently', () => {
    const original = readUpdates(secret);
    const replay = replayBody(huggingChat, pack, [secret]);
    const guarded = readUpdates(replay.output);
    expect(guarded.answer).toBe(scanText(pack, original.answer).output);
    expect(guarded.answer).toContain('[redacted:github-pat]');
    expect(guarded.reasoning).toBe(scanText(pack, original.reasoning).output);
    expect(guarded.final?.text).toBe(guarded.answer);
    expect(guarded.title).toBe(scanText(pack, original.title ?? '').output);
    expect(replay.output).not.toMatch(/EXAMPLEexam|collector\.example\.net\/p/);
    expect(guarded.updates.map((u) => u.type)).toEqual(original.updates.map((u) => u.type));
    expect(replay.output.endsWith(' '.repeat(4096))).toBe(true);
    expect(replay.issues).toEqual([]);
  });

  it('a rewritten short token is padded with NUL to 16 characters again, as the server pads', () => {
    const body =
      '{"type":"stream","token":"ghp_EXAMPLEexa\\u0000\\u0000"}\n' +
      '{"type":"stream","token":"mpleEXAMPLEexample01234567"}\n' +
      '{"type":"stream","token":" ok\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000"}\n';
    const replay = replayBody(huggingChat, pack, [body]);
    const tokens = readUpdates(replay.output).updates.map((u) => String(u.token));
    // padEnd(16, "\0"): at least 16 characters, NUL only at the end.
    for (const token of tokens) {
      expect(token.length).toBeGreaterThanOrEqual(16);
      expect(token).toMatch(/^[^\0]*\0*$/u);
    }
    expect(tokens.join('').replaceAll('\0', '')).toBe('[redacted:github-pat] ok');
  });

  it('a block keeps the streamed text and ends with an interrupted finalAnswer', () => {
    const replay = replayBody(huggingChat, imageBlocks, [secret]);
    expect(replay.blocked).toBe(true);
    const read = readUpdates(replay.output);
    expect(read.answer).toBe('Here is the token you pasted: [redacted:github-pat]. And a chart ');
    expect(read.final).toEqual({ type: 'finalAnswer', text: '', interrupted: true });
  });

  it('a finalAnswer the server trimmed passes byte for byte, and a secret in it alone is redacted', () => {
    // chat-ui trims the final text (`trimEnd`, stop sequences): it need not equal the tokens.
    const trimmed =
      '{"type":"stream","token":"Paris.\\n\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000"}\n' +
      '{"type":"finalAnswer","text":"Paris.","interrupted":false}\n';
    const plain = replayBody(huggingChat, pack, [trimmed]);
    expect(plain.output).toBe(trimmed);
    expect(plain.issues).toEqual([]);
    const hidden =
      '{"type":"stream","token":"ok\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000"}\n' +
      '{"type":"finalAnswer","text":"ok ghp_EXAMPLEexampleEXAMPLEexample01234567","interrupted":false}\n';
    const final = readUpdates(replayBody(huggingChat, pack, [hidden]).output).final;
    expect(final?.text).toBe('ok [redacted:github-pat]');
  });

  it('an unknown update type passes through and is reported', () => {
    const body = '{"type":"brandNew","x":1}\n{"type":"stream","token":"hi\\u0000"}\n';
    const replay = replayBody(huggingChat, pack, [body]);
    expect(replay.output).toBe(body);
    expect(replay.issues).toEqual([
      { kind: 'unrecognised-frame', detail: 'huggingchat: update brandNew' },
    ]);
  });
});

/** The reattach stream as `EventSource` hands it to chat-ui (§4.6): `update` events' data, as lines. */
function updateLines(body: string): string {
  const lines: string[] = [];
  const parser = createParser({
    onEvent: (m) => {
      if (m.event === 'update') lines.push(m.data);
    },
  });
  parser.feed(body);
  return lines.join('\n');
}

describe('HuggingChat reattach stream (§4.6, SSE)', () => {
  it('guards the updates of event: update; heartbeats, ids and end pass as they are', () => {
    const body = fixture('huggingchat/reattach-secret-split.sse');
    const replay = replayBody(huggingChat, pack, [body]);
    const original = readUpdates(updateLines(body));
    const guarded = readUpdates(updateLines(replay.output));
    expect(guarded.answer).toBe(scanText(pack, original.answer).output);
    expect(guarded.answer).toContain('[redacted:github-pat]');
    expect(guarded.final?.text).toBe(guarded.answer);
    expect(guarded.reasoning).toBe(scanText(pack, original.reasoning).output);
    expect(replay.output).not.toMatch(/EXAMPLEexam|collector\.example\.net\/p/);
    const frame = (b: string) => b.split('\n\n').filter((f) => !f.includes('event: update'));
    expect(frame(replay.output)).toEqual(frame(body));
    expect(replay.issues).toEqual([]);
  });
});
