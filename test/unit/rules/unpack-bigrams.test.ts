import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unpackBigrams } from '../../../src/core/rules/load-warm-tables.ts';
import { packBigrams } from '../../../src/core/rules/warm-tables.ts';

/** Words as the tables hold them: mostly all clear or all set, some mixed. */
const word = fc.oneof(
  fc.constant(0),
  fc.constant(0xffffffff),
  fc.integer({ min: 0, max: 0xffffffff }),
);
const words = fc.array(word, { maxLength: 96 }).map((list) => Uint32Array.from(list));

describe('unpackBigrams (warm tables, issue 19 §4)', () => {
  it('for any words: byte 32w + b is bit b of word w, and nothing else is set', () => {
    fc.assert(
      fc.property(words, (packed) => {
        const table = unpackBigrams(packed);
        expect(table.length).toBe(packed.length * 32);
        for (let i = 0; i < table.length; i++) {
          expect(table[i]).toBe(((packed[i >>> 5] as number) >>> (i & 31)) & 1);
        }
      }),
    );
  });

  it('for any words: is the inverse of packBigrams', () => {
    fc.assert(
      fc.property(words, (packed) => {
        expect(packBigrams(unpackBigrams(packed))).toEqual(packed);
      }),
    );
  });
});
