/**
 * Issue 19 §3: `IntervalList` (hidden-ranges.ts) answers from where it answered
 * last, walking a few ranges before it falls back to a binary search. For any
 * sequence of ranges added in order, trims and queries at any offsets (near
 * the last one or far from it, forwards and backwards, with many ranges so the
 * walk is used), every answer equals a model that keeps the hidden offsets in
 * a set.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IntervalList } from '../../src/core/guard/hidden-ranges.ts';
import { PROPERTY_RUNS } from '../support/text-arbitraries.ts';

type Op =
  | { kind: 'add'; gap: number; length: number }
  | { kind: 'trim'; back: number }
  | { kind: 'query'; back: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      gap: fc.integer({ min: -2, max: 6 }),
      length: fc.integer({ min: 0, max: 4 }),
    }),
  },
  {
    // Rare, so that the list usually holds more than the few ranges it scans.
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('trim' as const),
      back: fc.integer({ min: 0, max: 400 }),
    }),
  },
  {
    weight: 16,
    arbitrary: fc.record({
      kind: fc.constant('query' as const),
      // Before the last range added, far or near, or just past it.
      back: fc.integer({ min: -5, max: 300 }),
    }),
  },
);

/**
 * Hidden offsets as a set; a trim drops the runs that end at or before its
 * offset, and queries are asked at or after it (the scanner never asks about
 * units it let go).
 */
class Model {
  readonly hidden = new Set<number>();

  has(at: number): boolean {
    return this.hidden.has(at);
  }
  nextFrom(at: number, end: number): number {
    for (let p = at; p < end; p++) if (this.has(p)) return p;
    return Infinity;
  }
  runEnd(at: number): number {
    let p = at;
    while (this.has(p)) p++;
    return p;
  }
  runStartBefore(at: number): number {
    let p = at;
    while (this.has(p - 1)) p--;
    return p;
  }
}

describe('IntervalList answers from its last answer', () => {
  it('any adds, trims and queries: every answer equals the model', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 20, maxLength: 200, size: 'max' }), (ops) => {
        const list = new IntervalList();
        const model = new Model();
        let end = 0;
        let lastStart = 0;
        let trimmedAt = 0;
        for (const o of ops) {
          if (o.kind === 'add') {
            // In order: at or after the last range's start (a negative gap overlaps or touches it).
            const from = Math.max(lastStart, trimmedAt, end + o.gap);
            if (o.length === 0) continue;
            list.add(from, from + o.length);
            for (let p = from; p < from + o.length; p++) model.hidden.add(p);
            if (from > end) lastStart = from;
            end = Math.max(end, from + o.length);
          } else if (o.kind === 'trim') {
            trimmedAt = Math.max(trimmedAt, end - o.back);
            list.trimBefore(trimmedAt);
            // A range is a maximal run of hidden offsets (ranges never touch): those ending by then go.
            const gone = [...model.hidden].filter((p) => model.runEnd(p) <= trimmedAt);
            for (const p of gone) model.hidden.delete(p);
          } else {
            const at = end - o.back;
            if (at < trimmedAt) continue;
            expect(list.has(at)).toBe(model.has(at));
            expect(list.nextFrom(at)).toBe(model.nextFrom(at, end));
            expect(list.runEnd(at)).toBe(model.runEnd(at));
            if (at > trimmedAt) expect(list.runStartBefore(at)).toBe(model.runStartBefore(at));
          }
        }
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });
});
