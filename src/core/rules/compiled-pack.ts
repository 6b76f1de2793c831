/**
 * What the engine runs: one automaton per rule over one shared alphabet,
 * keyword automata for rule subsets, and the validators bound to the pack's
 * options. A compiled pack is immutable; every stream keeps the one it started
 * with (seed 002 §5.3).
 *
 * This module assembles a CompiledPack from per-rule automata, whoever made
 * them: `compilePack` (from a validated pack's patterns) or `loadCompiledPack`
 * (from a serialised pack). It must not import the regex parser, the pack
 * validator or the keyword proof, so the MAIN-world bundle can load packs
 * without them (test/unit/rules/compiled-pack-imports.test.ts).
 */
import { runToEnd } from '../guard/run-to-end.ts';
import type { KeywordAutomaton } from '../guard/keyword-automaton.ts';
import type { ScanRule } from '../guard/scanner.ts';
import { type Alphabet, buildAlphabet } from '../regex/alphabet.ts';
import type { CharSet } from '../regex/char-set.ts';
import { DEAD, LazyDfa } from '../regex/lazy-dfa.ts';
import { type Nfa, UnitKind } from '../regex/nfa.ts';
import { DEFAULT_REPLACEMENT, type RuleAction, type RuleKind, type RuleSpec } from './rule.ts';
import { createKeywordAutomata } from './keyword-automata.ts';
import { type StartDeferral, startDeferral } from './start-deferral.ts';
import { runValidator } from './validators/index.ts';

export interface CompileOptions {
  /** Hosts Markdown images may load from (the `exfil-url` validator). */
  allowedImageHosts?: readonly string[];
}

export interface CompiledRule extends ScanRule {
  readonly index: number;
  readonly spec: RuleSpec;
  readonly kind: RuleKind;
  readonly action: RuleAction;
  readonly nfa: Nfa;
  /** Longest match the automaton itself allows (Infinity when unbounded). */
  readonly structuralMaxLength: number;
  readonly keywords: readonly string[] | null;
  /** Replacement with `{id}` expanded; `{host}` is expanded per match. */
  readonly replacement: string;
}

export interface CompiledPack {
  readonly name: string;
  readonly version: string;
  readonly rules: readonly CompiledRule[];
  readonly alphabet: Alphabet;
  readonly options: Required<CompileOptions>;
  /** The keyword automaton for a subset of rules (cached). */
  keywordAutomaton(rules: readonly CompiledRule[]): KeywordAutomaton | null;
  /**
   * The same, built in steps when not cached yet (resume after each yield from a
   * new task; warm-up.ts): the same cache, the same automaton.
   */
  keywordAutomatonSteps(
    rules: readonly CompiledRule[],
  ): Generator<void, KeywordAutomaton | null, void>;
}

/** A rule's automaton with distancesToFinal(nfa). */
export interface RuleAnalysis {
  nfa: Nfa;
  dist: Float64Array;
}

/** One rule's automaton and its analysis, ready to run. */
export interface RuleAutomaton {
  spec: RuleSpec;
  /** The automaton's sets (`nfa.sets`): the pack's alphabet is built from every rule's. */
  sets: readonly CharSet[];
  /**
   * The automaton and its distances. The compiler has them at hand; a loaded
   * pack decodes and checks a keyword rule's on first use (load-compiled-pack.ts
   * says why), and this throws CompiledPackError there when they are malformed.
   */
  analysis(): RuleAnalysis;
  structuralMaxLength: number;
  /** min(spec.maxLength, structuralMaxLength); finite and positive. */
  maxLength: number;
}

/**
 * Per class, the kinds of previous unit (bit `1 << UnitKind`) after which a
 * match can begin with that class (ScanRule.startClasses).
 */
function startClasses(dfa: LazyDfa, alphabet: Alphabet): Uint8Array {
  const classes = new Uint8Array(alphabet.classCount);
  const prevs = [UnitKind.Edge, UnitKind.Word, UnitKind.LineTerminator, UnitKind.Other];
  for (const prev of prevs) {
    const start = dfa.start(prev);
    if (start === DEAD) continue;
    for (let g = 0; g < alphabet.classCount; g++) {
      if (dfa.step(start, g) >> 1 !== DEAD) classes[g] = (classes[g] as number) | (1 << prev);
    }
  }
  return classes;
}

function bindAccept(
  spec: RuleSpec,
  options: Required<CompileOptions>,
): (text: string, before?: string) => { ok: boolean; host?: string } {
  const allow = new Set(spec.allow ?? []);
  const validator = spec.validator;
  const { allowedImageHosts } = options;
  return (text, before = '') => {
    if (allow.has(text)) return { ok: false };
    return validator === undefined
      ? { ok: true }
      : runValidator(validator, text, { allowedImageHosts, before });
  };
}

/** The shared alphabet of a pack: every distinct set any rule consumes. */
function packAlphabet(automata: readonly RuleAutomaton[]): Alphabet {
  // NFAs hold interned sets (char-set.ts internSet): equal sets are one instance.
  const sets = new Set<CharSet>();
  for (const a of automata) for (const set of a.sets) sets.add(set);
  return buildAlphabet([...sets]);
}

export function assembleCompiledPack(
  name: string,
  version: string,
  automata: readonly RuleAutomaton[],
  options: CompileOptions,
): CompiledPack {
  return runToEnd(assembleCompiledPackSteps(name, version, automata, options));
}

/** Rules set up between two yields of `assembleCompiledPackSteps`. */
const RULES_PER_STEP = 32;

/**
 * `assembleCompiledPack` in steps, for load-compiled-pack.ts's caller on a page's
 * main thread: the pack's alphabet, then the rules a few at a time. The same pack
 * either way. `built` is the alphabet of these very automata as a trusted
 * producer already built it (the `csg` bundle's own built tables, built-tables.ts,
 * issue 19 §2); otherwise it is built here.
 */
export function* assembleCompiledPackSteps(
  name: string,
  version: string,
  automata: readonly RuleAutomaton[],
  options: CompileOptions,
  built?: Alphabet,
): Generator<void, CompiledPack, void> {
  const alphabet = built ?? packAlphabet(automata);
  yield;
  const resolved: Required<CompileOptions> = {
    allowedImageHosts: [...(options.allowedImageHosts ?? [])],
  };
  const rules: CompiledRule[] = [];
  for (const [index, a] of automata.entries()) {
    if (index % RULES_PER_STEP === RULES_PER_STEP - 1) yield;
    rules.push(compiledRule(a, index, alphabet, resolved));
  }
  const automatonSteps = createKeywordAutomata();
  return {
    name,
    version,
    rules,
    alphabet,
    options: resolved,
    keywordAutomaton: (subset) => runToEnd(automatonSteps(subset)),
    keywordAutomatonSteps: automatonSteps,
  };
}

/**
 * One rule of the pack, ready to run. Its DFA is built on first use (a scanner
 * starts a match of the rule), and so are its start classes (a scanner is
 * created over it) and, for a loaded pack, the automaton itself.
 */
function compiledRule(
  a: RuleAutomaton,
  index: number,
  alphabet: Alphabet,
  resolved: Required<CompileOptions>,
): CompiledRule {
  let built: LazyDfa | undefined;
  const dfa = (): LazyDfa => {
    if (built === undefined) {
      const { nfa, dist } = a.analysis();
      built = new LazyDfa(nfa, dist, alphabet);
    }
    return built;
  };
  const keywords = a.spec.keywords ?? null;
  // Computed when a scanner first asks (it builds the rule's DFA): not while loading.
  let starts: Uint8Array | null | undefined = keywords === null ? undefined : null;
  // Likewise: what an always-on rule's starts wait for (start-deferral.ts), derived once.
  let deferral: StartDeferral | null | undefined = keywords === null ? undefined : null;
  return {
    index,
    spec: a.spec,
    id: a.spec.id,
    kind: a.spec.kind,
    action: a.spec.action,
    get nfa(): Nfa {
      return a.analysis().nfa;
    },
    get dfa(): LazyDfa {
      return dfa();
    },
    maxLength: a.maxLength,
    structuralMaxLength: a.structuralMaxLength,
    keywords,
    keyword: keywords !== null,
    distinctStarts:
      a.spec.validator !== undefined ||
      (a.spec.allow?.length ?? 0) > 0 ||
      a.maxLength < a.structuralMaxLength,
    get startClasses(): Uint8Array | null {
      if (starts === undefined) starts = startClasses(dfa(), alphabet);
      return starts;
    },
    get deferral(): StartDeferral | null {
      if (deferral === undefined) {
        const classes = this.startClasses ?? startClasses(dfa(), alphabet);
        deferral = startDeferral(a.analysis().nfa, alphabet, classes);
      }
      return deferral;
    },
    accept: bindAccept(a.spec, resolved),
    replacement: (a.spec.replacement ?? DEFAULT_REPLACEMENT).replaceAll('{id}', a.spec.id),
  };
}
