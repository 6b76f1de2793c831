import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { geminiWeb } from '../../../src/core/wire/adapters/gemini-web.ts';
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
const benign = fixture('gemini-web/benign.txt');
const secret = fixture('gemini-web/secret-split.txt');

/**
 * Reference reader, written from WIRE-FORMATS.md §3.3–3.5 the way the page reads the
 * body: `)]}'`, then `<digits>` and EXACTLY that many UTF-16 code units (counted from
 * right after the digits, so the `\n` on both sides of the JSON are included). A
 * wrong length throws instead of being repaired. Each `wrb.fr` entry's inner JSON
 * gives every candidate's snapshot (`[4][i][1][0]`), thinking (`[37][0][0]`) and
 * status (`[8][0]`).
 */
interface Snapshot {
  candidate: string;
  text: string;
  thinking: string | undefined;
  status: unknown;
}

function readGemini(body: string) {
  expect(body.startsWith(")]}'")).toBe(true);
  let pos = 4;
  const snapshots: Snapshot[] = [];
  const kinds: string[] = [];
  for (;;) {
    while (pos < body.length && /\s/.test(body[pos] as string)) pos++;
    if (pos >= body.length) break;
    const digits = /^\d+/.exec(body.slice(pos))?.[0];
    if (digits === undefined) throw new Error(`no length at ${pos}`);
    const start = pos + digits.length;
    const end = start + Number(digits);
    if (end > body.length) throw new Error(`frame at ${pos} overruns the body`);
    const chunk = body.slice(start, end);
    if (!chunk.startsWith('\n') || !chunk.endsWith('\n')) {
      throw new Error(`length ${digits} at ${pos} does not cover \\n<json>\\n`);
    }
    const entries = JSON.parse(chunk) as unknown[][];
    for (const entry of entries) {
      kinds.push(String(entry[0]));
      if (entry[0] !== 'wrb.fr' || typeof entry[2] !== 'string') continue;
      const inner = JSON.parse(entry[2]) as unknown[];
      for (const c of (inner[4] ?? []) as unknown[][]) {
        const thinking = (c[37] as string[][] | undefined)?.[0]?.[0];
        snapshots.push({
          candidate: String(c[0]),
          text: (c[1] as string[])[0] as string,
          thinking,
          status: (c[8] as unknown[] | null)?.[0],
        });
      }
    }
    pos = end;
  }
  const last = snapshots.at(-1);
  return { snapshots, kinds, text: last?.text ?? '', finished: last?.status === 2 };
}

const blocking = blockingPack('github-pat');

describe('gemini-web adapter', () => {
  it('passes an answer without matches through byte for byte (multi-byte, astral, escapes)', () => {
    const replay = wholeReplay(geminiWeb, pack, benign);
    expect(replay.output).toBe(benign);
    expect(replay.issues).toEqual([]);
    expect(readGemini(benign).text).toContain('😀');
  });

  it('the reference reader accepts the fixtures as written (lengths in UTF-16 units)', () => {
    for (const body of [benign, secret]) {
      const read = readGemini(body);
      expect(read.kinds.slice(-3)).toEqual(['di', 'af.httprm', 'e']);
      expect(read.finished).toBe(true);
    }
  });

  it('guards the cumulative snapshots: the page ends on the guarded answer, lengths recomputed', () => {
    const replay = wholeReplay(geminiWeb, pack, secret);
    const original = readGemini(secret);
    const guarded = readGemini(replay.output);
    expect(guarded.text).toBe(scanText(pack, original.text).output);
    expect(guarded.text).toContain('[redacted:github-pat]');
    expect(guarded.text).toContain('[image blocked: collector.example.net]');
    expect(guarded.finished).toBe(true);
    // Same frames, same order: only text changed.
    expect(guarded.kinds).toEqual(original.kinds);
    expect(guarded.snapshots.length).toBe(original.snapshots.length);
    // The thinking channel is guarded too.
    expect(guarded.snapshots.at(-1)?.thinking).toBe(
      scanText(pack, original.snapshots.at(-1)?.thinking ?? '').output,
    );
    // Gemini's drifting snapshots (a temporary "\n```", escaped markers) are re-guarded.
    expect(replay.issues.map((i) => i.kind)).toContain('snapshot-rewound');
  });

  it('no re-sent snapshot ever shows redacted text or a fragment of it', () => {
    const guarded = readGemini(wholeReplay(geminiWeb, pack, secret).output);
    for (const s of guarded.snapshots) {
      for (const text of [s.text, s.thinking ?? '']) {
        expect(text).not.toMatch(/ghp_|EXAMPLEexam|collector\.example\.net\/p/);
      }
    }
    // Between rewinds the page sees each snapshot extend the previous one.
    const texts = guarded.snapshots.map((s) => s.text);
    expect(texts[2]?.startsWith(texts[1] ?? '\u0000')).toBe(true);
    expect(texts[3]?.startsWith(texts[2] ?? '\u0000')).toBe(true);
  });

  // Known framework gap (reported): when a snapshot does not extend the previous one,
  // A rewound snapshot abandons the old channel at its release point: its held tail
  // (here the start of a token) is never flushed into the frames still queued on it.
  it('a rewound snapshot never shows the held tail of the previous one', () => {
    const frame = (v: unknown) => {
      const j = JSON.stringify(v);
      return `${j.length + 2}\n${j}\n`;
    };
    const wrb = (t: string) =>
      frame([['wrb.fr', null, JSON.stringify([null, ['c', 'r'], null, null, [['rc_1', [t]]]])]]);
    const body =
      ")]}'\n\n" +
      wrb('Here it is ghp_EXAMPLEexam') +
      wrb('Here it is  ghp_EXAMPLEexampleEXAMPLEexample01234567');
    for (const s of readGemini(wholeReplay(geminiWeb, pack, body).output).snapshots) {
      expect(s.text).not.toContain('ghp_EXAMPLEexam');
    }
  });

  it('for any split of the wire bytes, the page receives the single-chunk result', async () => {
    const bytes = new TextEncoder().encode(secret);
    const expected = wholeReplay(geminiWeb, pack, secret).output;
    await fc.assert(
      fc.asyncProperty(cutFractions(24), async (cuts) => {
        const out = await throughTransform(geminiWeb, pack, splitBytes(bytes, cuts));
        expect(new TextDecoder().decode(out)).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('a benign body split anywhere (inside digits, inside UTF-8 sequences) comes out unchanged', async () => {
    const bytes = new TextEncoder().encode(benign);
    await fc.assert(
      fc.asyncProperty(cutFractions(32), async (cuts) => {
        const out = await throughTransform(geminiWeb, pack, splitBytes(bytes, cuts));
        expect(new TextDecoder().decode(out)).toBe(benign);
      }),
      { numRuns: 200 },
    );
  });

  it('a block ends the answer as Gemini ends one: the shown text re-sent as finished, then `e`', () => {
    const blockImages = compilePack({
      name: 'block-images',
      version: '1',
      rules: [
        pack.rules.find((r) => r.id === 'github-pat')!.spec,
        { ...pack.rules.find((r) => r.id === 'markdown-image-exfil')!.spec, action: 'block' },
      ],
    });
    const replay = replayBody(geminiWeb, blockImages, [secret]);
    expect(replay.blocked).toBe(true);
    const read = readGemini(replay.output);
    expect(read.finished).toBe(true);
    expect(read.kinds.at(-1)).toBe('e');
    expect(read.text).toBe('Here is the token you pasted: [redacted:github-pat].\n\nAnd a chart ');
    expect(replay.output).not.toMatch(/ghp_EXAMPLE|collector/);
    // The e trailer's size is the size of the body the page received.
    const size = /\["e",4,null,null,(\d+)\]/.exec(replay.output)?.[1];
    expect(Number(size)).toBe(new TextEncoder().encode(replay.output).length);
  });

  it('a block in the thinking channel cuts it there and finishes the (still empty) answer', () => {
    const replay = replayBody(geminiWeb, blocking, [secret]);
    expect(replay.blocked).toBe(true);
    expect(replay.events.map((e) => e.channel)).toEqual(['thinking:rc_c1300196cbdf6021']);
    const read = readGemini(replay.output);
    expect(read.finished).toBe(true);
    expect(read.kinds.at(-1)).toBe('e');
    expect(read.text).toBe('');
    expect(read.snapshots.at(-1)?.thinking).toBe('The user wants the key ');
    expect(replay.output).not.toMatch(/ghp_/);
  });

  it('a block before the page saw any answer text still ends with a finished, empty answer', () => {
    const blockThinking = compilePack({
      name: 'block-thinking',
      version: '1',
      rules: [
        {
          id: 'block-the-user-wants',
          kind: 'secret',
          description: 'test rule',
          pattern: 'The user wants',
          maxLength: 14,
          action: 'block',
          keywords: ['The user'],
          examples: { match: ['The user wants'], noMatch: ['A user'] },
        },
      ],
    });
    const replay = replayBody(geminiWeb, blockThinking, [secret]);
    expect(replay.blocked).toBe(true);
    const read = readGemini(replay.output);
    expect(read.finished).toBe(true);
    expect(read.text).toBe('');
    expect(read.snapshots.every((s) => !(s.thinking ?? '').includes('The user'))).toBe(true);
  });

  it('detects StreamGenerate by URL, or a bare capture by its body', () => {
    const url =
      'https://gemini.google.com/_/BardChatUi/data/assistant.lamda.BardFrontendService/StreamGenerate?bl=boq&_reqid=1&rt=c';
    expect(geminiWeb.detect({ url, contentType: 'application/json', head: '' })).toBe(true);
    expect(geminiWeb.detect({ url: '', contentType: '', head: secret.slice(0, 1024) })).toBe(true);
    const history = `)]}'\n\n100\n[["wrb.fr","hNvQHb","[]",null,null,null,"generic"]]\n`;
    expect(
      geminiWeb.detect({
        url: 'https://gemini.google.com/_/BardChatUi/data/batchexecute?rpcids=hNvQHb',
        contentType: 'application/json',
        head: history,
      }),
    ).toBe(false);
  });
});
