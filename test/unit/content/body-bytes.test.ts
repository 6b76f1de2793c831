/**
 * body-bytes.ts: the bytes handed back for what the guard released decode to
 * exactly the released text, for any text, any split of its bytes and any
 * pattern of releases (nothing, the decoded text as is, or a changed text); and
 * when the released text is what the bytes hold, the bytes go back as they came.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBodyBytes, heldAtEnd } from '../../../src/content/body-bytes.ts';
import { cutFraction, cutFractions, PROPERTY_RUNS } from '../../support/text-arbitraries.ts';

const text = fc.string({
  unit: fc.constantFrom('a', ' ', '\u00e9', '\u20ac', '\u{1F600}', '\uFEFF'),
  maxLength: 60,
});
const cuts = cutFractions(8);
/** Per chunk: 0 release nothing, 1 release the text as decoded, 2 release a changed text. */
const plan = fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 10, maxLength: 10 });

function split(bytes: Uint8Array, at: readonly number[]): Uint8Array[] {
  const points = [...new Set(at.map((x) => Math.floor(x * bytes.length)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    out.push(bytes.slice(from, p));
    from = p;
  }
  return out;
}

const decodeAll = (bytes: Uint8Array) =>
  new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);

describe('createBodyBytes (UTF-8)', () => {
  it('for any text, split and releases: the bytes handed back decode to the text released', () => {
    fc.assert(
      fc.property(text, cuts, plan, (input, at, choices) => {
        const body = createBodyBytes(false);
        const out: Uint8Array[] = [];
        let released = '';
        let pending = '';
        const chunks = split(new TextEncoder().encode(input), at);
        chunks.forEach((chunk, i) => {
          pending += body.decode(chunk);
          const choice = choices[i % choices.length] ?? 0;
          if (choice === 0) return;
          const give = choice === 1 ? pending : `${pending}[x]`;
          pending = '';
          released += give;
          out.push(body.release(give, false));
        });
        pending += body.flush();
        released += pending;
        out.push(body.release(pending, true));
        expect(decodeAll(Buffer.concat(out))).toBe(released);
      }),
      { numRuns: Math.min(PROPERTY_RUNS, 1000) },
    );
  });

  it('hands back the very bytes when the text released is the text they hold', () => {
    const body = createBodyBytes(false);
    const bytes = new TextEncoder().encode('caf\u00e9 \u{1F600}');
    const first = bytes.slice(0, 4); // "caf" and half of é
    const rest = bytes.slice(4);
    const held = body.decode(first);
    // The decoder holds half a character: those bytes cannot go back on their own.
    expect(body.release(held, false)).toEqual(new TextEncoder().encode('caf'));
    const body2 = createBodyBytes(false);
    const all = body2.decode(first) + body2.decode(rest);
    expect(body2.release(all, false)).toEqual(bytes);
    // Not UTF-8: the text holds U+FFFD, and the bytes go back as they came, not re-encoded.
    const body3 = createBodyBytes(false);
    const odd = new Uint8Array([0x61, 0xff, 0x62]);
    expect(body3.release(body3.decode(odd), false)).toEqual(odd);
  });
});

describe('createBodyBytes (byte-level)', () => {
  it('decodes one unit per byte and hands any bytes back exactly', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), cuts, (bytes, at) => {
        const body = createBodyBytes(true);
        let decoded = '';
        for (const chunk of split(bytes, at)) decoded += body.decode(chunk);
        expect(decoded.length).toBe(bytes.length);
        expect(body.release(decoded, true)).toEqual(bytes);
      }),
      { numRuns: Math.min(PROPERTY_RUNS, 300) },
    );
  });
});

describe('heldAtEnd', () => {
  it('for any text cut at any byte: the bytes of the character the cut splits', () => {
    fc.assert(
      fc.property(text, cutFraction, (input, x) => {
        const bytes = new TextEncoder().encode(input);
        const cut = Math.floor(x * bytes.length);
        const starts = new Set<number>([bytes.length]);
        let at = 0;
        for (const ch of input) {
          starts.add(at);
          at += new TextEncoder().encode(ch).length;
        }
        let start = cut;
        while (!starts.has(start)) start--;
        expect(heldAtEnd(bytes.subarray(0, cut))).toBe(cut - start);
      }),
      { numRuns: Math.min(PROPERTY_RUNS, 1000) },
    );
  });
});
