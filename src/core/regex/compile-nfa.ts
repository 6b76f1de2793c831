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
  isEmpty,
  negate,
  range,
  single,
  union,
  forEachRange,
} from './char-set.ts';
import type { Condition, Nfa, NfaState } from './nfa.ts';

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

/** Above this many NFA states a rule is rejected: its automaton would not be small. */
const MAX_NFA_STATES = 200_000;

interface Fragment {
  start: number;
  end: number;
}

class NfaBuilder {
  readonly states: NfaState[] = [];
  hasConditions = false;

  constructor(private readonly flags: RegexFlags) {}

  newState(): number {
    if (this.states.length >= MAX_NFA_STATES) {
      throw new RegexSubsetError(
        `pattern expands to more than ${MAX_NFA_STATES} automaton states; lower its repetition counts`,
      );
    }
    this.states.push({ eps: [], cond: [], set: null, to: -1 });
    return this.states.length - 1;
  }

  private state(i: number): NfaState {
    return this.states[i] as NfaState;
  }

  link(from: number, to: number): void {
    this.state(from).eps.push(to);
  }

  empty(): Fragment {
    const s = this.newState();
    return { start: s, end: s };
  }

  /** One code-unit step. */
  unit(set: CharSet): Fragment {
    const start = this.newState();
    const end = this.newState();
    const st = this.state(start);
    st.set = set;
    st.to = end;
    return { start, end };
  }

  condition(when: Condition): Fragment {
    this.hasConditions = true;
    const start = this.newState();
    const end = this.newState();
    this.state(start).cond.push({ when, to: end });
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
   * A set of code points as UTF-16: BMP units directly, astral code points as
   * high-surrogate / low-surrogate sequences. In `u` mode lone surrogates are
   * not matched by classes (a deliberate, documented narrowing of JS).
   */
  codePoints(set: CharSet): Fragment {
    if (!this.flags.unicode) {
      const last = set[set.length - 1];
      return this.unit(
        last === undefined || last <= MAX_UNIT ? set : intersect(set, range(0, MAX_UNIT)),
      );
    }
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

  element(e: Element): Fragment {
    switch (e.type) {
      case 'Character':
        return this.b.codePoints(
          this.cachedSet(e, () =>
            this.flags.ignoreCase ? caseClose(single(e.value)) : single(e.value),
          ),
        );
      case 'CharacterSet':
        return this.b.codePoints(this.cachedSet(e, () => this.characterSet(e)));
      case 'CharacterClass':
        return this.b.codePoints(this.cachedSet(e, () => this.characterClass(e)));
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

/** Parses and compiles `pattern` with `flags`; throws RegexSubsetError with a one-line reason. */
export function compileNfa(pattern: string, flagText: string): Nfa {
  const flags = parseFlags(flagText);
  let ast;
  try {
    ast = new RegExpParser({ ecmaVersion: 2025 }).parsePattern(pattern, 0, pattern.length, {
      unicode: flags.unicode,
      unicodeSets: false,
    });
  } catch (error) {
    throw new RegexSubsetError(`invalid regular expression: ${(error as Error).message}`);
  }
  const compiler = new Compiler(flags);
  const body = compiler.alternatives(ast.alternatives);
  const final = compiler.b.newState();
  compiler.b.link(body.end, final);
  return {
    states: compiler.b.states,
    start: body.start,
    final,
    hasConditions: compiler.b.hasConditions,
  };
}
