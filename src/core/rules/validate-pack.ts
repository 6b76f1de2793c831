/**
 * Structural validation of a rule pack (JSON as parsed, not yet trusted).
 *
 * Checks types, required fields, enum values, id format and uniqueness, flags,
 * that patterns (and validator `part`s) parse as JS regular expressions, bounds
 * on numbers, and that every rule carries examples. All problems are collected.
 * Semantic checks (the pattern is in the compilable subset, the examples really
 * match, the keywords really are literal prefixes) belong to `compilePack`.
 */
import { RULE_ACTIONS, RULE_KINDS, RULE_SCOPES, VALIDATOR_NAMES, type RulePack } from './rule.ts';

export interface PackProblem {
  /** The rule's id (as written, even if malformed); absent for pack-level fields and id-less rules. */
  rule?: string;
  /** Field path, e.g. `maxLength`, `validator.minEntropy`, `examples.match[1]`, `rules[3].id`. */
  field: string;
  message: string;
}

export type PackValidation = { ok: true; pack: RulePack } | { ok: false; problems: PackProblem[] };

export const RULE_ID_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_MATCH_LENGTH = 65536;
const ALLOWED_FLAGS = 'imsu';

const PACK_FIELDS = ['name', 'version', 'rules'] as const;
const RULE_FIELDS = [
  'id',
  'kind',
  'description',
  'pattern',
  'flags',
  'keywords',
  'maxLength',
  'action',
  'scope',
  'validator',
  'allow',
  'replacement',
  'raises',
  'escalation',
  'generic',
  'value',
  'continuation',
  'examples',
] as const;
const VALIDATOR_FIELDS = ['name', 'minEntropy', 'part'] as const;
const RAISES_FIELDS = ['flag', 'turns'] as const;
const ESCALATION_FIELDS = ['whenFlag', 'action'] as const;
const EXAMPLES_FIELDS = ['match', 'noMatch'] as const;

/** One line, control characters escaped. */
export function formatProblem(p: PackProblem): string {
  const line = `${p.rule !== undefined ? `rule ${JSON.stringify(p.rule)}: ` : ''}field ${JSON.stringify(p.field)}: ${p.message}`;
  return line.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** A short rendering of a wrong value for `(got …)`. */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') {
    const s = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    return s;
  }
  return String(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] ?? 0;
      const left = row[j - 1] ?? 0;
      row[j] = Math.min(above + 1, left + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length] ?? 0;
}

function unknownFieldMessage(key: string, known: readonly string[]): string {
  const lower = key.toLowerCase();
  const suggestion =
    known.find((k) => k.toLowerCase() === lower) ??
    known.find((k) => editDistance(k.toLowerCase(), lower) <= 2);
  return suggestion !== undefined
    ? `unknown field (did you mean ${JSON.stringify(suggestion)}?)`
    : `unknown field (allowed: ${known.join(', ')})`;
}

function oneOf(values: readonly string[]): string {
  return `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`;
}

/** Parses `source` as a JS RegExp; returns the engine's message on failure. */
function regexSyntaxError(source: string, flags: string): string | undefined {
  try {
    new RegExp(source, flags);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

type AddProblem = (field: string, message: string) => void;

function checkUnknownFields(
  add: AddProblem,
  obj: Record<string, unknown>,
  known: readonly string[],
  path: string,
): void {
  for (const key of Object.keys(obj)) {
    if (!known.includes(key)) add(path + key, unknownFieldMessage(key, known));
  }
}

function checkStringList(
  add: AddProblem,
  value: unknown,
  field: string,
  what: { nonEmptyList: boolean; nonEmptyItems: boolean },
): void {
  if (!Array.isArray(value)) {
    add(field, `must be an array of strings (got ${describe(value)})`);
    return;
  }
  if (what.nonEmptyList && value.length === 0) {
    add(field, 'must not be empty');
  }
  value.forEach((item, i) => {
    if (typeof item !== 'string') {
      add(`${field}[${i}]`, `must be a string (got ${describe(item)})`);
    } else if (what.nonEmptyItems && item.length === 0) {
      add(`${field}[${i}]`, 'must be a non-empty string');
    }
  });
}

/** Checks one rule; returns its id when it has a string one. */
function checkRule(rule: unknown, index: number, problems: PackProblem[]): string | undefined {
  if (!isRecord(rule)) {
    problems.push({
      field: `rules[${index}]`,
      message: `must be an object (got ${describe(rule)})`,
    });
    return undefined;
  }
  const id = rule.id;
  // Name the rule by its id when it has a string one; otherwise by position.
  const named = isNonEmptyString(id);
  const add: AddProblem = (field, message) => {
    problems.push(
      named ? { rule: id, field, message } : { field: `rules[${index}].${field}`, message },
    );
  };

  checkUnknownFields(add, rule, RULE_FIELDS, '');

  // id
  if (id === undefined) add('id', 'is required');
  else if (typeof id !== 'string') add('id', `must be a string (got ${describe(id)})`);
  else if (!RULE_ID_PATTERN.test(id)) {
    add('id', `must be lower-kebab-case like "github-pat" (got ${describe(id)})`);
  }

  // kind, action, scope
  if (rule.kind === undefined) add('kind', 'is required');
  else if (!(RULE_KINDS as readonly unknown[]).includes(rule.kind)) {
    add('kind', `${oneOf(RULE_KINDS)} (got ${describe(rule.kind)})`);
  }
  if (rule.action === undefined) add('action', 'is required');
  else if (!(RULE_ACTIONS as readonly unknown[]).includes(rule.action)) {
    add('action', `${oneOf(RULE_ACTIONS)} (got ${describe(rule.action)})`);
  }
  if (rule.scope !== undefined && !(RULE_SCOPES as readonly unknown[]).includes(rule.scope)) {
    add('scope', `${oneOf(RULE_SCOPES)} (got ${describe(rule.scope)})`);
  }

  // description
  if (rule.description === undefined) add('description', 'is required');
  else if (!isNonEmptyString(rule.description)) {
    add('description', `must be a non-empty string (got ${describe(rule.description)})`);
  }

  // flags (checked before the pattern, which is parsed with them)
  let flags = '';
  if (rule.flags !== undefined) {
    if (typeof rule.flags !== 'string') {
      add(
        'flags',
        `must be a string of flags from "${ALLOWED_FLAGS}" (got ${describe(rule.flags)})`,
      );
    } else {
      const bad = [...rule.flags].filter((f) => !ALLOWED_FLAGS.includes(f));
      const repeated = [...rule.flags].filter((f, i, all) => all.indexOf(f) !== i);
      if (bad.length > 0) {
        add(
          'flags',
          `may only contain "i", "m", "s", "u" (got ${describe(rule.flags)}; not allowed: ${[...new Set(bad)].join('')})`,
        );
      }
      if (repeated.length > 0) {
        add('flags', `must not repeat a flag (got ${describe(rule.flags)})`);
      }
      flags = [...new Set(rule.flags)].filter((f) => ALLOWED_FLAGS.includes(f)).join('');
    }
  }

  // pattern
  if (rule.pattern === undefined) add('pattern', 'is required');
  else if (!isNonEmptyString(rule.pattern)) {
    add('pattern', `must be a non-empty string (got ${describe(rule.pattern)})`);
  } else {
    const err = regexSyntaxError(rule.pattern, flags);
    if (err !== undefined) add('pattern', `is not a valid regular expression: ${err}`);
  }

  // keywords
  if (rule.keywords !== undefined) {
    checkStringList(add, rule.keywords, 'keywords', {
      nonEmptyList: true,
      nonEmptyItems: true,
    });
  }

  // maxLength
  if (rule.maxLength !== undefined) {
    if (!isPositiveInteger(rule.maxLength)) {
      add('maxLength', `must be a positive integer (got ${describe(rule.maxLength)})`);
    } else if (rule.maxLength > MAX_MATCH_LENGTH) {
      add('maxLength', `must be at most ${MAX_MATCH_LENGTH} (got ${rule.maxLength})`);
    }
  }

  // validator
  let hasExfilValidator = false;
  if (rule.validator !== undefined) {
    const v = rule.validator;
    if (!isRecord(v)) {
      add('validator', `must be an object (got ${describe(v)})`);
    } else {
      checkUnknownFields(add, v, VALIDATOR_FIELDS, 'validator.');
      if (v.name === undefined) add('validator.name', 'is required');
      else if (!(VALIDATOR_NAMES as readonly unknown[]).includes(v.name)) {
        add('validator.name', `${oneOf(VALIDATOR_NAMES)} (got ${describe(v.name)})`);
      }
      // The exfil validators find the host that `{host}` names.
      hasExfilValidator =
        v.name === 'exfil-url' ||
        v.name === 'exfil-link' ||
        v.name === 'exfil-image' ||
        v.name === 'exfil-html-img';
      if (v.minEntropy !== undefined) {
        if (
          typeof v.minEntropy !== 'number' ||
          !Number.isFinite(v.minEntropy) ||
          v.minEntropy <= 0 ||
          v.minEntropy > 8
        ) {
          add(
            'validator.minEntropy',
            `must be a number greater than 0 and at most 8 bits per character (got ${describe(v.minEntropy)})`,
          );
        } else if (v.name !== 'entropy' && v.name !== 'not-placeholder') {
          add(
            'validator.minEntropy',
            'is only used by the "entropy" and "not-placeholder" validators',
          );
        }
      } else if (v.name === 'entropy') {
        add('validator.minEntropy', 'is required for the "entropy" validator');
      }
      if (v.part !== undefined) {
        if (!isNonEmptyString(v.part)) {
          add('validator.part', `must be a non-empty string (got ${describe(v.part)})`);
        } else {
          const err = regexSyntaxError(v.part, '');
          if (err !== undefined) add('validator.part', `is not a valid regular expression: ${err}`);
        }
      }
    }
  }

  // allow
  if (rule.allow !== undefined) {
    checkStringList(add, rule.allow, 'allow', {
      nonEmptyList: false,
      nonEmptyItems: true,
    });
  }

  // replacement
  if (rule.replacement !== undefined) {
    if (typeof rule.replacement !== 'string') {
      add('replacement', `must be a string (got ${describe(rule.replacement)})`);
    } else if (rule.replacement.includes('{host}') && !hasExfilValidator) {
      add(
        'replacement',
        '"{host}" needs an exfil validator ("exfil-url", "exfil-link", "exfil-image" or "exfil-html-img"), which finds the host',
      );
    }
  }

  // generic, value, continuation (DESIGN.md §3.10)
  if (rule.generic !== undefined && typeof rule.generic !== 'boolean') {
    add('generic', `must be true or false (got ${describe(rule.generic)})`);
  }
  if (rule.value !== undefined) {
    if (!isNonEmptyString(rule.value)) {
      add('value', `must be a non-empty string (got ${describe(rule.value)})`);
    } else {
      const err = regexSyntaxError(rule.value, '');
      if (err !== undefined) add('value', `is not a valid regular expression: ${err}`);
      else if (!/\((?!\?)/.test(rule.value.replace(/\\./g, ''))) {
        add('value', 'needs a capturing group: the value to redact');
      }
    }
  }
  if (rule.continuation !== undefined) {
    if (!isNonEmptyString(rule.continuation)) {
      add('continuation', `must be a non-empty string (got ${describe(rule.continuation)})`);
    } else if (!/^\[.*\]$/s.test(rule.continuation)) {
      add('continuation', 'must be one character class, such as [^\\s"\']');
    } else {
      const err = regexSyntaxError(rule.continuation, '');
      if (err !== undefined) add('continuation', `is not a valid regular expression: ${err}`);
    }
  }

  // raises
  if (rule.raises !== undefined) {
    const r = rule.raises;
    if (!isRecord(r)) {
      add('raises', `must be an object with "flag" and "turns" (got ${describe(r)})`);
    } else {
      checkUnknownFields(add, r, RAISES_FIELDS, 'raises.');
      if (!isNonEmptyString(r.flag)) {
        add(
          'raises.flag',
          r.flag === undefined
            ? 'is required'
            : `must be a non-empty string (got ${describe(r.flag)})`,
        );
      }
      if (!isPositiveInteger(r.turns)) {
        add(
          'raises.turns',
          r.turns === undefined
            ? 'is required'
            : `must be a positive integer (got ${describe(r.turns)})`,
        );
      }
    }
  }

  // escalation
  if (rule.escalation !== undefined) {
    const e = rule.escalation;
    if (!isRecord(e)) {
      add('escalation', `must be an object with "whenFlag" and "action" (got ${describe(e)})`);
    } else {
      checkUnknownFields(add, e, ESCALATION_FIELDS, 'escalation.');
      if (!isNonEmptyString(e.whenFlag)) {
        add(
          'escalation.whenFlag',
          e.whenFlag === undefined
            ? 'is required'
            : `must be a non-empty string (got ${describe(e.whenFlag)})`,
        );
      }
      if (e.action === undefined) add('escalation.action', 'is required');
      else if (!(RULE_ACTIONS as readonly unknown[]).includes(e.action)) {
        add('escalation.action', `${oneOf(RULE_ACTIONS)} (got ${describe(e.action)})`);
      }
    }
  }

  // examples
  const ex = rule.examples;
  if (ex === undefined) {
    add('examples', 'is required: give at least one "match" and one "noMatch" example');
  } else if (!isRecord(ex)) {
    add('examples', `must be an object with "match" and "noMatch" arrays (got ${describe(ex)})`);
  } else {
    checkUnknownFields(add, ex, EXAMPLES_FIELDS, 'examples.');
    for (const key of EXAMPLES_FIELDS) {
      const list = ex[key];
      if (list === undefined) {
        add(`examples.${key}`, 'is required: give at least one example');
      } else if (!Array.isArray(list)) {
        add(`examples.${key}`, `must be an array of strings (got ${describe(list)})`);
      } else {
        if (list.length === 0) add(`examples.${key}`, 'must contain at least one example');
        list.forEach((item, i) => {
          if (typeof item !== 'string') {
            add(`examples.${key}[${i}]`, `must be a string (got ${describe(item)})`);
          } else if (key === 'match' && item.length === 0) {
            add(`examples.${key}[${i}]`, 'must be a non-empty string');
          }
        });
      }
    }
  }

  return typeof id === 'string' ? id : undefined;
}

export function validatePack(json: unknown): PackValidation {
  const problems: PackProblem[] = [];
  const add: AddProblem = (field, message) => {
    problems.push({ field, message });
  };
  if (!isRecord(json)) {
    add(
      '(pack)',
      `must be a JSON object with "name", "version" and "rules" (got ${describe(json)})`,
    );
    return { ok: false, problems };
  }
  checkUnknownFields(add, json, PACK_FIELDS, '');
  if (json.name === undefined) add('name', 'is required');
  else if (!isNonEmptyString(json.name)) {
    add('name', `must be a non-empty string (got ${describe(json.name)})`);
  }
  if (json.version === undefined) add('version', 'is required');
  else if (!isNonEmptyString(json.version)) {
    add('version', `must be a non-empty string (got ${describe(json.version)})`);
  }
  if (json.rules === undefined) add('rules', 'is required');
  else if (!Array.isArray(json.rules)) {
    add('rules', `must be an array of rules (got ${describe(json.rules)})`);
  } else {
    const firstIndex = new Map<string, number>();
    json.rules.forEach((rule: unknown, index) => {
      const id = checkRule(rule, index, problems);
      if (id === undefined || id === '') return;
      const earlier = firstIndex.get(id);
      if (earlier === undefined) firstIndex.set(id, index);
      else {
        problems.push({
          rule: id,
          field: 'id',
          message: `duplicate id (rules[${earlier}] and rules[${index}])`,
        });
      }
    });
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, pack: json as unknown as RulePack };
}
