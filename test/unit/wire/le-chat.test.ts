/**
 * Mistral Le Chat (WIRE-FORMATS-2.md §4.4, LOW: third-party clients only),
 * read back the way those clients read it: one `N:json` per line, `0:"…"`
 * text in the older dialect, JSON-Patch operations on `contentChunks` in the
 * newer one. The shared harness covers byte identity, any split and the block
 * ending (test/fixtures/wire/le-chat).
 */
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { leChat } from '../../../src/core/wire/adapters/le-chat.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { fixture } from '../../support/wire-harness.ts';

const pack = getCorePack();

interface Patch {
  op: string;
  path: string;
  value: unknown;
}
type Chunk = { type: string; text: string };

/** Applies the newer dialect's patches as the page would (§4.4); returns each chunk's text. */
function readPatches(body: string): string[] {
  const chunks: Chunk[] = [];
  for (const line of body.split('\n').filter((l) => l !== '')) {
    const value = JSON.parse(line.slice(line.indexOf(':') + 1)) as { json: { patches: Patch[] } };
    for (const p of value.json.patches) {
      const text = /^\/contentChunks\/(\d+)\/text$/.exec(p.path);
      const chunk = /^\/contentChunks\/(\d+)$/.exec(p.path);
      if (p.path === '/contentChunks') chunks.splice(0, chunks.length, ...(p.value as Chunk[]));
      else if (chunk !== null) chunks[Number(chunk[1])] = p.value as Chunk;
      else if (text !== null && p.op === 'append') {
        (chunks[Number(text[1])] as Chunk).text += p.value as string;
      }
    }
  }
  return chunks.map((c) => c.text);
}

/** The older dialect: every `0:` line is a JSON string of text (§4.4). */
function readOlder(body: string): string {
  return body
    .split('\n')
    .filter((l) => l.startsWith('0:'))
    .map((l) => JSON.parse(l.slice(2)) as string)
    .join('');
}

describe('Le Chat (§4.4)', () => {
  it('older dialect: 0: text redacted across lines, other lines unchanged', () => {
    const body = fixture('le-chat/older-secret-split.txt');
    const replay = replayBody(leChat, pack, [body]);
    expect(readOlder(replay.output)).toBe(scanText(pack, readOlder(body)).output);
    expect(replay.output).not.toMatch(/EXAMPLEexam|collector\.example\.net\/p/);
    const others = (b: string) => b.split('\n').filter((l) => !l.startsWith('0:'));
    expect(others(replay.output)).toEqual(others(body));
  });

  it('newer dialect: each content chunk is guarded whole across its patches', () => {
    const body = fixture('le-chat/newer-secret-split.txt');
    const replay = replayBody(leChat, pack, [body]);
    const original = readPatches(body);
    const guarded = readPatches(replay.output);
    expect(guarded).toEqual(original.map((text) => scanText(pack, text).output));
    expect(guarded.join('')).toContain('[redacted:github-pat]');
    expect(replay.output).not.toMatch(/EXAMPLEexam|collector\.example\.net\/p/);
    expect(replay.issues).toEqual([]);
  });

  it('a line that is not N:JSON passes through and is reported', () => {
    const body = 'hello\n0:"hi"\n';
    const replay = replayBody(leChat, pack, [body]);
    expect(replay.output).toBe(body);
    expect(replay.issues).toEqual([
      { kind: 'unrecognised-frame', detail: 'le-chat: line is not N:JSON' },
    ]);
  });
});
