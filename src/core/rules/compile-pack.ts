/**
 * Turns a validated rule pack into what the engine runs: one automaton per
 * rule over one shared alphabet, keyword automata for rule subsets, and the
 * validators bound to the pack's options. A compiled pack is immutable; every
 * stream keeps the one it started with (seed 002 §5.3).
 */
import { KeywordAutomaton } from '../guard/keyword-automaton.ts';
import type { ScanRule } from '../guard/scanner.ts';
import { type Alphabet, buildAlphabet } from '../regex/alphabet.ts';
import type { CharSet } from '../regex/char-set.ts';
import { RegexSubsetError, compileNfa } from '../regex/compile-nfa.ts';
import { DEAD, LazyDfa } from '../regex/lazy-dfa.ts';
import { type Nfa, UnitKind } from '../regex/nfa.ts';
import { distancesToFinal, maxMatchLength } from '../regex/nfa-analysis.ts';
import { keywordProblem } from './keyword-check.ts';
import {
  DEFAULT_REPLACEMENT,
  type RuleAction,
  type RuleKind,
  type RulePack,
  type RuleSpec,
} from './rule.ts';
import { type PackProblem, formatProblem, validatePack } from './validate-pack.ts';
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
}

export class PackError extends Error {
  override name = 'PackError';
  constructor(readonly problems: PackProblem[]) {
    super(problems.map(formatProblem).join('\n'));
  }
}

interface RuleAutomaton {
  spec: RuleSpec;
  nfa: Nfa;
  dist: Float64Array;
  structuralMaxLength: number;
  maxLength: number;
}

function compileRuleAutomaton(spec: RuleSpec, problems: PackProblem[]): RuleAutomaton | null {
  let nfa: Nfa;
  try {
    nfa = compileNfa(spec.pattern, spec.flags ?? '');
  } catch (error) {
    if (!(error instanceof RegexSubsetError)) throw error;
    problems.push({ rule: spec.id, field: 'pattern', message: error.message });
    return null;
  }
  const dist = distancesToFinal(nfa);
  if (dist[nfa.start] === Infinity) {
    problems.push({ rule: spec.id, field: 'pattern', message: 'the pattern can never match' });
    return null;
  }
  const structuralMaxLength = maxMatchLength(nfa, dist);
  if (structuralMaxLength === 0) {
    problems.push({
      rule: spec.id,
      field: 'pattern',
      message: 'the pattern only matches empty text',
    });
    return null;
  }
  if (structuralMaxLength === Infinity && spec.maxLength === undefined) {
    problems.push({
      rule: spec.id,
      field: 'maxLength',
      message: 'the pattern is unbounded (*, + or {n,}); declare maxLength so the hold is bounded',
    });
    return null;
  }
  const maxLength = Math.min(spec.maxLength ?? Infinity, structuralMaxLength);
  if (spec.keywords !== undefined) {
    const why = keywordProblem(nfa, dist, spec.keywords);
    if (why !== null) {
      problems.push({ rule: spec.id, field: 'keywords', message: why });
      return null;
    }
  }
  return { spec, nfa, dist, structuralMaxLength, maxLength };
}

function startClasses(dfa: LazyDfa, alphabet: Alphabet): Uint8Array {
  const classes = new Uint8Array(alphabet.classCount);
  const prevs = [UnitKind.Edge, UnitKind.Word, UnitKind.LineTerminator, UnitKind.Other];
  for (let g = 0; g < alphabet.classCount; g++) {
    if (prevs.some((prev) => dfa.step(dfa.start(prev), g) >> 1 !== DEAD)) classes[g] = 1;
  }
  return classes;
}

function bindAccept(
  spec: RuleSpec,
  options: Required<CompileOptions>,
): (text: string) => { ok: boolean; host?: string } {
  const allow = new Set(spec.allow ?? []);
  const validator = spec.validator;
  const ctx = { allowedImageHosts: options.allowedImageHosts };
  return (text) => {
    if (allow.has(text)) return { ok: false };
    return validator === undefined ? { ok: true } : runValidator(validator, text, ctx);
  };
}

/** Validates and compiles a pack; throws PackError listing every problem. */
export function compilePack(json: unknown, options: CompileOptions = {}): CompiledPack {
  const validated = validatePack(json);
  if (!validated.ok) throw new PackError(validated.problems);
  const pack: RulePack = validated.pack;
  const problems: PackProblem[] = [];
  const automata = pack.rules.map((spec) => compileRuleAutomaton(spec, problems));
  if (problems.length > 0) throw new PackError(problems);
  const ready = automata as RuleAutomaton[];
  const sets = new Map<string, CharSet>();
  for (const a of ready)
    for (const st of a.nfa.states) if (st.set) sets.set(st.set.join(','), st.set);
  const alphabet = buildAlphabet([...sets.values()]);
  const resolved: Required<CompileOptions> = {
    allowedImageHosts: [...(options.allowedImageHosts ?? [])],
  };
  const rules: CompiledRule[] = ready.map((a, index) => {
    const dfa = new LazyDfa(a.nfa, a.dist, alphabet);
    const keywords = a.spec.keywords ?? null;
    return {
      index,
      spec: a.spec,
      id: a.spec.id,
      kind: a.spec.kind,
      action: a.spec.action,
      nfa: a.nfa,
      dfa,
      maxLength: a.maxLength,
      structuralMaxLength: a.structuralMaxLength,
      keywords,
      keyword: keywords !== null,
      distinctStarts:
        a.spec.validator !== undefined ||
        (a.spec.allow?.length ?? 0) > 0 ||
        a.maxLength < a.structuralMaxLength,
      startClasses: keywords === null ? startClasses(dfa, alphabet) : null,
      accept: bindAccept(a.spec, resolved),
      replacement: (a.spec.replacement ?? DEFAULT_REPLACEMENT).replaceAll('{id}', a.spec.id),
    };
  });
  const automatonCache = new Map<string, KeywordAutomaton | null>();
  return {
    name: pack.name,
    version: pack.version,
    rules,
    alphabet,
    options: resolved,
    keywordAutomaton(subset) {
      const key = subset.map((r) => r.index).join(',');
      let cached = automatonCache.get(key);
      if (cached === undefined) {
        const keywordLists = subset.map((r) => r.keywords ?? []);
        cached = keywordLists.some((k) => k.length > 0) ? new KeywordAutomaton(keywordLists) : null;
        automatonCache.set(key, cached);
      }
      return cached;
    },
  };
}
