/**
 * fast-check arbitraries for streams: texts built from rule examples, their
 * near misses, keyword fragments and hostile Unicode (surrogate pairs, lone
 * surrogates, combining sequences, CJK), and random ways to cut them into chunks
 * (empty chunks, single code units, cuts inside surrogate pairs).
 */
import fc from 'fast-check';
import type { RulePack } from '../../src/core/rules/rule.ts';

const UNICODE_PIECES = [
  '\u{1F600}',
  '\u{1F469}\u200D\u{1F4BB}',
  'e\u0301',
  '数据',
  '\uD83D',
  '\uDE00',
  '\u{E0041}',
  '\n',
  '\r\n',
  ' ',
  '"',
  '=',
  '-',
  '_',
];

export function textArbitrary(pack: RulePack): fc.Arbitrary<string> {
  const examples = pack.rules.flatMap((r) => [...r.examples.match, ...r.examples.noMatch]);
  const keywords = pack.rules.flatMap((r) => r.keywords ?? []);
  const keywordCuts = keywords.flatMap((k) => [k, k.slice(0, Math.ceil(k.length / 2))]);
  // A pack without keywords (e.g. invisible characters) has no keyword pieces:
  // fc.constantFrom() needs at least one value.
  const piece = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...examples) },
    ...(keywordCuts.length > 0 ? [{ weight: 2, arbitrary: fc.constantFrom(...keywordCuts) }] : []),
    { weight: 2, arbitrary: fc.constantFrom(...UNICODE_PIECES) },
    {
      weight: 3,
      arbitrary: fc.string({ unit: fc.constantFrom(...'abcXYZ0129 _-.:/#\n'), maxLength: 12 }),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) },
  );
  return fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''));
}

const CUT_GRID = 2 ** 20;

/** Cuts `text` at the given fractions (sorted, duplicates allowed → empty chunks). */
export function cut(text: string, fractions: number[]): string[] {
  const points = fractions.map((f) => Math.floor(f * (text.length + 1))).sort((a, b) => a - b);
  const chunks: string[] = [];
  let last = 0;
  for (const p of points) {
    const at = Math.min(Math.max(p, last), text.length);
    chunks.push(text.slice(last, at));
    last = at;
  }
  chunks.push(text.slice(last));
  return chunks;
}

/** Cuts `text` into pushes of the given lengths, repeated in turn (token-sized streams). */
export function splitBySizes(text: string, lengths: readonly number[]): string[] {
  const chunks: string[] = [];
  for (let at = 0, i = 0; at < text.length; i++) {
    const size = lengths[i % lengths.length] as number;
    chunks.push(text.slice(at, at + size));
    at += size;
  }
  return chunks;
}

/**
 * Up to `maxLength` cut points for `cut`, as fractions spread evenly over [0, 1]. Not
 * `fc.double({ min: 0, max: 1 })`: fast-check draws doubles toward their edges, so
 * 92% of those fractions were under 1e-6 and 6% were near 1 (20,000 samples): nearly
 * every "any split" cut a text only at its ends. A grid of 2^20 steps reaches
 * every offset of any text shorter than a million units.
 */
export function cutFractions(maxLength: number): fc.Arbitrary<number[]> {
  return fc.array(cutFraction, { maxLength });
}

/** One fraction of [0, 1] for a cut, drawn evenly (see `cutFractions`). */
export const cutFraction = fc.integer({ min: 0, max: CUT_GRID }).map((n) => n / CUT_GRID);

export const cutsArbitrary = cutFractions(16);

/** Runs for property tests: at least 10,000 in CI (issue 2), fewer locally unless asked. */
export const PROPERTY_RUNS = Number(
  process.env.CSG_PROPERTY_RUNS ?? (process.env.CI ? 10_000 : 2_000),
);
