/**
 * piecewise-encoder.ts: the guarded text of a network chunk, encoded piece by
 * piece as it comes back, gives the page the bytes of the whole text encoded at
 * once, however the text was cut (inside surrogate pairs too).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PiecewiseEncoder } from '../../../src/page/piecewise-encoder.ts';
import { PROPERTY_RUNS, cut, cutsArbitrary } from '../../support/text-arbitraries.ts';

const encoder = new TextEncoder();

/** Texts rich in surrogates: pairs, lone highs and lows, and plain units. */
const text = fc.string({
  unit: fc.constantFrom('a', 'é', '数', '\u{1F600}', '\uD83D', '\uDE00', '\n'),
  maxLength: 24,
});

describe('PiecewiseEncoder', () => {
  it('for any texts cut anywhere, each take is the bytes of its text encoded at once', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(text, cutsArbitrary), { maxLength: 5 }),
        // From a buffer smaller than one piece's bytes (it grows) to one larger than all.
        fc.integer({ min: 1, max: 512 }),
        (chunks, initialBytes) => {
          const pieces = new PiecewiseEncoder(encoder, initialBytes);
          for (const [whole, cuts] of chunks) {
            for (const piece of cut(whole, cuts)) pieces.add(piece);
            expect(pieces.empty).toBe(whole === '');
            if (whole !== '') {
              const bytes = pieces.take();
              expect([...bytes]).toEqual([...encoder.encode(whole)]);
              // An array of its own: a page reading `value.buffer` sees these bytes only.
              expect(bytes.buffer.byteLength).toBe(bytes.byteLength);
            }
            expect(pieces.empty).toBe(true);
          }
        },
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('keeps a high surrogate that ends a piece for the low one that starts the next', () => {
    const pieces = new PiecewiseEncoder(encoder);
    pieces.add('x\uD83D');
    pieces.add('\uDE00y');
    expect(new TextDecoder().decode(pieces.take())).toBe('x\u{1F600}y');
    // Alone at the end of a chunk, it is encoded as a whole-text encode would (U+FFFD).
    pieces.add('\uD83D');
    expect([...pieces.take()]).toEqual([0xef, 0xbf, 0xbd]);
  });
});
