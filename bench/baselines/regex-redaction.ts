/**
 * What the regex baselines run per rule: the rule's pattern as a global JS
 * RegExp (`lastIndex` reset before each use, seed 002 pitfall 2), each match
 * checked by the rule's own validator and allow-list and replaced by its
 * placeholder — the same rules and verdicts as the engine, applied the way a
 * regex-per-chunk guard applies them.
 */
import type { CompiledPack } from '../../src/core/rules/compile-pack.ts';

export interface RegexRule {
  id: string;
  re: RegExp;
  /** The engine rule's own acceptance (validator, allow-list). */
  accept: (text: string) => { ok: boolean; host?: string };
  replacement: string;
  maxLength: number;
  /** Flag rules are run too (the engine runs them) but leave the text as it is. */
  changesText: boolean;
}

/** Every active rule of a pack (`off` rules do not run in the engine either). */
export function regexRules(pack: CompiledPack): RegexRule[] {
  return pack.rules
    .filter((rule) => rule.action !== 'off')
    .map((rule) => ({
      id: rule.id,
      re: new RegExp(rule.spec.pattern, (rule.spec.flags ?? '') + 'g'),
      accept: rule.accept,
      replacement: rule.replacement,
      maxLength: rule.maxLength,
      changesText: rule.action !== 'flag',
    }));
}

/** Every rule over `text`, in pack order; returns the redacted text. */
export function redactAll(rules: readonly RegexRule[], text: string): string {
  let out = text;
  for (const rule of rules) {
    rule.re.lastIndex = 0;
    out = out.replace(rule.re, (match: string) => {
      const verdict = rule.accept(match);
      if (!verdict.ok || !rule.changesText) return match;
      return rule.replacement.replaceAll('{host}', verdict.host ?? 'unknown host');
    });
  }
  return out;
}
