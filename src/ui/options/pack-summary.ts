/**
 * What the options page lists of a rule pack: name, version and its rules'
 * ids, kinds and descriptions. Custom packs come from storage as `unknown`
 * (they were validated on import); an entry that is not pack-shaped is
 * skipped rather than trusted.
 */
import type { RuleKind, RulePack } from '../../core/rules/rule.ts';
import { RULE_KINDS } from '../../core/rules/rule.ts';

export interface RuleSummary {
  id: string;
  kind: RuleKind;
  description: string;
}

export interface PackSummary {
  name: string;
  version: string;
  rules: RuleSummary[];
}

function ruleSummary(entry: unknown): RuleSummary | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { id, kind, description } = entry as Record<string, unknown>;
  if (typeof id !== 'string' || typeof kind !== 'string') return undefined;
  if (!(RULE_KINDS as readonly string[]).includes(kind)) return undefined;
  return {
    id,
    kind: kind as RuleKind,
    description: typeof description === 'string' ? description : '',
  };
}

export function summarisePack(entry: unknown): PackSummary | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { name, version, rules } = entry as Partial<Record<keyof RulePack, unknown>>;
  if (typeof name !== 'string' || typeof version !== 'string' || !Array.isArray(rules)) {
    return undefined;
  }
  const summaries = rules.map(ruleSummary);
  if (summaries.some((rule) => rule === undefined)) return undefined;
  return { name, version, rules: summaries as RuleSummary[] };
}
