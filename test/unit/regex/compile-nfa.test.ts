/**
 * The typed-array NFA and its construction (one state per unit for counted
 * classes, Thompson copies otherwise) accept exactly what JS accepts, and the
 * linear analyses give the exact shortest / longest match lengths.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileNfa } from '../../../src/core/regex/compile-nfa.ts';
import { has } from '../../../src/core/regex/char-set.ts';
import type { Nfa } from '../../../src/core/regex/nfa.ts';
import { distancesToFinal, maxMatchLength } from '../../../src/core/regex/nfa-analysis.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';

/** Epsilon closure over the typed arrays (patterns here have no assertions). */
function closure(nfa: Nfa, seeds: number[]): Set<number> {
  const seen = new Set<number>();
  const stack = [...seeds];
  while (stack.length > 0) {
    const s = stack.pop() as number;
    if (seen.has(s)) continue;
    seen.add(s);
    for (let e = nfa.epsStart[s]!; e < nfa.epsStart[s + 1]!; e++) stack.push(nfa.epsTo[e]!);
  }
  return seen;
}

/** Whole-text acceptance by plain set simulation. */
function accepts(nfa: Nfa, text: string): boolean {
  let current = closure(nfa, [nfa.start]);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const next: number[] = [];
    for (const s of current) {
      const set = nfa.setAt(s);
      if (set !== null && has(set, unit)) next.push(nfa.to[s]!);
    }
    current = closure(nfa, next);
  }
  return current.has(nfa.final);
}

/** A generated pattern and how deeply quantifiers nest in it. */
interface Generated {
  p: string;
  depth: number;
}

/**
 * The JS reference backtracks exponentially on quantifiers nested three deep
 * over ten units (a full unit run once timed out here at 120 s), so the
 * patterns nest at most two; the NFA side is linear either way.
 */
const MAX_QUANTIFIER_DEPTH = 2;

const atom = fc
  .constantFrom('a', 'b', '[ab]', '[^a]', '.', '\\d', 'ab')
  .map((p): Generated => ({ p, depth: 0 }));
const both = (x: Generated, y: Generated, p: string): Generated => ({
  p,
  depth: Math.max(x.depth, y.depth),
});
const quantified = (x: Generated, p: string): Generated => ({ p, depth: x.depth + 1 });
const pattern: fc.Arbitrary<string> = fc
  .letrec<{ node: Generated }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      atom,
      fc.tuple(tie('node'), tie('node')).map(([x, y]) => both(x, y, x.p + y.p)),
      fc.tuple(tie('node'), tie('node')).map(([x, y]) => both(x, y, `(?:${x.p}|${y.p})`)),
      fc
        .tuple(tie('node'), fc.nat(3), fc.nat(4))
        .map(([x, min, extra]) => quantified(x, `(?:${x.p}){${min},${min + extra}}`)),
      fc.tuple(tie('node'), fc.nat(3)).map(([x, min]) => quantified(x, `(?:${x.p}){${min},}`)),
      fc
        .tuple(tie('node'), fc.constantFrom('*', '+', '?'))
        .map(([x, q]) => quantified(x, `(?:${x.p})${q}`)),
    ),
  }))
  .node.filter((g) => g.depth <= MAX_QUANTIFIER_DEPTH)
  .map((g) => g.p);
const text = fc.string({ unit: fc.constantFrom('a', 'b', '1', '\n', 'z'), maxLength: 10 });

describe('compileNfa', () => {
  it('accepts exactly the texts JS matches in full (fast-check)', { timeout: 120_000 }, () => {
    fc.assert(
      fc.property(pattern, fc.array(text, { maxLength: 8 }), fc.boolean(), (p, texts, fold) => {
        const flags = fold ? 'i' : '';
        const nfa = compileNfa(p, flags);
        const js = new RegExp(`^(?:${p})$`, flags);
        for (const t of texts) expect(accepts(nfa, t)).toBe(js.test(t));
      }),
      { numRuns: Math.min(PROPERTY_RUNS, 400) },
    );
  });

  it.each([
    ['[A-Za-z0-9]{1,8000}', 1, 8000],
    ['a{3}', 3, 3],
    ['a{2,5}b', 3, 6],
    ['(?:ab|c){1,3}', 1, 6],
    ['x[0-9]{2,}', 3, Infinity],
    ['(?:a{0,2}){0,3}', 0, 6],
    ['a*', 0, Infinity],
  ])('%s: shortest %d, longest %d code units', (source, shortest, longest) => {
    const nfa = compileNfa(source, '');
    const dist = distancesToFinal(nfa);
    expect(dist[nfa.start]).toBe(shortest);
    expect(maxMatchLength(nfa, dist)).toBe(longest);
  });

  it('a counted class costs one state per unit, not Thompson copies', () => {
    expect(compileNfa('[A-Za-z0-9]{1,8000}', '').stateCount).toBeLessThanOrEqual(8003);
  });

  it('a pattern that can never match has no distance from its start', () => {
    const nfa = compileNfa('a[^\\s\\S]', '');
    expect(distancesToFinal(nfa)[nfa.start]).toBe(Infinity);
    expect(maxMatchLength(nfa, distancesToFinal(nfa))).toBe(-1);
  });

  it('the object view lists the same edges as the typed arrays', () => {
    const nfa = compileNfa('\\bab{1,3}(?:c|d)$', 'm');
    const view = nfa.states;
    expect(view.length).toBe(nfa.stateCount);
    view.forEach((st, s) => {
      expect(st.eps).toEqual([...nfa.epsTo.subarray(nfa.epsStart[s]!, nfa.epsStart[s + 1]!)]);
      expect(st.cond.map((c) => c.to)).toEqual([
        ...nfa.condTo.subarray(nfa.condStart[s]!, nfa.condStart[s + 1]!),
      ]);
      expect(st.set).toBe(nfa.setAt(s));
      expect(st.to).toBe(nfa.to[s]);
    });
    expect(nfa.hasConditions).toBe(true);
  });
});
