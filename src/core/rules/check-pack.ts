/**
 * The semantic pack check behind `csg rules check` and the rule tests: a pack
 * compiles (pattern in the streaming subset, bounded, sound keywords), every
 * rule finds its `match` examples and none of its `noMatch` examples through
 * the streaming engine itself, and no replacement text triggers any rule.
 */
import { scanText } from '../guard/scan-text.ts';
import { type CompileOptions, type CompiledPack, PackError, compilePack } from './compile-pack.ts';
import { USELESS_PREFILTER_START_SHARE, prefilterCost } from './prefilter-cost.ts';
import type { RuleSpec } from './rule.ts';
import type { PackProblem } from './validate-pack.ts';

export interface PackCheck {
  problems: PackProblem[];
  /**
   * Not errors, but costs the person should know: rules without keywords that
   * start almost anywhere, so the keyword prefilter cannot skip text for them.
   */
  warnings: PackProblem[];
  pack?: CompiledPack;
}

/** Keyword-less rules that start at a large share of ordinary text, with their cost. */
function prefilterWarnings(pack: CompiledPack): PackProblem[] {
  const warnings: PackProblem[] = [];
  for (const rule of pack.rules) {
    if (rule.keywords !== null) continue;
    const cost = prefilterCost(pack, rule);
    if (cost.startShare < USELESS_PREFILTER_START_SHARE) continue;
    warnings.push({
      rule: rule.id,
      field: 'keywords',
      message:
        `no keywords and the pattern can start at ${Math.round(cost.startShare * 100)}% of the positions of ordinary text, ` +
        `so the keyword prefilter cannot skip text for it: expected cost ${cost.stepsPerChar.toFixed(1)} automaton steps ` +
        `per input character (a keyword rule costs none until its keyword appears); declare keywords or start the pattern with a rarer character ` +
        `(warned at ${Math.round(USELESS_PREFILTER_START_SHARE * 100)}% of positions or more)`,
    });
  }
  return warnings;
}

/**
 * The rule alone, so that examples test it and not which rule wins an overlap.
 * A rule that is `off` by default (switched on by an escalation) is checked as
 * if flagged: its examples say what it matches once it runs.
 */
function soloMatcher(spec: RuleSpec, version: string, options: CompileOptions) {
  const running: RuleSpec = spec.action === 'off' ? { ...spec, action: 'flag' } : spec;
  const solo = compilePack({ name: 'check', version, rules: [running] }, options);
  return (text: string) =>
    scanText(solo, text).events.some((e) => e.type === 'match' && e.rule === spec.id);
}

export function checkPack(json: unknown, options: CompileOptions = {}): PackCheck {
  let pack: CompiledPack;
  try {
    pack = compilePack(json, options);
  } catch (error) {
    if (error instanceof PackError) return { problems: error.problems, warnings: [] };
    throw error;
  }
  const problems: PackProblem[] = [];
  for (const rule of pack.rules) {
    const { spec } = rule;
    const matches = soloMatcher(spec, pack.version, options);
    spec.examples.match.forEach((text, i) => {
      if (!matches(text)) {
        problems.push({
          rule: spec.id,
          field: `examples.match[${i}]`,
          message: `no match in ${JSON.stringify(text)}`,
        });
      }
    });
    spec.examples.noMatch.forEach((text, i) => {
      if (matches(text)) {
        problems.push({
          rule: spec.id,
          field: `examples.noMatch[${i}]`,
          message: `unexpected match in ${JSON.stringify(text)}`,
        });
      }
    });
    const placeholder = rule.replacement.replaceAll('{host}', 'example.org');
    if (placeholder.length > 0) {
      const hits = scanText(pack, placeholder).events.filter((e) => e.type === 'match');
      for (const hit of hits) {
        if (hit.type === 'match') {
          problems.push({
            rule: spec.id,
            field: 'replacement',
            message: `replacement ${JSON.stringify(placeholder)} triggers rule "${hit.rule}"`,
          });
        }
      }
    }
  }
  const warnings = prefilterWarnings(pack);
  return problems.length === 0 ? { problems, warnings, pack } : { problems, warnings };
}
