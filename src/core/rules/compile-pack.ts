/**
 * Turns a validated rule pack into what the engine runs (see compiled-pack.ts):
 * parses each pattern into an NFA, analyses it (reachability, longest match,
 * the keyword proof) and assembles the pack. The CompiledPack types live in
 * compiled-pack.ts, shared with the serialised-pack loader, and are
 * re-exported here for existing callers.
 */
import { RegexSubsetError, compileNfa } from '../regex/compile-nfa.ts';
import type { Nfa } from '../regex/nfa.ts';
import { distancesToFinal, maxMatchLength } from '../regex/nfa-analysis.ts';
import {
  type CompileOptions,
  type CompiledPack,
  type RuleAutomaton,
  assembleCompiledPack,
} from './compiled-pack.ts';
import { keywordProblem } from './keyword-check.ts';
import type { RulePack, RuleSpec } from './rule.ts';
import { type PackProblem, formatProblem, validatePack } from './validate-pack.ts';

export type { CompileOptions, CompiledPack, CompiledRule } from './compiled-pack.ts';

export class PackError extends Error {
  override name = 'PackError';
  constructor(readonly problems: PackProblem[]) {
    super(problems.map(formatProblem).join('\n'));
  }
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
  const analysis = { nfa, dist };
  return { spec, sets: nfa.sets, analysis: () => analysis, structuralMaxLength, maxLength };
}

/** Validates and compiles a pack; throws PackError listing every problem. */
export function compilePack(json: unknown, options: CompileOptions = {}): CompiledPack {
  const validated = validatePack(json);
  if (!validated.ok) throw new PackError(validated.problems);
  const pack: RulePack = validated.pack;
  const problems: PackProblem[] = [];
  const automata = pack.rules.map((spec) => compileRuleAutomaton(spec, problems));
  if (problems.length > 0) throw new PackError(problems);
  return assembleCompiledPack(pack.name, pack.version, automata as RuleAutomaton[], options);
}
