/**
 * Issue 19 §3: the rendered view finds the next unit it may rewrite or hide
 * with a table (rendered-view.ts `nextSpecial`), not with the expression built
 * from the same ranges. For any text and any offset, both name the same unit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SPECIAL_SOURCE, nextSpecial } from '../../src/core/guard/rendered-view.ts';
import { PROPERTY_RUNS } from '../support/text-arbitraries.ts';
import { specialEdgeUnit } from '../support/special-edge-units.ts';

const special = new RegExp(SPECIAL_SOURCE, 'g');

function byExpression(s: string, from: number): number {
  special.lastIndex = from;
  return special.exec(s)?.index ?? s.length;
}

/** Units at and around the edges of the ranges, and any others. */
const unit = fc.oneof(specialEdgeUnit, fc.integer({ min: 0, max: 0xffff }));
const textOf = fc.array(unit, { maxLength: 40 }).map((units) => String.fromCharCode(...units));

describe('next special unit of the rendered view', () => {
  it('the table and the expression agree for any text and offset', () => {
    fc.assert(
      fc.property(textOf, fc.nat(), (s, n) => {
        const from = s.length === 0 ? 0 : n % (s.length + 1);
        expect(nextSpecial(s, from)).toBe(byExpression(s, from));
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });
});
