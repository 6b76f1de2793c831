/**
 * The semantic pack check behind `csg rules check` and the rule tests: a pack
 * compiles (pattern in the streaming subset, bounded, sound keywords), every
 * rule finds its `match` examples and none of its `noMatch` examples through
 * the streaming engine itself, and no replacement text triggers any rule.
 */
import { scanText } from '../guard/scan-text.ts';
import { type CompileOptions, type CompiledPack, PackError, compilePack } from './compile-pack.ts';
import type { RuleSpec } from './rule.ts';
import type { PackProblem } from './validate-pack.ts';

export interface PackCheck {
  problems: PackProblem[];
  pack?: CompiledPack;
}

/** The rule alone, so that examples test it and not which rule wins an overlap. */
function soloMatcher(spec: RuleSpec, version: string, options: CompileOptions) {
  const solo = compilePack({ name: 'check', version, rules: [spec] }, options);
  return (text: string) =>
    scanText(solo, text).events.some((e) => e.type === 'match' && e.rule === spec.id);
}

export function checkPack(json: unknown, options: CompileOptions = {}): PackCheck {
  let pack: CompiledPack;
  try {
    pack = compilePack(json, options);
  } catch (error) {
    if (error instanceof PackError) return { problems: error.problems };
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
  return problems.length === 0 ? { problems, pack } : { problems };
}
