/**
 * A custom rule pack imported from a JSON file, checked exactly as
 * `csg rules check PACK` checks it (src/core/rules/check-pack.ts: structure,
 * streaming-subset patterns, bounds, keywords, examples, replacements), with
 * the same one-line problem messages (formatProblem).
 */
import { checkPack } from '../../core/rules/check-pack.ts';
import type { RulePack } from '../../core/rules/rule.ts';
import { formatProblem } from '../../core/rules/validate-pack.ts';

export type PackImport =
  { ok: true; pack: RulePack; ruleCount: number } | { ok: false; problems: string[] };

/** Names of the built-in packs: a custom pack may not take one (it would shadow it). */
export function importPack(text: string, builtinNames: readonly string[]): PackImport {
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch (error) {
    return { ok: false, problems: [`not JSON: ${(error as Error).message}`] };
  }
  let check: ReturnType<typeof checkPack>;
  try {
    check = checkPack(json);
  } catch (error) {
    // A pack must never crash the page; report it like any other problem.
    return { ok: false, problems: [`cannot check pack: ${(error as Error).message}`] };
  }
  if (check.pack === undefined || check.problems.length > 0) {
    return { ok: false, problems: check.problems.map(formatProblem) };
  }
  const pack = json as RulePack;
  if (builtinNames.includes(pack.name)) {
    return {
      ok: false,
      problems: [`field "name": "${pack.name}" is the name of a built-in pack`],
    };
  }
  return { ok: true, pack, ruleCount: check.pack.rules.length };
}
