/**
 * Issue 19 §5: the rendered view tests a long chunk for special units with the
 * expression and a short one with the table (rendered-view.ts `plain`). For any text
 * (units at and around the special ranges' edges, Markdown, comments, references,
 * surrogate halves), both paths give the same answer, and a view fed any chunking with
 * either path everywhere has the same text, hidden units and offsets.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RenderedView, plain, plainByExpression } from '../../src/core/guard/rendered-view.ts';
import { withSetting } from '../support/guard-steps.ts';
import { PROPERTY_RUNS, cut, cutsArbitrary } from '../support/text-arbitraries.ts';
import { specialEdgeUnit } from '../support/special-edge-units.ts';

const unit = fc.oneof(
  specialEdgeUnit,
  fc.integer({ min: 0x20, max: 0x7e }),
  fc.integer({ min: 0, max: 0xffff }),
);
const piece = fc.oneof(
  { weight: 3, arbitrary: fc.array(unit, { maxLength: 12 }).map((u) => String.fromCharCode(...u)) },
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom(...'abc xyz.\n'), maxLength: 40 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      ...['**', '`', '<!--', '-->', '&amp;', '&#x67;', '&lt', '<b>'],
      // Surrogate pairs: a tag or variation selector (hidden by its high half), an emoji.
      ...['\u{E0041}', '\u{E01EF}', '\u{1F600}', 'a\u{E0067}b'],
    ),
  },
);
const textOf = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''));

/** The view's text, hidden ranges and raw offsets after the chunks and the end. */
function viewOf(chunks: readonly string[]): unknown {
  const view = new RenderedView();
  for (const chunk of chunks) view.push(chunk);
  view.end();
  const { text, base } = view.text.view();
  const end = view.text.end;
  const offsets = Array.from({ length: end + 1 }, (_, v) => [view.rawStart(v), view.rawEnd(v)]);
  const hidden = Array.from({ length: end }, (_, v) =>
    [view.hidden.all.has(v), view.hidden.content.has(v)].map(Number).join(''),
  ).join(',');
  return { text, base, offsets, hidden };
}

describe('a plain chunk of the rendered view, by the expression or the table (issue 19 §5)', () => {
  it('both paths answer alike for any text', () => {
    fc.assert(
      fc.property(textOf, (s) => {
        const byTable = withSetting(plainByExpression, 'from', Infinity, () => plain(s));
        const byExpression = withSetting(plainByExpression, 'from', 0, () => plain(s));
        expect(byExpression).toBe(byTable);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('a view fed any chunking is the same with either path', () => {
    fc.assert(
      fc.property(textOf, cutsArbitrary, (s, cuts) => {
        const chunks = cut(s, cuts);
        expect(withSetting(plainByExpression, 'from', 0, () => viewOf(chunks))).toEqual(
          withSetting(plainByExpression, 'from', Infinity, () => viewOf(chunks)),
        );
      }),
      { numRuns: Math.ceil(PROPERTY_RUNS / 4) },
    );
  });
});
