/**
 * Kimi (WIRE-FORMATS-2.md §2.3, MED), read back the way a public client reads
 * it (Chat2API `kimi.ts`): envelopes cut by their 4-byte big-endian length,
 * each JSON payload parsed, `block.text.content` and `block.think.content`
 * concatenated by mask. The shared harness covers byte identity, any split and
 * the block ending (test/fixtures/wire/kimi-web).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { kimiWeb } from '../../../src/core/wire/adapters/kimi-web.ts';
import { kimiWebHistory } from '../../../src/core/wire/adapters/kimi-web-history.ts';
import { byteStringOf, bytesOfByteString } from '../../../src/core/wire/byte-string.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { blockAllPack } from '../../support/adapter-cases.ts';
import { fixture, throughTransform } from '../../support/wire-harness.ts';

const pack = getCorePack();
const secret = new Uint8Array(
  readFileSync(
    fileURLToPath(
      new URL('../../fixtures/wire/kimi-web/chat-secret-split.connect', import.meta.url),
    ),
  ),
);

interface Envelope {
  flags: number;
  json: { mask?: string; block?: { text?: { content?: string }; think?: { content?: string } } };
}

/** Strict: a length that overruns the body, or bytes left over, fail the read. */
function readEnvelopes(bytes: Uint8Array): Envelope[] {
  const buffer = Buffer.from(bytes);
  const out: Envelope[] = [];
  let at = 0;
  while (at < buffer.length) {
    const length = buffer.readUInt32BE(at + 1);
    if (at + 5 + length > buffer.length) throw new Error('envelope overruns the body');
    const payload = buffer.subarray(at + 5, at + 5 + length).toString('utf8');
    out.push({ flags: buffer.readUInt8(at), json: JSON.parse(payload) as Envelope['json'] });
    at += 5 + length;
  }
  return out;
}

function readKimi(bytes: Uint8Array) {
  const envelopes = readEnvelopes(bytes);
  const joined = (kind: 'text' | 'think') =>
    envelopes
      .filter((e) => e.json.mask?.startsWith(`block.${kind}`) === true)
      .map((e) => e.json.block?.[kind]?.content ?? '')
      .join('');
  return { answer: joined('text'), think: joined('think'), last: envelopes.at(-1) };
}

describe('Kimi Connect stream (§2.3)', () => {
  it('guards answer and think text, re-enveloped with correct byte lengths', async () => {
    const original = readKimi(secret);
    const out = await throughTransform(kimiWeb, pack, [secret]);
    const guarded = readKimi(out);
    expect(guarded.answer).toBe(scanText(pack, original.answer).output);
    expect(guarded.answer).toContain('[redacted:github-pat]');
    expect(guarded.think).toBe(scanText(pack, original.think).output);
    expect(Buffer.from(out).toString('utf8')).not.toMatch(/EXAMPLEexam|collector\.example\.net\/p/);
    expect(guarded.last).toEqual({ flags: 2, json: {} });
  });

  it('a block ends with the Connect end-of-stream envelope, readable to the end', () => {
    const replay = replayBody(kimiWeb, blockAllPack(), [byteStringOf(secret)]);
    expect(replay.blocked).toBe(true);
    const read = readKimi(bytesOfByteString(replay.output));
    expect(read.last).toEqual({ flags: 2, json: {} });
    expect(read.answer).not.toMatch(/EXAMPLEexam/);
  });

  it('gives the single-chunk result for a cut at every byte (every header byte, every UTF-8 byte)', () => {
    const body = byteStringOf(secret);
    const whole = replayBody(kimiWeb, pack, [body]).output;
    for (let at = 0; at <= body.length; at++) {
      const cut = replayBody(kimiWeb, pack, [body.slice(0, at), body.slice(at)]);
      if (cut.output !== whole) expect.fail(`cut at byte ${String(at)} differs`);
    }
  }, 60_000);

  it('fails closed on a compressed envelope (its text cannot be read)', () => {
    const compressed = String.fromCharCode(1, 0, 0, 0, 2) + 'xx';
    const replay = replayBody(kimiWeb, pack, [compressed]);
    expect(replay.blocked).toBe(true);
    expect(replay.issues.map((i) => i.kind)).toEqual(['undecodable']);
    expect(replay.output).not.toContain('xx');
  });
});

describe('Kimi history load (§2.1)', () => {
  interface History {
    messages: {
      role: string;
      blocks: { text?: { content: string }; think?: { content: string } }[];
    }[];
  }
  const body = fixture('kimi-web/list-messages-secret.json');

  it("guards the assistant's blocks and leaves the person's own message as sent", () => {
    const original = JSON.parse(body) as History;
    const replay = replayBody(kimiWebHistory, pack, [body]);
    const guarded = JSON.parse(replay.output) as History;
    expect(guarded.messages[0]).toEqual(original.messages[0]);
    const blocks = (h: History) => h.messages[1]?.blocks ?? [];
    blocks(guarded).forEach((block, j) => {
      const before = blocks(original)[j];
      const text = (b: typeof block | undefined) => b?.text?.content ?? b?.think?.content ?? '';
      expect(text(block)).toBe(scanText(pack, text(before)).output);
    });
    expect(JSON.stringify(guarded.messages[1])).not.toMatch(
      /EXAMPLEexam|collector\.example\.net\/p/,
    );
  });
});
