/**
 * Strings a rule's own pattern matches (issue 17 §3): the pattern (JS regex
 * source in the engine's subset, with its flags) is parsed with
 * `@eslint-community/regexpp` and walked left to right with a seeded random
 * source: a random member of each class, a random branch of each alternation,
 * a random count for each quantifier.
 *
 * Counts: a bounded quantifier takes its minimum, its maximum, a count near
 * the minimum or any count between (separators, quotes and operators, which
 * hold no letter or digit, mostly the fewest allowed). Of the unbounded quantifiers (`*`, `+`,
 * `{n,}`) over something that can hold a value (a letter or a digit), one per
 * sample may stretch: to a small count, a count up to what the rule's
 * `maxLength` leaves, a count that reaches it, or one that goes somewhat past it
 * (the longest values are where a redaction that stops at a bound leaves a tail
 * behind). The others, and any inside another repetition, stay small, so
 * separators (`[ \t]*`) and nested `(?:…+)*` cannot blow up.
 *
 * Classes: four samples in five draw only printable ASCII members where the
 * class has any (what keys are made of); the fifth mixes in other letters
 * (Latin-1, Greek, Cyrillic, CJK) and, rarely, any member that is not a
 * surrogate, control or default-ignorable code point. A class with none of
 * those (`\r`, `[\uDC00-\uDC7F]`) gives what it has. Under `i`, literal letters
 * take a case style per sample (as written, upper, lower, mixed) and classes
 * gain the other case of their ASCII letters.
 *
 * Assertions (`\b`, `\B`, `^`, `$`) generate nothing: they constrain the
 * neighbours, and every sample is checked with
 * `new RegExp('^(?:' + pattern + ')$', flags)`: a sample that fails (a `\b`
 * after a generated `-`, say) is replaced by the next attempt. Callers put
 * separators around a sample (start of text, space, quote, `=`), so an
 * assertion at either end of the pattern holds in context as it did bare.
 * Back-references and lookarounds, which the engine's subset rejects, are
 * rejected here too.
 */
import { RegExpParser } from '@eslint-community/regexpp';
import type {
  Alternative,
  CharacterClass,
  CharacterClassElement,
  CharacterSet,
  Element,
} from '@eslint-community/regexpp/ast';
import fc from 'fast-check';
import { SeededRandom } from '../../bench/seeded-random.ts';

/** What the generator reads of a rule. */
export interface PatternSource {
  id?: string;
  pattern: string;
  flags?: string;
  maxLength?: number;
}

/** Code-point ranges, sorted, disjoint, inclusive. */
export type Ranges = readonly (readonly [number, number])[];

// ---------------------------------------------------------------------------
// Ranges

function normalise(ranges: [number, number][]): [number, number][] {
  const sorted = ranges.filter(([lo, hi]) => lo <= hi).sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

function complement(ranges: Ranges, max: number): [number, number][] {
  const out: [number, number][] = [];
  let next = 0;
  for (const [lo, hi] of ranges) {
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= max) out.push([next, max]);
  return out;
}

function intersect(a: Ranges, b: Ranges): [number, number][] {
  const out: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const [alo, ahi] = a[i] as [number, number];
    const [blo, bhi] = b[j] as [number, number];
    const lo = Math.max(alo, blo);
    const hi = Math.min(ahi, bhi);
    if (lo <= hi) out.push([lo, hi]);
    if (ahi < bhi) i++;
    else j++;
  }
  return out;
}

function subtract(a: Ranges, b: Ranges, max: number): [number, number][] {
  return intersect(a, complement(b, max));
}

function size(ranges: Ranges): number {
  let n = 0;
  for (const [lo, hi] of ranges) n += hi - lo + 1;
  return n;
}

function nth(ranges: Ranges, index: number): number {
  let i = index;
  for (const [lo, hi] of ranges) {
    const n = hi - lo + 1;
    if (i < n) return lo + i;
    i -= n;
  }
  throw new Error('index past the end of the ranges');
}

const DIGIT: Ranges = [[0x30, 0x39]];
const WORD: Ranges = normalise([
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
]);
/** JS `\s`: WhiteSpace and LineTerminator. */
const SPACE: Ranges = normalise([
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
]);
const LINE_TERMINATORS: Ranges = normalise([
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
]);

/** Tier 1: printable ASCII. */
const ASCII: Ranges = [[0x20, 0x7e]];
/** Tier 2: letters people and models write besides ASCII. */
const LETTERS: Ranges = normalise([
  [0xc0, 0xff],
  [0x391, 0x3c9],
  [0x410, 0x44f],
  [0x4e00, 0x9fa5],
]);
/** Never picked from a class that has anything else: invisible, control, surrogate. */
const AVOID: Ranges = normalise([
  [0x00, 0x1f],
  [0x7f, 0x9f],
  [0xad, 0xad],
  [0x34f, 0x34f],
  [0x61c, 0x61c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x200b, 0x200f],
  [0x2028, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  [0xd800, 0xdfff],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff0, 0xfff8],
  [0x1bca0, 0x1bca3],
  [0x1d173, 0x1d17a],
  [0xe0000, 0xe0fff],
]);

function asciiCaseClosure(ranges: Ranges): [number, number][] {
  const extra: [number, number][] = [];
  for (const [lo, hi] of intersect(ranges, [[0x41, 0x5a]])) extra.push([lo + 32, hi + 32]);
  for (const [lo, hi] of intersect(ranges, [[0x61, 0x7a]])) extra.push([lo - 32, hi - 32]);
  return normalise([...ranges.map(([lo, hi]) => [lo, hi] as [number, number]), ...extra]);
}

/** Draws members of a set, ASCII first (see the module comment). */
export class ClassSampler {
  private readonly tiers: { ranges: Ranges; size: number }[];

  constructor(
    readonly ranges: Ranges,
    max: number,
  ) {
    const ascii = intersect(ranges, ASCII);
    const letters = intersect(ranges, LETTERS);
    const other = subtract(ranges, AVOID, max);
    this.tiers = [ascii, letters, other, ranges.map(([lo, hi]) => [lo, hi] as [number, number])]
      .map((r) => ({ ranges: r, size: size(r) }))
      .filter((t) => t.size > 0);
    if (this.tiers.length === 0) throw new Error('empty character class');
  }

  /** A member; `asciiOnly` keeps to printable ASCII when the class has any. */
  draw(rng: SeededRandom, asciiOnly: boolean): string {
    const roll = asciiOnly ? 0 : rng.next();
    const wanted = roll < 0.8 ? 0 : roll < 0.95 ? 1 : 2;
    const tier = this.tiers[Math.min(wanted, this.tiers.length - 1)] as {
      ranges: Ranges;
      size: number;
    };
    return String.fromCodePoint(nth(tier.ranges, rng.int(0, tier.size - 1)));
  }
}

// ---------------------------------------------------------------------------
// Random source

/** The bench's seeded PRNG (mulberry32): the same seed gives the same sample. */
export { SeededRandom as Rng };

// ---------------------------------------------------------------------------
// The generator tree

type Gen =
  | { type: 'chars'; sampler: ClassSampler }
  | { type: 'literal'; codePoint: number; foldable: boolean }
  | { type: 'seq'; items: Gen[] }
  | { type: 'alt'; options: Gen[] }
  | { type: 'repeat'; item: Gen; min: number; max: number; stretch: number }
  | { type: 'empty' };

interface Flags {
  ignoreCase: boolean;
  dotAll: boolean;
  unicode: boolean;
  max: number;
}

let parser: RegExpParser | undefined;

function toGen(pattern: string, flagText: string): { root: Gen; stretchable: number } {
  for (const f of flagText) {
    if (!'imsu'.includes(f)) throw new Error(`flag "${f}" is not supported`);
  }
  const flags: Flags = {
    ignoreCase: flagText.includes('i'),
    dotAll: flagText.includes('s'),
    unicode: flagText.includes('u'),
    max: flagText.includes('u') ? 0x10ffff : 0xffff,
  };
  parser ??= new RegExpParser({ ecmaVersion: 2025 });
  const ast = parser.parsePattern(pattern, 0, pattern.length, {
    unicode: flags.unicode,
    unicodeSets: false,
  });
  const alternatives = (alts: Alternative[]): Gen =>
    alts.length === 1
      ? { type: 'seq', items: (alts[0] as Alternative).elements.map(element) }
      : {
          type: 'alt',
          options: alts.map((a) => ({ type: 'seq', items: a.elements.map(element) })),
        };

  const fold = (ranges: Ranges): Ranges => (flags.ignoreCase ? asciiCaseClosure(ranges) : ranges);

  const characterSet = (e: CharacterSet): Ranges => {
    switch (e.kind) {
      case 'any':
        return flags.dotAll ? [[0, flags.max]] : complement(LINE_TERMINATORS, flags.max);
      case 'digit':
      case 'space':
      case 'word': {
        const base = e.kind === 'digit' ? DIGIT : e.kind === 'space' ? SPACE : WORD;
        return e.negate ? complement(base, flags.max) : base;
      }
      default:
        throw new Error(`unsupported character set ${e.raw}`);
    }
  };

  const classElement = (el: CharacterClassElement): Ranges => {
    switch (el.type) {
      case 'Character':
        return [[el.value, el.value]];
      case 'CharacterClassRange':
        return [[el.min.value, el.max.value]];
      case 'CharacterSet':
        return characterSet(el);
      default:
        throw new Error(`unsupported class element ${el.raw}`);
    }
  };

  const characterClass = (e: CharacterClass): Ranges => {
    const positive = fold(normalise(e.elements.flatMap((el) => [...classElement(el)].map(copy))));
    return e.negate ? complement(positive, flags.max) : positive;
  };

  const chars = (ranges: Ranges): Gen => ({
    type: 'chars',
    sampler: new ClassSampler(ranges, flags.max),
  });

  function element(e: Element): Gen {
    switch (e.type) {
      case 'Character':
        return {
          type: 'literal',
          codePoint: e.value,
          foldable: flags.ignoreCase && /[A-Za-z]/.test(String.fromCodePoint(e.value)),
        };
      case 'CharacterSet':
        return chars(fold(characterSet(e)));
      case 'CharacterClass':
        return chars(characterClass(e));
      case 'Group':
      case 'CapturingGroup':
        return alternatives(e.alternatives);
      case 'Quantifier': {
        const item = element(e.element);
        // Unbounded repetitions of something that can hold a value (a letter or
        // digit), numbered: one of them per sample is stretched to maxLength.
        const stretch = e.max === Infinity && holdsValue(item) ? stretchable++ : -1;
        return { type: 'repeat', item, min: e.min, max: e.max, stretch };
      }
      case 'Assertion':
        if (e.kind === 'start' || e.kind === 'end' || e.kind === 'word') return { type: 'empty' };
        throw new Error(`lookaround ${e.raw} is outside the engine's subset`);
      default:
        throw new Error(`${e.type} ${e.raw} is outside the engine's subset`);
    }
  }

  let stretchable = 0;
  const root = alternatives(ast.alternatives);
  return { root, stretchable };
}

/** True when `g` can produce an ASCII letter or digit. */
function holdsValue(g: Gen): boolean {
  switch (g.type) {
    case 'chars':
      return intersect(g.sampler.ranges, WORD).length > 0;
    case 'literal':
      return /[A-Za-z0-9]/.test(String.fromCodePoint(g.codePoint));
    case 'empty':
      return false;
    case 'seq':
      return g.items.some(holdsValue);
    case 'alt':
      return g.options.some(holdsValue);
    case 'repeat':
      return holdsValue(g.item);
  }
}

function copy(r: readonly [number, number]): [number, number] {
  return [r[0], r[1]];
}

/** Typical length of one generation of `g`, for sizing unbounded counts. */
function typicalLength(g: Gen): number {
  switch (g.type) {
    case 'chars':
    case 'literal':
      return 1;
    case 'empty':
      return 0;
    case 'seq':
      return g.items.reduce((n, item) => n + typicalLength(item), 0);
    case 'alt':
      return g.options.reduce((n, o) => n + typicalLength(o), 0) / Math.max(1, g.options.length);
    case 'repeat': {
      const max = g.max === Infinity ? g.min + 4 : g.max;
      return ((g.min + max) / 2) * typicalLength(g.item);
    }
  }
}

type CaseStyle = 'as-written' | 'upper' | 'lower' | 'mixed';

interface Run {
  rng: SeededRandom;
  out: string[];
  length: number;
  /** Repetitions (max > 1) we are inside of. */
  depth: number;
  caseStyle: CaseStyle;
  asciiOnly: boolean;
  /** The unbounded repetition (its `stretch` number) that may reach maxLength, or -1. */
  stretch: number;
  maxLength: number;
  /** Where the stretched repetition ended in the sample, once generated. */
  stretchEnd?: number;
  /** Whether the stretched repetition repeats single units (a run a continuation class covers). */
  stretchIsRun?: boolean;
}

function emit(run: Run, s: string): void {
  run.out.push(s);
  run.length += s.length;
}

function boundedCount(rng: SeededRandom, min: number, max: number, separator: boolean): number {
  const roll = rng.next();
  if (separator) {
    // Spaces, quotes, operators: mostly as few as allowed, as people write them.
    if (roll < 0.55) return min;
    if (roll < 0.75) return Math.min(max, min + 1);
    if (roll < 0.85) return max;
    return rng.int(min, max);
  }
  // Optional parts (`{0,25}` after a name) are often left out.
  if (min === 0 && roll < 0.35) return 0;
  const then = rng.next();
  if (then < 0.25) return min;
  if (then < 0.45) return max;
  if (then < 0.7) return rng.int(min, Math.min(max, min + 32));
  return rng.int(min, max);
}

function unboundedCount(run: Run, g: Gen & { type: 'repeat' }): number {
  const { rng } = run;
  const min = g.min;
  if (run.depth > 0 || g.stretch < 0 || g.stretch !== run.stretch)
    return rng.next() < 0.9 ? rng.int(min, min + 4) : rng.int(min, min + 32);
  const unit = Math.max(1, typicalLength(g.item));
  // The count that brings the sample to the rule's maxLength from here.
  const reach = Math.max(min, Math.floor((run.maxLength - run.length) / unit));
  const roll = rng.next();
  if (roll < 0.3) return rng.int(min, min + 8);
  if (roll < 0.55) return rng.int(min, reach);
  if (roll < 0.75) return Math.max(min, reach - rng.int(0, 3));
  // Past the bound only as a run of units (what a rule's `continuation` class
  // covers); a repetition of structure stops at the bound (see `attempt`).
  if (g.item.type !== 'chars') return reach;
  return reach + rng.int(1, 8 + Math.floor(reach / 16));
}

function generate(g: Gen, run: Run): void {
  switch (g.type) {
    case 'empty':
      return;
    case 'chars':
      emit(run, g.sampler.draw(run.rng, run.asciiOnly));
      return;
    case 'literal': {
      let s = String.fromCodePoint(g.codePoint);
      if (g.foldable) {
        const style = run.caseStyle;
        if (style === 'upper' || (style === 'mixed' && run.rng.next() < 0.5)) s = s.toUpperCase();
        else if (style === 'lower' || style === 'mixed') s = s.toLowerCase();
      }
      emit(run, s);
      return;
    }
    case 'seq':
      for (const item of g.items) generate(item, run);
      return;
    case 'alt':
      generate(run.rng.pick(g.options), run);
      return;
    case 'repeat': {
      const count =
        g.max === Infinity
          ? unboundedCount(run, g)
          : boundedCount(run.rng, g.min, g.max, !holdsValue(g.item));
      if (g.max > 1) run.depth++;
      for (let i = 0; i < count; i++) generate(g.item, run);
      if (g.max > 1) run.depth--;
      if (g.stretch >= 0 && g.stretch === run.stretch && run.depth === 0) {
        run.stretchEnd = run.length;
        run.stretchIsRun = g.item.type === 'chars';
      }
      return;
    }
  }
}

// ---------------------------------------------------------------------------
// Public API

const DEFAULT_MAX_LENGTH = 256;
/** Units a sample past its bound may end with after its stretched run (padding such as `==`). */
const TRAILER = 8;
const ATTEMPTS = 200;

/** A rule's pattern, compiled once for sampling. */
export class PatternStrings {
  private readonly gen: Gen;
  private readonly stretchable: number;
  private readonly whole: RegExp;
  private readonly maxLength: number;

  constructor(readonly source: PatternSource) {
    const flags = source.flags ?? '';
    const { root, stretchable } = toGen(source.pattern, flags);
    this.gen = root;
    this.stretchable = stretchable;
    this.whole = wholeMatchRegExp(source);
    this.maxLength = source.maxLength ?? DEFAULT_MAX_LENGTH;
  }

  /** True when the whole of `s` is a match of the pattern (JS semantics). */
  matches(s: string): boolean {
    return this.whole.test(s);
  }

  /** One attempt: a string built from the pattern, not yet checked. */
  attempt(seed: number): string {
    const rng = new SeededRandom(seed);
    const run: Run = {
      rng,
      out: [],
      length: 0,
      depth: 0,
      caseStyle: rng.pick(['as-written', 'as-written', 'upper', 'lower', 'mixed'] as const),
      asciiOnly: rng.next() < 0.8,
      stretch: this.stretchable > 0 ? rng.int(0, this.stretchable - 1) : -1,
      maxLength: this.maxLength,
    };
    generate(this.gen, run);
    // Past its bound a rule sees no more of its own structure: only the run its
    // `continuation` class continues (DESIGN.md §3.10). A sample that goes past the
    // bound inside a repetition and then goes on with more of the pattern (a second
    // Kubernetes data entry after a 16 KB first one) tests a format no bounded rule
    // can follow, so the stretch past the bound stays at the end of the sample.
    if (
      run.length > this.maxLength &&
      (run.stretchIsRun !== true || (run.stretchEnd ?? run.length) < run.length - TRAILER)
    ) {
      return '';
    }
    return run.out.join('');
  }

  /**
   * A string the pattern matches whole, drawn from `seed` (deterministic). Throws
   * when no attempt matches: that is a bug in the generator, not in the rule.
   */
  sample(seed: number): string {
    for (let i = 0; i < ATTEMPTS; i++) {
      const s = this.attempt((seed + Math.imul(i, 0x9e3779b1)) >>> 0);
      if (this.matches(s)) return s;
    }
    throw new Error(
      `no string generated from ${this.source.id ?? this.source.pattern} in ${ATTEMPTS} attempts matches it`,
    );
  }
}

/** `^(?:pattern)$` with the rule's flags. */
export function wholeMatchRegExp(source: PatternSource): RegExp {
  return new RegExp(`^(?:${source.pattern})$`, source.flags ?? '');
}

const compiled = new Map<string, PatternStrings>();

/** The (cached) sampler of a rule's pattern. */
export function patternStringsOf(source: PatternSource): PatternStrings {
  const key = `${source.flags ?? ''}/${source.maxLength ?? ''}/${source.pattern}`;
  let p = compiled.get(key);
  if (p === undefined) {
    p = new PatternStrings(source);
    compiled.set(key, p);
  }
  return p;
}

/**
 * Strings the pattern matches whole, as a fast-check arbitrary. Samples come
 * from a seed (not shrunk: a smaller seed is not a simpler string).
 */
export function patternStrings(source: PatternSource): fc.Arbitrary<string> {
  const p = patternStringsOf(source);
  return fc.noShrink(fc.integer()).map((seed) => p.sample(seed));
}

/** A sampler for one character class (`[^\s"'`]`), e.g. a rule's `continuation`. */
export function classSampler(classSource: string, flags = ''): ClassSampler {
  const g = toGen(classSource, flags).root;
  const only = g.type === 'seq' && g.items.length === 1 ? g.items[0] : undefined;
  if (only?.type !== 'chars') throw new Error(`${classSource} is not one character class`);
  return only.sampler;
}
