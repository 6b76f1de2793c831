import { describe, expect, it } from 'vitest';
import { VALIDATOR_NAMES } from '../../../src/core/rules/rule.ts';
import {
  formatProblem,
  validatePack,
  type PackProblem,
} from '../../../src/core/rules/validate-pack.ts';

function goodRule(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'github-pat',
    kind: 'secret',
    description: 'GitHub classic token',
    pattern: '\\bghp_[A-Za-z0-9]{36}\\b',
    keywords: ['ghp_'],
    maxLength: 40,
    action: 'redact',
    examples: { match: ['ghp_x'], noMatch: ['nothing'] },
    ...overrides,
  };
}

function pack(...rules: unknown[]): Record<string, unknown> {
  return { name: 'test', version: '1.0.0', rules };
}

function problemsOf(json: unknown): PackProblem[] {
  const result = validatePack(json);
  if (result.ok) throw new Error('expected the pack to be invalid');
  return result.problems;
}

function linesOf(json: unknown): string[] {
  return problemsOf(json).map(formatProblem);
}

describe('validatePack: valid packs', () => {
  it('accepts a minimal pack and returns it', () => {
    const json = pack(goodRule());
    const result = validatePack(json);
    expect(result).toEqual({ ok: true, pack: json });
  });

  it('accepts every optional field', () => {
    const result = validatePack(
      pack(
        goodRule({
          flags: 'imsu',
          scope: 'cross',
          allow: ['ghp_EXAMPLE'],
          replacement: '[token removed: {id}]',
          raises: { flag: 'leak-seen', turns: 3 },
          escalation: { whenFlag: 'leak-seen', action: 'block' },
          validator: { name: 'entropy', minEntropy: 3.5, part: '_(.+)$' },
        }),
        goodRule({
          id: 'image-exfil',
          kind: 'exfil',
          replacement: '[image blocked: {host}]',
          validator: { name: 'exfil-url' },
        }),
        goodRule({ id: 'empty-replacement', kind: 'invisible', replacement: '' }),
      ),
    );
    expect(result.ok).toBe(true);
  });

  it('accepts an empty rule list', () => {
    expect(validatePack(pack()).ok).toBe(true);
  });
});

describe('validatePack: problems name the rule and the field', () => {
  it('formats the documented example', () => {
    expect(linesOf(pack(goodRule({ maxLength: -3 })))).toEqual([
      'rule "github-pat": field "maxLength": must be a positive integer (got -3)',
    ]);
  });

  it('rejects a malformed id', () => {
    for (const id of ['GitHub-PAT', 'github_pat', 'github--pat', '-github', 'github pat']) {
      expect(linesOf(pack(goodRule({ id })))).toEqual([
        `rule ${JSON.stringify(id)}: field "id": must be lower-kebab-case like "github-pat" (got ${JSON.stringify(id)})`,
      ]);
    }
  });

  it('names an id-less rule by its position', () => {
    const { id: _unused, ...rest } = goodRule();
    expect(linesOf(pack(goodRule(), rest))).toEqual(['field "rules[1].id": is required']);
    expect(linesOf(pack(goodRule({ id: 42 })))).toEqual([
      'field "rules[0].id": must be a string (got 42)',
    ]);
  });

  it('rejects bad flags: unknown letters and repeats', () => {
    expect(linesOf(pack(goodRule({ flags: 'gi' })))).toEqual([
      'rule "github-pat": field "flags": may only contain "i", "m", "s", "u" (got "gi"; not allowed: g)',
    ]);
    expect(linesOf(pack(goodRule({ flags: 'ii' })))).toEqual([
      'rule "github-pat": field "flags": must not repeat a flag (got "ii")',
    ]);
    expect(linesOf(pack(goodRule({ flags: 'v' }))).length).toBe(1);
    expect(linesOf(pack(goodRule({ flags: 1 })))[0]).toContain('field "flags"');
  });

  it('rejects an unknown kind, action or scope', () => {
    expect(linesOf(pack(goodRule({ kind: 'password' })))).toEqual([
      'rule "github-pat": field "kind": must be one of "secret", "pii", "exfil", "invisible", "injection", "custom" (got "password")',
    ]);
    expect(linesOf(pack(goodRule({ action: 'mask' })))).toEqual([
      'rule "github-pat": field "action": must be one of "redact", "block", "flag", "off" (got "mask")',
    ]);
    expect(linesOf(pack(goodRule({ scope: 'all' })))).toEqual([
      'rule "github-pat": field "scope": must be one of "single", "cross", "both" (got "all")',
    ]);
  });

  it('requires examples with at least one match and one noMatch', () => {
    const { examples: _unused, ...noExamples } = goodRule();
    expect(linesOf(pack(noExamples))).toEqual([
      'rule "github-pat": field "examples": is required: give at least one "match" and one "noMatch" example',
    ]);
    expect(linesOf(pack(goodRule({ examples: { match: [], noMatch: ['x'] } })))).toEqual([
      'rule "github-pat": field "examples.match": must contain at least one example',
    ]);
    expect(linesOf(pack(goodRule({ examples: { match: ['x'] } })))).toEqual([
      'rule "github-pat": field "examples.noMatch": is required: give at least one example',
    ]);
    expect(linesOf(pack(goodRule({ examples: { match: ['x', 7], noMatch: [''] } })))).toEqual([
      'rule "github-pat": field "examples.match[1]": must be a string (got 7)',
    ]);
    expect(linesOf(pack(goodRule({ examples: { match: [''], noMatch: ['x'] } })))).toEqual([
      'rule "github-pat": field "examples.match[0]": must be a non-empty string',
    ]);
  });

  it('rejects duplicate ids', () => {
    expect(linesOf(pack(goodRule(), goodRule({ id: 'other' }), goodRule()))).toEqual([
      'rule "github-pat": field "id": duplicate id (rules[0] and rules[2])',
    ]);
  });

  it('rejects a pattern that does not parse, with the engine message', () => {
    const lines = linesOf(pack(goodRule({ pattern: 'ghp_(' })));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^rule "github-pat": field "pattern": is not a valid regular expression: .*ghp_\(/,
    );
  });

  it('parses the pattern with its flags', () => {
    // Valid without u, invalid with u (lone `{`), and the reverse (\p{L} needs u to mean a class).
    expect(validatePack(pack(goodRule({ pattern: 'a{' }))).ok).toBe(true);
    expect(linesOf(pack(goodRule({ pattern: 'a{', flags: 'u' }))).length).toBe(1);
    expect(
      validatePack(pack(goodRule({ pattern: '[\\u{E0000}-\\u{E007F}]', flags: 'u' }))).ok,
    ).toBe(true);
  });

  it('checks keywords, maxLength and allow', () => {
    expect(linesOf(pack(goodRule({ keywords: [] })))).toEqual([
      'rule "github-pat": field "keywords": must not be empty',
    ]);
    expect(linesOf(pack(goodRule({ keywords: ['ghp_', ''] })))).toEqual([
      'rule "github-pat": field "keywords[1]": must be a non-empty string',
    ]);
    expect(linesOf(pack(goodRule({ keywords: 'ghp_' })))).toEqual([
      'rule "github-pat": field "keywords": must be an array of strings (got "ghp_")',
    ]);
    expect(linesOf(pack(goodRule({ maxLength: 1.5 })))).toEqual([
      'rule "github-pat": field "maxLength": must be a positive integer (got 1.5)',
    ]);
    expect(linesOf(pack(goodRule({ maxLength: 65537 })))).toEqual([
      'rule "github-pat": field "maxLength": must be at most 65536 (got 65537)',
    ]);
    expect(validatePack(pack(goodRule({ maxLength: 65536 }))).ok).toBe(true);
    expect(linesOf(pack(goodRule({ allow: [1] })))).toEqual([
      'rule "github-pat": field "allow[0]": must be a string (got 1)',
    ]);
  });

  it('checks validators', () => {
    expect(linesOf(pack(goodRule({ validator: { name: 'crc32' } })))).toEqual([
      // Every validator is listed, in the order of VALIDATOR_NAMES (packs add validators).
      `rule "github-pat": field "validator.name": must be one of ${VALIDATOR_NAMES.map((n) => `"${n}"`).join(', ')} (got "crc32")`,
    ]);
    for (const minEntropy of [0, -1, 8.5, Number.NaN, '3']) {
      expect(linesOf(pack(goodRule({ validator: { name: 'entropy', minEntropy } })))[0]).toMatch(
        /^rule "github-pat": field "validator.minEntropy": must be a number greater than 0 and at most 8/,
      );
    }
    expect(validatePack(pack(goodRule({ validator: { name: 'entropy', minEntropy: 8 } }))).ok).toBe(
      true,
    );
    expect(linesOf(pack(goodRule({ validator: { name: 'entropy' } })))).toEqual([
      'rule "github-pat": field "validator.minEntropy": is required for the "entropy" validator',
    ]);
    expect(linesOf(pack(goodRule({ validator: { name: 'luhn', minEntropy: 3 } })))).toEqual([
      'rule "github-pat": field "validator.minEntropy": is only used by the "entropy" and "not-placeholder" validators',
    ]);
    expect(linesOf(pack(goodRule({ validator: { name: 'luhn', part: '(' } })))[0]).toMatch(
      /^rule "github-pat": field "validator.part": is not a valid regular expression/,
    );
    expect(linesOf(pack(goodRule({ validator: 'luhn' })))).toEqual([
      'rule "github-pat": field "validator": must be an object (got "luhn")',
    ]);
  });

  it('checks raises and escalation', () => {
    expect(linesOf(pack(goodRule({ raises: { flag: 'x', turns: 0 } })))).toEqual([
      'rule "github-pat": field "raises.turns": must be a positive integer (got 0)',
    ]);
    expect(linesOf(pack(goodRule({ raises: { turns: 2 } })))).toEqual([
      'rule "github-pat": field "raises.flag": is required',
    ]);
    expect(linesOf(pack(goodRule({ escalation: { whenFlag: 'x', action: 'nuke' } })))).toEqual([
      'rule "github-pat": field "escalation.action": must be one of "redact", "block", "flag", "off" (got "nuke")',
    ]);
    expect(linesOf(pack(goodRule({ escalation: { action: 'block' } })))).toEqual([
      'rule "github-pat": field "escalation.whenFlag": is required',
    ]);
  });

  it('rejects {host} in a replacement without the exfil-url validator', () => {
    expect(linesOf(pack(goodRule({ replacement: '[blocked {host}]' })))).toEqual([
      'rule "github-pat": field "replacement": "{host}" needs an exfil validator ("exfil-url", "exfil-link", "exfil-image" or "exfil-html-img"), which finds the host',
    ]);
  });

  it('reports unknown fields, suggesting the intended one', () => {
    const { maxLength: _unused, ...rest } = goodRule();
    expect(linesOf(pack({ ...rest, maxlength: 40 }))).toEqual([
      'rule "github-pat": field "maxlength": unknown field (did you mean "maxLength"?)',
    ]);
    expect(linesOf(pack(goodRule({ keyword: ['x'] })))).toEqual([
      'rule "github-pat": field "keyword": unknown field (did you mean "keywords"?)',
    ]);
    expect(
      linesOf(pack(goodRule({ validator: { name: 'entropy', minEntropy: 3, min: 1 } }))),
    ).toEqual([
      'rule "github-pat": field "validator.min": unknown field (allowed: name, minEntropy, part)',
    ]);
    expect(linesOf({ ...pack(), author: 'me' })).toEqual([
      'field "author": unknown field (allowed: name, version, rules)',
    ]);
  });

  it('checks the pack itself', () => {
    expect(linesOf({ name: 'core', version: '', rules: [] })).toEqual([
      'field "version": must be a non-empty string (got "")',
    ]);
    expect(linesOf({ rules: {} })).toEqual([
      'field "name": is required',
      'field "version": is required',
      'field "rules": must be an array of rules (got an object)',
    ]);
    expect(linesOf([])).toEqual([
      'field "(pack)": must be a JSON object with "name", "version" and "rules" (got an array of 0)',
    ]);
    expect(linesOf(null)).toEqual([
      'field "(pack)": must be a JSON object with "name", "version" and "rules" (got null)',
    ]);
    expect(linesOf(pack('not a rule'))).toEqual([
      'field "rules[0]": must be an object (got "not a rule")',
    ]);
  });

  it('collects every problem instead of stopping at the first', () => {
    const problems = problemsOf({
      name: 'test',
      version: '1',
      rules: [
        { id: 'Bad_Id', kind: 'nope', pattern: '(', action: 'redact', description: 'd' },
        goodRule({ flags: 'x', maxLength: 0 }),
      ],
    });
    expect(problems.map((p) => `${p.rule ?? '-'}:${p.field}`)).toEqual([
      'Bad_Id:id',
      'Bad_Id:kind',
      'Bad_Id:pattern',
      'Bad_Id:examples',
      'github-pat:flags',
      'github-pat:maxLength',
    ]);
  });

  it('keeps every formatted problem on one line', () => {
    const line = formatProblem({ rule: 'a', field: 'pattern', message: 'bad\nthing\u2028x' });
    expect(line).toBe('rule "a": field "pattern": bad\\nthing\\u2028x');
    const fromPattern = linesOf(pack(goodRule({ pattern: 'a\n(' })));
    for (const l of fromPattern) expect(l).not.toMatch(/[\n\r]/);
  });

  it('shortens long values in (got …)', () => {
    const lines = linesOf(pack(goodRule({ kind: 'k'.repeat(200) })));
    expect(lines[0]?.length).toBeLessThan(200);
  });
});
