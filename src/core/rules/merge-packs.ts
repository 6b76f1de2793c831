/**
 * Several packs in one engine. A stream runs exactly one CompiledPack (one
 * alphabet, one keyword automaton per rule subset, DESIGN.md §3.9), so the
 * enabled built-in packs and the person's custom packs are merged into one
 * RulePack before compiling. The merged pack's version names every member
 * (`secrets@1.0.0+pii@1.0.0`), so an event's `pack` label still says exactly
 * which rule data produced it (DESIGN.md §3.4: verdicts depend on the text and
 * the pack version only).
 */
import type { RulePack } from './rule.ts';
import { type PackProblem, validatePack } from './validate-pack.ts';

export interface MergeOptions {
  /** Name of the merged pack (default `builtin`). */
  name?: string;
  /** Member packs (by name) left out. */
  disabledPacks?: readonly string[];
  /** Rule ids left out, in any member. */
  disabledRules?: readonly string[];
}

export type PackMerge = { ok: true; pack: RulePack } | { ok: false; problems: PackProblem[] };

/**
 * Validates every member, drops disabled packs and rules, and concatenates the
 * rest. Rule ids must be unique across the members (they name placeholders,
 * events and audit records); a clash is a problem, never a silent override.
 * Pure: the inputs are not modified.
 */
export function mergePacks(members: readonly unknown[], options: MergeOptions = {}): PackMerge {
  const problems: PackProblem[] = [];
  const disabledPacks = new Set(options.disabledPacks ?? []);
  const disabledRules = new Set(options.disabledRules ?? []);
  const owner = new Map<string, string>();
  const names = new Set<string>();
  const rules: RulePack['rules'] = [];
  const labels: string[] = [];
  members.forEach((json, index) => {
    const validated = validatePack(json);
    if (!validated.ok) {
      for (const p of validated.problems) {
        problems.push({ ...p, field: `packs[${index}].${p.field}` });
      }
      return;
    }
    const pack = validated.pack;
    if (names.has(pack.name)) {
      problems.push({
        field: `packs[${index}].name`,
        message: `duplicate pack name ${JSON.stringify(pack.name)}`,
      });
      return;
    }
    names.add(pack.name);
    if (disabledPacks.has(pack.name)) return;
    labels.push(`${pack.name}@${pack.version}`);
    for (const rule of pack.rules) {
      const earlier = owner.get(rule.id);
      if (earlier !== undefined) {
        problems.push({
          rule: rule.id,
          field: 'id',
          message: `rule id is used by pack ${JSON.stringify(earlier)} and pack ${JSON.stringify(pack.name)}`,
        });
        continue;
      }
      owner.set(rule.id, pack.name);
      if (!disabledRules.has(rule.id)) rules.push(rule);
    }
  });
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    pack: {
      name: options.name ?? 'builtin',
      version: labels.length > 0 ? labels.join('+') : 'empty',
      rules,
    },
  };
}
