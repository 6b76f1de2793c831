/**
 * Source-label packs (issue 5 §3, seed 001 §7.1.2–7.1.3): the labels a model
 * writes in front of a comment ("【来源：…】", "[Source: …]", "(via …)",
 * "屏幕搭话：") that history projection strips from assistant messages in the
 * request copy, and that mark the comments of a chain.
 *
 * A label pack is JSON, like a rule pack, and runs on the same streaming
 * engine (linear time, no backtracking on page-supplied history):
 *
 *   {
 *     "name": "source-labels", "version": "1",
 *     "minProse": 8,            // letters/digits a comment needs to count in a chain
 *     "labels": [{
 *       "id": "zh-bracket-source",            // lower-case kebab
 *       "description": "…",
 *       "pattern": "【来源[：:][^】\\n]{0,60}】[ \\t]*",  // the label AND the
 *                                              // separator after it (spaces, one colon)
 *       "flags": "i",                          // optional: i, m, s, u
 *       "keywords": ["【来源"],                 // optional literal prefixes
 *       "maxLength": 80,                       // required when the pattern is unbounded
 *       "examples": { "match": ["…"], "noMatch": ["…"] }
 *     }]
 *   }
 *
 * Validation converts each label to a rule (kind `custom`, action `redact`,
 * empty replacement) and runs the rule-pack check on it: the pattern is in the
 * compilable subset and bounded, the keywords are sound, every `match` example
 * has a label and no `noMatch` example has one.
 */
import { checkPack } from '../rules/check-pack.ts';
import type { CompiledPack } from '../rules/compile-pack.ts';
import { type PackProblem, formatProblem } from '../rules/validate-pack.ts';
import defaultLabelPackJson from './packs/source-labels.json' with { type: 'json' };

export interface LabelSpec {
  id: string;
  description: string;
  pattern: string;
  flags?: string;
  keywords?: string[];
  maxLength?: number;
  examples: { match: string[]; noMatch: string[] };
}

export interface LabelPack {
  name: string;
  version: string;
  /** Letters and digits (code points) a labelled comment needs to count in a chain (MIN_PROSE, seed 001 §7.1.2). */
  minProse: number;
  labels: LabelSpec[];
}

export interface CompiledLabelPack {
  readonly name: string;
  readonly version: string;
  readonly minProse: number;
  /** The labels as a rule pack: every match is a label, replaced by nothing. */
  readonly rules: CompiledPack;
}

export interface LabelPackCheck {
  problems: PackProblem[];
  pack?: CompiledLabelPack;
}

const LABEL_FIELDS = new Set([
  'id',
  'description',
  'pattern',
  'flags',
  'keywords',
  'maxLength',
  'examples',
]);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function asRule(label: Record<string, unknown>): Record<string, unknown> {
  return { ...label, kind: 'custom', action: 'redact', replacement: '' };
}

/** Validates a label pack; `pack` is set when there is no problem. */
export function checkLabelPack(json: unknown): LabelPackCheck {
  const problems: PackProblem[] = [];
  const top = (field: string, message: string) => problems.push({ field, message });
  if (!isObject(json))
    return { problems: [{ field: '', message: 'a label pack is a JSON object' }] };
  for (const key of Object.keys(json)) {
    if (!['name', 'version', 'minProse', 'labels'].includes(key)) top(key, 'unknown field');
  }
  const minProse = json.minProse;
  if (typeof minProse !== 'number' || !Number.isInteger(minProse) || minProse < 1) {
    top('minProse', 'must be a positive integer');
  }
  if (!Array.isArray(json.labels) || json.labels.length === 0) {
    top('labels', 'must be a non-empty array');
    return { problems };
  }
  const rules = json.labels.map((label: unknown, i) => {
    if (!isObject(label)) {
      top(`labels[${i}]`, 'must be an object');
      return {};
    }
    for (const key of Object.keys(label)) {
      if (!LABEL_FIELDS.has(key)) top(`labels[${i}].${key}`, 'unknown field');
    }
    return asRule(label);
  });
  const asRulePack = { name: json.name, version: json.version, rules };
  const checked = checkPack(asRulePack);
  problems.push(...checked.problems);
  if (problems.length > 0 || checked.pack === undefined) return { problems };
  return {
    problems,
    pack: {
      name: checked.pack.name,
      version: checked.pack.version,
      minProse: minProse as number,
      rules: checked.pack,
    },
  };
}

export class LabelPackError extends Error {
  override name = 'LabelPackError';
  constructor(readonly problems: PackProblem[]) {
    super(problems.map(formatProblem).join('\n'));
  }
}

/** Compiles a label pack; throws LabelPackError listing its problems. */
export function compileLabelPack(json: unknown): CompiledLabelPack {
  const checked = checkLabelPack(json);
  if (checked.pack === undefined) throw new LabelPackError(checked.problems);
  return checked.pack;
}

let defaultLabels: CompiledLabelPack | undefined;

/** The shipped label pack, compiled on first use. */
export function getDefaultLabelPack(): CompiledLabelPack {
  defaultLabels ??= compileLabelPack(defaultLabelPackJson);
  return defaultLabels;
}
