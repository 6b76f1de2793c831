/**
 * Doubao (WIRE-FORMATS-2.md §3.3, MED), read back the way the public clients
 * read it: SSE events by name, every copy of the answer text (CHUNK_DELTA,
 * STREAM_CHUNK text blocks after STREAM_MSG_NOTIFY's first token, tts_content)
 * concatenated on its own, and the brief. The shared harness covers byte
 * identity, any split and the block ending (test/fixtures/wire/doubao-web).
 */
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { doubaoWeb } from '../../../src/core/wire/adapters/doubao-web.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { fixture } from '../../support/wire-harness.ts';

const pack = getCorePack();
const secret = fixture('doubao-web/completion-secret-split-crlf.sse');

interface Block {
  content?: { text_block?: { text?: string } };
}
interface Data {
  text?: string;
  content?: { content_block?: Block[] };
  patch_op?: {
    patch_object: number;
    patch_value: { content_block?: Block[]; tts_content?: string };
  }[];
  msg_finish_attr?: { brief?: string };
}

function readDoubao(body: string) {
  const copies = { delta: '', blocks: '', tts: '', brief: '' };
  const blockText = (blocks: Block[] | undefined) =>
    (blocks ?? []).map((b) => b.content?.text_block?.text ?? '').join('');
  const parser = createParser({
    onEvent: (m) => {
      const data = JSON.parse(m.data) as Data;
      if (m.event === 'CHUNK_DELTA') copies.delta += data.text ?? '';
      if (m.event === 'STREAM_MSG_NOTIFY') copies.blocks += blockText(data.content?.content_block);
      if (m.event === 'SSE_REPLY_END') copies.brief += data.msg_finish_attr?.brief ?? '';
      for (const op of m.event === 'STREAM_CHUNK' ? (data.patch_op ?? []) : []) {
        if (op.patch_object === 1) copies.blocks += blockText(op.patch_value.content_block);
        if (op.patch_object === 111) copies.tts += op.patch_value.tts_content ?? '';
      }
    },
  });
  parser.feed(body);
  return copies;
}

describe('Doubao (§3.3)', () => {
  it('guards every copy of the answer text, and the brief', () => {
    const original = readDoubao(secret);
    const replay = replayBody(doubaoWeb, pack, [secret]);
    const guarded = readDoubao(replay.output);
    for (const copy of ['delta', 'blocks', 'tts', 'brief'] as const) {
      expect(guarded[copy], copy).toBe(scanText(pack, original[copy]).output);
      expect(guarded[copy], copy).toContain('[redacted:github-pat]');
    }
    expect(replay.output).not.toMatch(/EXAMPLEexam|collector\.example\.net\/p/);
    expect(replay.issues).toEqual([]);
  });
});
