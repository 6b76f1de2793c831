/**
 * What one rule matches in a text, with plain JS RegExp and without the
 * streaming engine (so these tests do not move when the engine does): at each
 * start the longest match is the candidate (leftmost-longest), it counts
 * unless the allow-list or the validator rejects it, and counted matches do
 * not overlap (scanning resumes at a match's end). The same emulation as
 * shipped-packs-regexp.test.ts, shared by the rule-pack tests.
 */
import type { RuleSpec } from '../../../src/core/rules/rule.ts';
import { runValidator } from '../../../src/core/rules/validators/index.ts';

export interface RuleMatch {
  start: number;
  end: number;
  text: string;
}

const CTX = { allowedImageHosts: [] as string[] };
const cache = new Map<string, RegExp>();

function sticky(rule: RuleSpec, remaining: number | undefined): RegExp {
  const key = `${rule.id}\u0000${rule.pattern}\u0000${remaining ?? ''}`;
  let re = cache.get(key);
  if (re === undefined) {
    const tail = remaining === undefined ? '' : `(?=[\\s\\S]{${remaining}}(?![\\s\\S]))`;
    re = new RegExp(`(?:${rule.pattern})${tail}`, `${rule.flags ?? ''}y`);
    cache.set(key, re);
  }
  return re;
}

/** End of the longest match of `rule` starting at `start`, or undefined. */
export function longestAt(rule: RuleSpec, text: string, start: number): number | undefined {
  const any = sticky(rule, undefined);
  any.lastIndex = start;
  if (any.exec(text) === null) return undefined;
  const unicode = (rule.flags ?? '').includes('u');
  const limit = Math.min(text.length, start + (rule.maxLength ?? text.length));
  for (let end = limit; end >= start; end--) {
    const suffix = text.slice(end);
    const re = sticky(rule, unicode ? [...suffix].length : suffix.length);
    re.lastIndex = start;
    const m = re.exec(text);
    if (m !== null && m.index === start && start + m[0].length === end) return end;
  }
  return undefined;
}

/** The counted, non-overlapping matches of `rule` in `text`, left to right. */
export function ruleMatches(rule: RuleSpec, text: string): RuleMatch[] {
  const out: RuleMatch[] = [];
  let start = 0;
  while (start < text.length) {
    const end = longestAt(rule, text, start);
    if (end !== undefined && end > start) {
      const matched = text.slice(start, end);
      const allowed = (rule.allow ?? []).includes(matched);
      const before = text.slice(Math.max(0, start - 32), start);
      const valid =
        rule.validator === undefined ||
        runValidator(rule.validator, matched, { ...CTX, before }).ok;
      if (!allowed && valid) {
        out.push({ start, end, text: matched });
        start = end;
        continue;
      }
    }
    start++;
  }
  return out;
}
