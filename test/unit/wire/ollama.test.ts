import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { ollamaJson, ollamaStream } from '../../../src/core/wire/adapters/ollama.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import {
  blockingPack,
  fixture,
  splitBytes,
  throughTransform,
  wholeReplay,
} from '../../support/wire-harness.ts';
import { cutFractions } from '../../support/text-arbitraries.ts';

const pack = getCorePack();
const benign = fixture('ollama/chat-benign.ndjson');
const chat = fixture('ollama/chat-secret-split.ndjson');
const generate = fixture('ollama/generate-secret-split.ndjson');
const blocking = blockingPack('github-pat');

interface Line {
  model?: string;
  created_at?: string;
  message?: { content?: string; thinking?: string; tool_calls?: unknown };
  response?: string;
  done?: boolean;
  done_reason?: string;
}

/** Reads NDJSON the way ollama-js does: split on newlines, JSON.parse each non-empty line. */
function readNdjson(body: string) {
  const lines = body
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Line);
  const join = (pick: (l: Line) => string | undefined) => lines.map((l) => pick(l) ?? '').join('');
  return {
    lines,
    content: join((l) => l.message?.content ?? l.response),
    thinking: join((l) => l.message?.thinking),
  };
}

const skeleton = (line: Line) =>
  JSON.stringify({ ...line, message: line.message && { ...line.message, content: '' } });

describe('ollama NDJSON adapter', () => {
  it('passes a stream without matches through byte for byte', () => {
    const replay = wholeReplay(ollamaStream, pack, benign);
    expect(replay.output).toBe(benign);
    expect(replay.issues).toEqual([]);
  });

  it('/api/chat: content guarded, thinking its own channel, tool calls and stats untouched', () => {
    const replay = wholeReplay(ollamaStream, pack, chat);
    const original = readNdjson(chat);
    const guarded = readNdjson(replay.output);
    expect(guarded.content).toBe(scanText(pack, original.content).output);
    expect(guarded.content).toContain('[redacted:github-pat]');
    expect(guarded.content).toContain('[image blocked: collector.example.net]');
    expect(guarded.thinking).toBe(original.thinking);
    expect(guarded.lines.map(skeleton)).toEqual(original.lines.map(skeleton));
    expect(replay.events.map((e) => [e.channel, (e.event as { rule: string }).rule])).toEqual([
      ['content', 'github-pat'],
      ['content', 'markdown-image-exfil'],
    ]);
  });

  it('/api/generate: `response` guarded; an unterminated last line stays unterminated', () => {
    const replay = wholeReplay(ollamaStream, pack, generate);
    const original = readNdjson(generate);
    const guarded = readNdjson(replay.output);
    expect(guarded.content).toBe(scanText(pack, original.content).output);
    expect(guarded.lines.length).toBe(original.lines.length);
    expect(replay.output.endsWith('"context":[1,2,3]}')).toBe(true);
  });

  it('for any split of the wire bytes, the page receives the single-chunk result', async () => {
    for (const body of [chat, generate]) {
      const bytes = new TextEncoder().encode(body);
      const expected = wholeReplay(ollamaStream, pack, body).output;
      await fc.assert(
        fc.asyncProperty(cutFractions(24), async (cuts) => {
          const out = await throughTransform(ollamaStream, pack, splitBytes(bytes, cuts));
          expect(new TextDecoder().decode(out)).toBe(expected);
        }),
        { numRuns: 200 },
      );
    }
  });

  it('a block ends with a done line shaped like the stream (chat and generate)', () => {
    const replay = replayBody(ollamaStream, blocking, [chat]);
    expect(replay.blocked).toBe(true);
    const read = readNdjson(replay.output);
    expect(read.content).toBe('Here it is: ');
    const sent = read.lines.at(-2);
    expect(read.lines.at(-1)).toEqual({
      model: 'llama3.2',
      created_at: sent?.created_at,
      message: { role: 'assistant', content: '' },
      done: true,
      done_reason: 'stop',
    });
    expect(replay.output.endsWith('"done_reason":"stop"}\n')).toBe(true);

    const gen = readNdjson(replayBody(ollamaStream, blocking, [generate]).output);
    expect(gen.content).toBe('Here it is: ');
    expect(gen.lines.at(-1)).toMatchObject({ response: '', done: true, done_reason: 'stop' });
    expect(gen.lines.filter((l) => l.done === true)).toHaveLength(1);
  });

  it('a block inside an unterminated last line starts the done line on a new line', () => {
    const token = 'ghp_EXAMPLEexampleEXAMPLEexample01234567';
    const first = generate.split('\n')[0] as string;
    const body = `${first}\n{"model":"llama3.2","created_at":"2025-10-26T17:15:25Z","response":"ok ${token}","done":false}`;
    const replay = replayBody(ollamaStream, blocking, [body]);
    const read = readNdjson(replay.output);
    expect(read.content).toBe('Here it is: ok ');
    expect(read.lines.at(-1)).toMatchObject({ created_at: '2025-10-26T17:15:25Z', done: true });
    expect(replay.output.split('\n')).toHaveLength(4);
  });

  it('stream: false answers are guarded in place', () => {
    const token = 'ghp_EXAMPLEexampleEXAMPLEexample01234567';
    const body = `{"model":"llama3.2","created_at":"2025-10-26T17:15:24.097767Z","message":{"role":"assistant","content":"key ${token}"},"done_reason":"stop","done":true,"total_duration":4883583458}`;
    expect(wholeReplay(ollamaJson, pack, body).output).toBe(
      body.replace(token, '[redacted:github-pat]'),
    );
    const blocked = replayBody(ollamaJson, blocking, [body.replace('key ', '')]);
    expect(JSON.parse(blocked.output)).toMatchObject({ message: { content: '' }, done: true });
  });
});
