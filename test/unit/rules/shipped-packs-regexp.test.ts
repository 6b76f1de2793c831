/**
 * Structural sanity test of every shipped pack (src/core/rules/packs/*.json)
 * with plain JS RegExp (shipped-packs-check.test.ts runs the same examples
 * through the streaming engine).
 *
 * Match semantics emulated here: at each start position the longest match is
 * the candidate (leftmost-longest); a candidate counts unless its text is on the
 * rule's allow-list or its validator rejects it. A `match` example must yield a
 * counted candidate; a `noMatch` example must yield none at any start position.
 */
import { RegExpParser } from '@eslint-community/regexpp';
import type { Node as RegexNode } from '@eslint-community/regexpp/ast';
import { describe, expect, it } from 'vitest';
import type { RulePack, RuleSpec } from '../../../src/core/rules/rule.ts';
import { DEFAULT_REPLACEMENT } from '../../../src/core/rules/rule.ts';
import { validatePack } from '../../../src/core/rules/validate-pack.ts';
import { runValidator } from '../../../src/core/rules/validators/index.ts';
import { shippedPacks } from '../../support/shipped-packs.ts';

const packs: [string, RulePack][] = shippedPacks().map(([file, raw]) => {
  const validation = validatePack(raw);
  if (!validation.ok) {
    throw new Error(`${file} is invalid:\n${JSON.stringify(validation.problems, null, 2)}`);
  }
  return [file, validation.pack];
});
const allRules = packs.flatMap(([, pack]) => pack.rules);

const CTX = { allowedImageHosts: [] as string[] };

interface Candidate {
  start: number;
  end: number;
  text: string;
  counted: boolean;
  host?: string;
}

const endRegexCache = new Map<string, RegExp>();

/** A sticky RegExp that matches `rule` from lastIndex and ends exactly `remaining` units before the end. */
function endingAt(rule: RuleSpec, remaining: number): RegExp {
  const key = `${rule.id}\u0000${remaining}`;
  let re = endRegexCache.get(key);
  if (re === undefined) {
    re = new RegExp(
      `(?:${rule.pattern})(?=[\\s\\S]{${remaining}}(?![\\s\\S]))`,
      `${rule.flags ?? ''}y`,
    );
    endRegexCache.set(key, re);
  }
  return re;
}

/** Longest match of `rule` starting at `start`, or undefined. */
function longestAt(rule: RuleSpec, text: string, start: number): number | undefined {
  const unicode = (rule.flags ?? '').includes('u');
  const any = new RegExp(rule.pattern, `${rule.flags ?? ''}y`);
  any.lastIndex = start;
  if (any.exec(text) === null) return undefined;
  const limit = Math.min(text.length, start + (rule.maxLength ?? text.length));
  for (let end = limit; end >= start; end--) {
    // With `u`, `[\s\S]` counts code points: measure the suffix the same way.
    const suffix = text.slice(end);
    const remaining = unicode ? [...suffix].length : suffix.length;
    const re = endingAt(rule, remaining);
    re.lastIndex = start;
    const m = re.exec(text);
    if (m !== null && m.index === start && start + m[0].length === end) return end;
  }
  throw new Error(`rule ${rule.id}: a match at ${start} is longer than maxLength`);
}

function candidates(rule: RuleSpec, text: string): Candidate[] {
  const out: Candidate[] = [];
  for (let start = 0; start < text.length; start++) {
    const end = longestAt(rule, text, start);
    if (end === undefined) continue;
    const matched = text.slice(start, end);
    let counted = !(rule.allow ?? []).includes(matched);
    let host: string | undefined;
    if (counted && rule.validator !== undefined) {
      // The engine's lookbehind (input-text.ts `textBefore`): 32 units before the candidate.
      const before = text.slice(Math.max(0, start - 32), start);
      const result = runValidator(rule.validator, matched, { ...CTX, before });
      counted = result.ok;
      host = result.host;
    }
    const c: Candidate = { start, end, text: matched, counted };
    if (host !== undefined) c.host = host;
    out.push(c);
  }
  return out;
}

/** Longest possible match in UTF-16 code units (Infinity when unbounded). */
function maxLength(node: RegexNode, unicode: boolean): number {
  switch (node.type) {
    case 'Pattern':
    case 'Group':
    case 'CapturingGroup':
      return Math.max(0, ...node.alternatives.map((a) => maxLength(a, unicode)));
    case 'Alternative':
      return node.elements.reduce((sum, e) => sum + maxLength(e, unicode), 0);
    case 'Quantifier':
      return node.max === Infinity ? Infinity : node.max * maxLength(node.element, unicode);
    case 'Character':
      return unicode && node.value > 0xffff ? 2 : 1;
    case 'CharacterClass': {
      if (!unicode) return 1;
      if (node.negate) return 2;
      const astral = node.elements.some(
        (e) =>
          (e.type === 'Character' && e.value > 0xffff) ||
          (e.type === 'CharacterClassRange' && e.max.value > 0xffff) ||
          (e.type === 'CharacterSet' && (e.kind === 'property' || e.negate)),
      );
      return astral ? 2 : 1;
    }
    case 'CharacterSet':
      if (!unicode) return 1;
      return node.kind === 'any' || node.kind === 'property' || node.negate ? 2 : 1;
    case 'Assertion':
      return 0;
    default:
      return Infinity;
  }
}

/** Constructs outside the engine's compilable subset, found in the pattern's AST. */
function outsideSubset(node: RegexNode, found: string[] = []): string[] {
  switch (node.type) {
    case 'Pattern':
    case 'Group':
    case 'CapturingGroup':
      for (const a of node.alternatives) outsideSubset(a, found);
      break;
    case 'Alternative':
      for (const e of node.elements) outsideSubset(e, found);
      break;
    case 'Quantifier':
      if (node.max === Infinity) found.push(`unbounded ${node.raw}`);
      outsideSubset(node.element, found);
      break;
    case 'Assertion':
      if (node.kind === 'lookahead' || node.kind === 'lookbehind') found.push(node.raw);
      break;
    case 'Backreference':
      found.push(node.raw);
      break;
    default:
      break;
  }
  return found;
}

function parseRule(rule: RuleSpec): RegexNode {
  const unicode = (rule.flags ?? '').includes('u');
  return new RegExpParser().parsePattern(rule.pattern, 0, rule.pattern.length, { unicode });
}

function patternMaxLength(rule: RuleSpec): number {
  const unicode = (rule.flags ?? '').includes('u');
  const ast = new RegExpParser().parsePattern(rule.pattern, 0, rule.pattern.length, { unicode });
  return maxLength(ast, unicode);
}

describe('shipped packs', () => {
  it('are valid packs with a name and a semver version', () => {
    expect(packs.length).toBeGreaterThan(0);
    for (const [, pack] of packs) {
      expect(pack.name).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(pack.version).toMatch(/^\d+\.\d+\.\d+$/);
    }
  });

  it('keep the rules of the first rule pack (ids are stable: placeholders and audit records use them)', () => {
    const ids = allRules.map((r) => r.id);
    for (const id of [
      'aws-access-key-id',
      'github-pat',
      'github-fine-grained-pat',
      'gitlab-pat',
      'slack-token',
      'slack-webhook-url',
      'stripe-secret-key',
      'openai-api-key',
      'anthropic-api-key',
      'google-api-key',
      'npm-token',
      'sendgrid-api-key',
      'huggingface-token',
      'jwt',
      'private-key-pem',
      'password-assignment',
      'markdown-image-exfil',
      'unicode-tag-chars',
    ]) {
      expect(ids).toContain(id);
    }
  });

  it('never emit a placeholder that another rule would match', () => {
    for (const rule of allRules) {
      const placeholder = (rule.replacement ?? DEFAULT_REPLACEMENT)
        .replaceAll('{id}', rule.id)
        .replaceAll('{host}', 'evil.example');
      for (const other of allRules) {
        const hits = candidates(other, `x ${placeholder} y`).filter((c) => c.counted);
        expect(hits, `${other.id} matches the placeholder of ${rule.id}`).toEqual([]);
      }
    }
  }, 120_000);
});

describe.each(packs)('%s', (_file, pack) => {
  describe.each(pack.rules.map((r) => [r.id, r] as const))('%s', (_id, rule) => {
    it('has at least two examples of each kind', () => {
      expect(rule.examples.match.length).toBeGreaterThanOrEqual(2);
      expect(rule.examples.noMatch.length).toBeGreaterThanOrEqual(2);
    });

    it('stays in the compilable subset: no lookaround, no back-references', () => {
      const outside = outsideSubset(parseRule(rule)).filter((c) => !c.startsWith('unbounded '));
      expect(outside).toEqual([]);
    });

    it('bounds its match: a bounded pattern, or or a declared maxLength', () => {
      const structural = patternMaxLength(rule);
      if (rule.maxLength === undefined) expect(structural).toBeLessThan(Infinity);
      // A declared cap above the pattern's own bound is harmless: the engine uses the smaller.
      else expect(rule.maxLength).toBeGreaterThan(0);
    });

    it('redacts secrets and exfiltration by default', () => {
      if (
        (rule.kind === 'secret' || rule.kind === 'exfil') &&
        rule.id !== 'stripe-test-secret-key'
      ) {
        expect(rule.action).toBe('redact');
      }
    });

    it.each(rule.examples.match.map((t, i) => [i, t] as const))(
      'match example %i is found',
      (_i, text) => {
        const found = candidates(rule, text).filter((c) => c.counted);
        expect(found, JSON.stringify(text)).not.toEqual([]);
        // Keywords are literal prefixes of every match (case-insensitive).
        if (rule.keywords !== undefined) {
          for (const c of found) {
            const lower = c.text.toLowerCase();
            expect(
              rule.keywords.some((k) => lower.startsWith(k.toLowerCase())),
              `${JSON.stringify(c.text)} starts with a keyword`,
            ).toBe(true);
          }
        }
      },
    );

    it.each(rule.examples.noMatch.map((t, i) => [i, t] as const))(
      'noMatch example %i is not found',
      (_i, text) => {
        const found = candidates(rule, text).filter((c) => c.counted);
        expect(found, JSON.stringify(text)).toEqual([]);
      },
    );
  });
});
