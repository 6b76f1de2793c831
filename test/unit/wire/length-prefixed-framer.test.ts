import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  LengthPrefixedFramer,
  lengthPrefixedFrame,
  renderLengthPrefixed,
  splitLengthPrefixed,
} from '../../../src/core/wire/framing/length-prefixed-framer.ts';
import type { RawFrame } from '../../../src/core/wire/raw-frame.ts';
import { fixture } from '../../support/wire-harness.ts';
import { cutFractions } from '../../support/text-arbitraries.ts';

/** Google's convention (WIRE-FORMATS.md §3.3): the count covers `\n<json>\n`, in UTF-16 units. */
const google = (value: unknown) => lengthPrefixedFrame(JSON.stringify(value));

const ASTRAL = '😀'; // two UTF-16 code units, four UTF-8 bytes
const body =
  ")]}'\n\n" +
  google([
    [
      'wrb.fr',
      null,
      JSON.stringify([null, ['c_1', 'r_1'], null, null, [['rc_1', [`Xin chào ${ASTRAL} 数据`]]]]),
    ],
  ]) +
  google([
    ['di', 192],
    ['af.httprm', 191, '8196459853603899163', 2],
  ]) +
  google([['e', 4, null, null, 216]]);

function frameAll(chunks: readonly string[]): RawFrame[] {
  const framer = new LengthPrefixedFramer();
  const frames = chunks.flatMap((c) => framer.push(c));
  return [...frames, ...framer.end()];
}

/** Splits a string at the given fractions of its length (cuts may fall inside surrogate pairs). */
function splitText(text: string, fractions: number[]): string[] {
  const points = fractions.map((f) => Math.floor(f * (text.length + 1))).sort((a, b) => a - b);
  const out: string[] = [];
  let last = 0;
  for (const p of points) {
    const at = Math.min(Math.max(p, last), text.length);
    out.push(text.slice(last, at));
    last = at;
  }
  out.push(text.slice(last));
  return out;
}

describe('length-prefixed framer (Gemini web, §3.3)', () => {
  it("reads `)]}'` then frames whose length counts UTF-16 units from right after the digits", () => {
    const frames = frameAll([body]);
    expect(frames.map((f) => f.raw).join('')).toBe(body);
    expect(frames[0]).toEqual({ raw: ")]}'" });
    expect(frames.slice(1).map((f) => JSON.parse(f.payload ?? 'null')[0][0])).toEqual([
      'wrb.fr',
      'di',
      'e',
    ]);
    // The realistic capture's trailer: 23 units of JSON sent as 25.
    expect(frames.at(-1)?.raw).toBe('25\n[["e",4,null,null,216]]\n');
    // The astral character counts two: the declared length equals JS String.length.
    const wrb = frames[1]?.raw ?? '';
    const parts = splitLengthPrefixed(wrb);
    expect(Number(parts.digits)).toBe(parts.payload.length + 2);
  });

  it('frames the realistic fixtures exactly as the page would', () => {
    for (const name of ['gemini-web/benign.txt', 'gemini-web/secret-split.txt']) {
      const text = fixture(name);
      const frames = frameAll([text]);
      expect(frames.map((f) => f.raw).join('')).toBe(text);
      for (const f of frames.slice(1)) {
        const { digits, before, payload, after } = splitLengthPrefixed(f.raw);
        expect(Number(digits)).toBe(before.length + payload.length + after.length);
      }
    }
  });

  it('any split of the text (inside the digits, inside surrogate pairs) gives the same frames', () => {
    const whole = frameAll([body]);
    fc.assert(
      fc.property(cutFractions(40), (cuts) => {
        expect(frameAll(splitText(body, cuts))).toEqual(whole);
      }),
      { numRuns: 500 },
    );
  });

  it('one code unit at a time gives the same frames', () => {
    expect(frameAll([...body.split('')])).toEqual(frameAll([body]));
  });

  it('re-rendering recomputes the length in UTF-16 units and keeps every other byte', () => {
    const raw = '\n\n25\n[["e",4,null,null,216]]\n';
    const out = renderLengthPrefixed(raw, `[["e",4,null,null,"${ASTRAL}x"]]`);
    expect(out).toBe(`\n\n27\n[["e",4,null,null,"${ASTRAL}x"]]\n`);
    expect(renderLengthPrefixed(raw, '[["e",4,null,null,216]]')).toBe(raw);
    // A frame without a length (bare JSON line) stays without one.
    expect(renderLengthPrefixed('[1]\n', '[22]')).toBe('[22]\n');
  });

  it('a declared length in another convention falls back to the line after the digits', () => {
    const json = JSON.stringify([['wrb.fr', null, '[]']]);
    // Counted from after the newline (one hand-written parser's convention): too short by one.
    const short = `)]}'\n\n${json.length}\n${json}\n` + google([['e', 4]]);
    expect(frameAll([short]).map((f) => f.payload)).toEqual([undefined, json, '[["e",4]]']);
    // Counted in UTF-8 bytes: overshoots into the next frame when the text is multi-byte.
    const wide = JSON.stringify([['wrb.fr', null, JSON.stringify([`café ${ASTRAL}`])]]);
    const bytes =
      `)]}'\n${new TextEncoder().encode(wide).length + 2}\n${wide}\n` + google([['e', 4]]);
    const frames = frameAll([bytes]);
    expect(frames.map((f) => f.raw).join('')).toBe(bytes);
    expect(frames.map((f) => f.payload)).toEqual([undefined, wide, '[["e",4]]']);
    // Re-rendering keeps the server's offset between its count and the JSON.
    const wideFrame = frames[1]?.raw ?? '';
    expect(renderLengthPrefixed(wideFrame, '[1]')).toBe(
      `\n${new TextEncoder().encode(wide).length + 2 - wide.length + 3}\n[1]\n`,
    );
  });

  it('reads a body without the guard line, and NDJSON lines without lengths', () => {
    const lines = '[["wrb.fr",null,"[]"]]\n[["e",4]]\n';
    expect(frameAll([lines]).map((f) => f.payload)).toEqual([
      '[["wrb.fr",null,"[]"]]',
      '[["e",4]]',
    ]);
    expect(frameAll([google([1])]).map((f) => f.raw)).toEqual(['5\n[1]\n']);
  });

  it('an incomplete last frame passes through as is, without a payload to guard', () => {
    const cut = body.slice(0, body.indexOf('rc_1'));
    const frames = frameAll([cut]);
    expect(frames.map((f) => f.raw).join('')).toBe(cut);
    expect(() => JSON.parse(frames.at(-1)?.payload ?? '')).toThrow();
    expect(frameAll([')]}'])).toEqual([{ raw: ')]}' }]);
    expect(frameAll([")]}'\n\n"])).toEqual([{ raw: ")]}'" }, { raw: '\n\n' }]);
    expect(frameAll([''])).toEqual([]);
  });

  it('a huge declared length waits for the body end, then falls back to lines', () => {
    const text = ")]}'\n999999\n[1]\n2\n[\n";
    const framer = new LengthPrefixedFramer();
    expect(framer.push(text).map((f) => f.raw)).toEqual([")]}'"]);
    expect(framer.end().map((f) => f.raw)).toEqual(['\n999999\n[1]\n', '2\n[\n']);
  });
});
