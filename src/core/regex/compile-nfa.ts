/**
 * Compiles a JS regular expression in the streaming subset to a Thompson NFA
 * over UTF-16 code units.
 *
 * The subset is what an automaton can decide exactly, so that both the engine's
 * "is this still a live prefix?" test and the minimal-hold oracle are exact
 * (issue 2, "Minimal hold"): literals, classes, `.`, `\d \w \s` and negations,
 * groups, alternation, quantifiers, and the one-unit assertions `^ $ \b \B`.
 * Back-references, lookarounds, unicode property escapes, `v`-mode sets and
 * inline modifiers are rejected with a message: a parser that silently dropped
 * an assertion would change what the rule means.
 *
 * Quantifier greediness does not change the language, and the engine matches
 * leftmost-longest, so lazy quantifiers are accepted and behave like greedy ones.
 */
import { RegExpParser } from '@eslint-community/regexpp';
import type {
  Alternative,
  CharacterClass,
  CharacterClassElement,
  CharacterSet as AstCharacterSet,
  Element,
} from '@eslint-community/regexpp/ast';
import {
  type CharSet,
  DIGIT,
  LINE_TERMINATOR,
  MAX_CODE_POINT,
  MAX_UNIT,
  SPACE,
  WORD,
  caseClose,
  intersect,
  internSet,
  isEmpty,
  negate,
  range,
  single,
  union,
  forEachRange,
} from './char-set.ts';
import { CONDITIONS, type Condition, MAX_NFA_STATES, Nfa } from './nfa.ts';
import { removePassThroughStates } from './pass-through-states.ts';

export class RegexSubsetError extends Error {
  override name = 'RegexSubsetError';
}

export interface RegexFlags {
  ignoreCase: boolean;
  multiline: boolean;
  dotAll: boolean;
  unicode: boolean;
}

export function parseFlags(flags: string): RegexFlags {
  for (const f of flags) {
    if (!'imsu'.includes(f)) {
      throw new RegexSubsetError(`flag "${f}" is not supported (use any of i, m, s, u)`);
    }
  }
  return {
    ignoreCase: flags.includes('i'),
    multiline: flags.includes('m'),
    dotAll: flags.includes('s'),
    unicode: flags.includes('u'),
  };
}

interface Fragment {
  start: number;
  end: number;
}

/** A growable list of 32-bit integers (the builder's columns). */
class IntList {
  data = new Int32Array(64);
  length = 0;

  push(v: number): void {
    if (this.length === this.data.length) {
      const bigger = new Int32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = v;
  }

  toArray(): Int32Array {
    return this.data.slice(0, this.length);
  }
}

/** Edges grouped by source state, in insertion order (a stable counting sort). */
function rows(
  stateCount: number,
  from: Int32Array,
  to: Int32Array,
): { start: Int32Array; to: Int32Array; order: Int32Array } {
  const start = new Int32Array(stateCount + 1);
  for (let e = 0; e < from.length; e++) (start[(from[e] as number) + 1] as number)++;
  for (let s = 0; s < stateCount; s++)
    start[s + 1] = (start[s + 1] as number) + (start[s] as number);
  const fill = start.slice(0, stateCount);
  const targets = new Int32Array(from.length);
  const order = new Int32Array(from.length);
  for (let e = 0; e < from.length; e++) {
    const slot = (fill[from[e] as number] as number)++;
    targets[slot] = to[e] as number;
    order[slot] = e;
  }
  return { start, to: targets, order };
}

class NfaBuilder {
  private readonly setOf = new IntList();
  private readonly to = new IntList();
  private readonly epsFrom = new IntList();
  private readonly epsTo = new IntList();
  private readonly condFrom = new IntList();
  private readonly condTo = new IntList();
  private readonly condWhen = new IntList();
  private readonly sets: CharSet[] = [];
  /** Set → id, by identity (the compiler reuses one array per AST node), then by value. */
  private readonly setIdByRef = new Map<CharSet, number>();
  private readonly setIdByShared = new Map<CharSet, number>();

  constructor(private readonly flags: RegexFlags) {}

  get stateCount(): number {
    return this.setOf.length;
  }

  newState(): number {
    if (this.setOf.length >= MAX_NFA_STATES) {
      throw new RegexSubsetError(
        `pattern expands to more than ${MAX_NFA_STATES} automaton states; lower its repetition counts`,
      );
    }
    this.setOf.push(-1);
    this.to.push(-1);
    return this.setOf.length - 1;
  }

  private setId(set: CharSet): number {
    let id = this.setIdByRef.get(set);
    if (id === undefined) {
      const shared = internSet(set);
      id = this.setIdByShared.get(shared);
      if (id === undefined) {
        id = this.sets.length;
        this.sets.push(shared);
        this.setIdByShared.set(shared, id);
      }
      this.setIdByRef.set(set, id);
    }
    return id;
  }

  /** State `from` consumes a unit of `set` and moves to `to` (an empty set consumes nothing). */
  private consume(from: number, set: CharSet, to: number): void {
    if (isEmpty(set)) return;
    this.setOf.data[from] = this.setId(set);
    this.to.data[from] = to;
  }

  link(from: number, to: number): void {
    this.epsFrom.push(from);
    this.epsTo.push(to);
  }

  empty(): Fragment {
    const s = this.newState();
    return { start: s, end: s };
  }

  /** One code-unit step. */
  unit(set: CharSet): Fragment {
    const start = this.newState();
    const end = this.newState();
    this.consume(start, set, end);
    return { start, end };
  }

  condition(when: Condition): Fragment {
    const start = this.newState();
    const end = this.newState();
    this.condFrom.push(start);
    this.condTo.push(end);
    this.condWhen.push(CONDITIONS.indexOf(when));
    return { start, end };
  }

  sequence(parts: Fragment[]): Fragment {
    if (parts.length === 0) return this.empty();
    for (let i = 1; i < parts.length; i++) {
      this.link((parts[i - 1] as Fragment).end, (parts[i] as Fragment).start);
    }
    return { start: (parts[0] as Fragment).start, end: (parts[parts.length - 1] as Fragment).end };
  }

  choice(parts: Fragment[]): Fragment {
    if (parts.length === 1) return parts[0] as Fragment;
    const start = this.newState();
    const end = this.newState();
    for (const p of parts) {
      this.link(start, p.start);
      this.link(p.end, end);
    }
    return { start, end };
  }

  /**
   * The UTF-16 unit set of a code-point set when it is a single unit step
   * (no astral code points in `u` mode), else null.
   */
  singleUnit(set: CharSet): CharSet | null {
    if (!this.flags.unicode) {
      const last = set[set.length - 1];
      return last === undefined || last <= MAX_UNIT ? set : intersect(set, range(0, MAX_UNIT));
    }
    if (!isEmpty(intersect(set, range(0x10000, MAX_CODE_POINT)))) return null;
    return union(intersect(set, range(0, 0xd7ff)), intersect(set, range(0xe000, MAX_UNIT)));
  }

  /**
   * A set of code points as UTF-16: BMP units directly, astral code points as
   * high-surrogate / low-surrogate sequences. In `u` mode lone surrogates are
   * not matched by classes (a deliberate, documented narrowing of JS).
   */
  codePoints(set: CharSet): Fragment {
    const unit = this.singleUnit(set);
    if (unit !== null) return this.unit(unit);
    const bmp = union(intersect(set, range(0, 0xd7ff)), intersect(set, range(0xe000, MAX_UNIT)));
    const branches: Fragment[] = [];
    if (!isEmpty(bmp)) branches.push(this.unit(bmp));
    forEachRange(intersect(set, range(0x10000, MAX_CODE_POINT)), (lo, hi) => {
      for (const [h, l1, l2] of astralSplit(lo, hi)) {
        branches.push(this.sequence([this.unit(single(h)), this.unit(range(l1, l2))]));
      }
    });
    if (branches.length === 0) return this.unit([]);
    return this.choice(branches);
  }

  /** The unit after every iteration stays the same fragment shape, so we rebuild per copy. */
  repeat(build: () => Fragment, min: number, max: number): Fragment {
    const parts: Fragment[] = [];
    for (let i = 0; i < min; i++) parts.push(build());
    if (max === Infinity) {
      const loop = build();
      const hub = this.newState();
      this.link(hub, loop.start);
      this.link(loop.end, hub);
      parts.push({ start: hub, end: hub });
      return this.sequence(parts);
    }
    const optional = max - min;
    if (optional === 0) return this.sequence(parts);
    const head = this.sequence(parts.length > 0 ? parts : [this.empty()]);
    const end = this.newState();
    let cursor = head.end;
    for (let i = 0; i < optional; i++) {
      const copy = build();
      this.link(cursor, end);
      this.link(cursor, copy.start);
      cursor = copy.end;
    }
    this.link(cursor, end);
    return { start: head.start, end };
  }

  /**
   * `U{min,max}` for one unit step U, as a chain of one state per unit instead
   * of Thompson's two-plus-epsilons per copy: state i consumes U into state
   * i + 1, and every state from `min` on may also skip to the end. Same
   * language, under half the states; `{1,8000}` classes (JWTs, PEM bodies,
   * exfil URLs) are what made compiling slow. An unbounded tail is a state
   * that consumes U into itself.
   */
  repeatUnit(set: CharSet, min: number, max: number): Fragment {
    const first = this.newState();
    let cursor = first;
    for (let i = 0; i < min; i++) {
      const next = this.newState();
      this.consume(cursor, set, next);
      cursor = next;
    }
    if (max === Infinity) {
      this.consume(cursor, set, cursor);
      return { start: first, end: cursor };
    }
    const skippers: number[] = [];
    for (let i = min; i < max; i++) {
      const next = this.newState();
      this.consume(cursor, set, next);
      skippers.push(cursor);
      cursor = next;
    }
    for (const s of skippers) this.link(s, cursor);
    return { start: first, end: cursor };
  }

  finish(body: Fragment): Nfa {
    const final = this.newState();
    this.link(body.end, final);
    const nfa = removePassThroughStates({
      start: body.start,
      final,
      setOf: this.setOf.toArray(),
      to: this.to.toArray(),
      epsFrom: this.epsFrom.toArray(),
      epsTo: this.epsTo.toArray(),
      condFrom: this.condFrom.toArray(),
      condTo: this.condTo.toArray(),
      condWhen: this.condWhen.toArray(),
    });
    const n = nfa.setOf.length;
    const eps = rows(n, nfa.epsFrom, nfa.epsTo);
    const cond = rows(n, nfa.condFrom, nfa.condTo);
    const condWhen = new Uint8Array(cond.order.length);
    cond.order.forEach((e, slot) => {
      condWhen[slot] = nfa.condWhen[e] as number;
    });
    return new Nfa({
      start: nfa.start,
      final: nfa.final,
      sets: this.sets,
      setOf: nfa.setOf,
      to: nfa.to,
      epsStart: eps.start,
      epsTo: eps.to,
      condStart: cond.start,
      condTo: cond.to,
      condWhen,
    });
  }
}

function astralSplit(lo: number, hi: number): [number, number, number][] {
  const out: [number, number, number][] = [];
  for (let cp = lo; cp <= hi;) {
    const h = 0xd800 + ((cp - 0x10000) >> 10);
    const blockEnd = 0x10000 + ((h - 0xd800 + 1) << 10) - 1;
    const last = Math.min(hi, blockEnd);
    out.push([h, 0xdc00 + ((cp - 0x10000) & 0x3ff), 0xdc00 + ((last - 0x10000) & 0x3ff)]);
    cp = last + 1;
  }
  return out;
}

class Compiler {
  readonly b: NfaBuilder;
  private readonly max: number;

  constructor(private readonly flags: RegexFlags) {
    this.b = new NfaBuilder(flags);
    this.max = flags.unicode ? MAX_CODE_POINT : MAX_UNIT;
  }

  alternatives(alts: Alternative[]): Fragment {
    return this.b.choice(alts.map((a) => this.b.sequence(a.elements.map((e) => this.element(e)))));
  }

  /** Sets per AST node: a repetition rebuilds its element once per copy. */
  private readonly setCache = new Map<Element, CharSet>();

  private cachedSet(e: Element, compute: () => CharSet): CharSet {
    let set = this.setCache.get(e);
    if (set === undefined) {
      set = compute();
      this.setCache.set(e, set);
    }
    return set;
  }

  /** The code-point set of a one-character element (literal, escape or class), else null. */
  private characterOf(e: Element): CharSet | null {
    switch (e.type) {
      case 'Character':
        return this.cachedSet(e, () =>
          this.flags.ignoreCase ? caseClose(single(e.value)) : single(e.value),
        );
      case 'CharacterSet':
        return this.cachedSet(e, () => this.characterSet(e));
      case 'CharacterClass':
        return this.cachedSet(e, () => this.characterClass(e));
      default:
        return null;
    }
  }

  /** The unit set of an element that is exactly one UTF-16 unit step, else null. */
  private unitSet(e: Element): CharSet | null {
    const set = this.characterOf(e);
    return set === null ? null : this.b.singleUnit(set);
  }

  element(e: Element): Fragment {
    const character = this.characterOf(e);
    if (character !== null) return this.b.codePoints(character);
    switch (e.type) {
      case 'Character':
      case 'CharacterSet':
      case 'CharacterClass':
        throw new Error('unreachable: one-character elements are compiled above');
      case 'Group':
        if (e.modifiers)
          throw new RegexSubsetError(`inline modifiers "${e.raw}" are not supported`);
        return this.alternatives(e.alternatives);
      case 'CapturingGroup':
        return this.alternatives(e.alternatives);
      case 'Quantifier': {
        if (e.max !== Infinity && e.max > 65536) {
          throw new RegexSubsetError(`repetition "${e.raw}" exceeds 65536`);
        }
        const unit = this.unitSet(e.element);
        if (unit !== null) return this.b.repeatUnit(unit, e.min, e.max);
        return this.b.repeat(() => this.element(e.element), e.min, e.max);
      }
      case 'Assertion':
        switch (e.kind) {
          case 'start':
            return this.b.condition(this.flags.multiline ? 'bol' : 'bof');
          case 'end':
            return this.b.condition(this.flags.multiline ? 'eol' : 'eof');
          case 'word':
            return this.b.condition(e.negate ? 'not-word-boundary' : 'word-boundary');
          default:
            throw new RegexSubsetError(
              `lookaround "${e.raw}" cannot be compiled to an automaton; use a bounded class or \\b instead`,
            );
        }
      case 'Backreference':
        throw new RegexSubsetError(`back-reference "${e.raw}" cannot be compiled to an automaton`);
      case 'ExpressionCharacterClass':
        throw new RegexSubsetError(`set expression "${e.raw}" (v flag) is not supported`);
    }
  }

  characterSet(e: AstCharacterSet): CharSet {
    switch (e.kind) {
      case 'any':
        return this.flags.dotAll ? range(0, this.max) : negate(LINE_TERMINATOR, this.max);
      case 'property':
        throw new RegexSubsetError(`unicode property escape "${e.raw}" is not supported`);
      default: {
        const base = e.kind === 'digit' ? DIGIT : e.kind === 'word' ? WORD : SPACE;
        const folded = this.flags.ignoreCase ? caseClose(base) : base;
        return e.negate ? negate(folded, this.max) : folded;
      }
    }
  }

  characterClass(e: CharacterClass): CharSet {
    if (e.unicodeSets) throw new RegexSubsetError(`set notation "${e.raw}" is not supported`);
    const positive = union(...e.elements.map((el) => this.classElement(el)));
    const folded = this.flags.ignoreCase ? caseClose(positive) : positive;
    return e.negate ? negate(folded, this.max) : folded;
  }

  private classElement(el: CharacterClassElement): CharSet {
    switch (el.type) {
      case 'Character':
        return single(el.value);
      case 'CharacterClassRange':
        return range(el.min.value, el.max.value);
      case 'CharacterSet':
        if (el.kind === 'property') {
          throw new RegexSubsetError(`unicode property escape "${el.raw}" is not supported`);
        }
        return this.characterSet(el);
      default:
        throw new RegexSubsetError(`class element "${el.raw}" is not supported`);
    }
  }
}

/**
 * One parser for every pattern: constructing a RegExpParser is far dearer than
 * parsing a rule (it was a fifth of compiling the built-in packs).
 */
let sharedParser: RegExpParser | undefined;

/** Parses and compiles `pattern` with `flags`; throws RegexSubsetError with a one-line reason. */
export function compileNfa(pattern: string, flagText: string): Nfa {
  const flags = parseFlags(flagText);
  let ast;
  try {
    sharedParser ??= new RegExpParser({ ecmaVersion: 2025 });
    ast = sharedParser.parsePattern(pattern, 0, pattern.length, {
      unicode: flags.unicode,
      unicodeSets: false,
    });
  } catch (error) {
    throw new RegexSubsetError(`invalid regular expression: ${(error as Error).message}`);
  }
  const compiler = new Compiler(flags);
  return compiler.b.finish(compiler.alternatives(ast.alternatives));
}
