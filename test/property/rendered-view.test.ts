/**
 * The rendered view (rendered-view.ts) is a function of the input alone: any
 * split of the input gives the same view, the same hidden units and the same
 * offsets back into the input (DESIGN.md §3.1, §3.10).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RenderedView } from '../../src/core/guard/rendered-view.ts';
import { PROPERTY_RUNS, cut, cutsArbitrary } from '../support/text-arbitraries.ts';

const PIECES = [
  '&',
  '&#',
  '&#x67;',
  '&#103;',
  '&amp;',
  '&lowbar;',
  '&#x1F600;',
  '&#xE0041;',
  '&#0;',
  '&nope;',
  '<',
  '<!',
  '<!--',
  '-->',
  '--',
  '>',
  '*',
  '**',
  '`',
  '\u200b',
  '\u00ad',
  '\u{e0041}',
  '\udb40',
  '\udc41',
  '\u{1f600}',
  'ghp_',
  'abc',
  ' ',
  ';',
  '#',
  'x',
];

const textArb = fc
  .array(fc.constantFrom(...PIECES), { maxLength: 24 })
  .map((parts) => parts.join(''));

interface Snapshot {
  view: string;
  hidden: boolean[];
  content: boolean[];
  rawStart: number[];
  rawEnd: number[];
}

function render(chunks: string[]): Snapshot {
  const v = new RenderedView();
  for (const c of chunks) v.push(c);
  v.end();
  const n = v.text.end;
  const snap: Snapshot = {
    view: v.text.slice(0, n),
    hidden: [],
    content: [],
    rawStart: [],
    rawEnd: [],
  };
  for (let i = 0; i < n; i++) {
    snap.hidden.push(v.hidden.all.has(i));
    snap.content.push(v.hidden.content.has(i));
  }
  for (let i = 0; i <= n; i++) {
    snap.rawStart.push(v.rawStart(i));
    snap.rawEnd.push(v.rawEnd(i));
  }
  return snap;
}

describe('rendered view', () => {
  it('any split gives the single-chunk view, hidden units and offsets', () => {
    fc.assert(
      fc.property(textArb, cutsArbitrary, (text, fractions) => {
        expect(render(cut(text, fractions))).toEqual(render([text]));
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('maps every view unit back to the input it came from', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        const s = render([text]);
        expect(s.rawEnd[s.view.length]).toBe(text.length);
        for (let i = 0; i < s.view.length; i++) {
          const from = s.rawStart[i] as number;
          const to = s.rawEnd[i + 1] as number;
          expect(to).toBeGreaterThan(from);
          const raw = text.slice(from, to);
          // Either the unit itself, or a reference that decodes to it.
          if (!raw.startsWith('&')) expect(raw).toContain(s.view[i]);
        }
      }),
      { numRuns: Math.ceil(PROPERTY_RUNS / 4) },
    );
  });

  it('decodes references and hides what is not seen', () => {
    const s = render(['a&#x67;b&lowbar;c\u200b*<!-- z -->d&amp e']);
    expect(s.view).toBe('agb_c\u200b*<!-- z -->d&amp e');
    expect(s.hidden.slice(5, 11)).toEqual([true, true, true, true, true, true]);
    expect(s.content.slice(11, 17)).toEqual([true, true, true, true, true, true]);
    expect(s.hidden[17]).toBe(false);
    expect(s.rawStart[1]).toBe(1);
    expect(s.rawStart[2]).toBe(7);
  });

  it('holds at most a reference or a comment opener of input back', () => {
    const v = new RenderedView();
    v.push('text &#x6');
    expect(v.text.end).toBe(5);
    expect(v.rawDecoded).toBe(5);
    v.push('7; more <!');
    expect(v.text.slice(0, v.text.end)).toBe('text g more ');
    v.push('- no');
    expect(v.text.slice(0, v.text.end)).toBe('text g more <!- no');
  });
});
