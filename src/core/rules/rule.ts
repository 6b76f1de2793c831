/**
 * The rule model: what a rule pack (versioned JSON) declares.
 *
 * A pack is data, not code: it is validated by `validatePack` and compiled by
 * `compilePack` before any stream uses it. Each stream keeps the compiled pack
 * it started with (seed 002 §5.3), so a reloaded pack only affects new streams.
 */

/** What a rule is about; the popup and the settings policy are organised by kind. */
export type RuleKind = 'secret' | 'pii' | 'exfil' | 'invisible' | 'injection' | 'custom';

export const RULE_KINDS: readonly RuleKind[] = [
  'secret',
  'pii',
  'exfil',
  'invisible',
  'injection',
  'custom',
];

/**
 * What happens on a match.
 * - `redact`: the match is replaced by the rule's replacement (default `[redacted:<id>]`).
 * - `block`: nothing after the match start is released; the caller ends the stream.
 * - `flag`: the text is unchanged; an event is raised. Flag-only rules never hold text.
 * - `off`: the rule is compiled but does not run (a policy can switch kinds off).
 */
export type RuleAction = 'redact' | 'block' | 'flag' | 'off';

export const RULE_ACTIONS: readonly RuleAction[] = ['redact', 'block', 'flag', 'off'];

/**
 * Where a rule may match (seed 002 §5.1). `both` (the default) means anywhere in
 * the stream. `single` rules are position-bound: they only match inside one chunk
 * as the *producer* cut it, which is a property of the wire event, not of our
 * text; the engine treats `single` like `both` on text (chunking invariance,
 * DESIGN.md §3.1) and keeps the field so wire adapters can scope by event.
 * `cross` is accepted for compatibility and also treated as `both`.
 */
export type RuleScope = 'single' | 'cross' | 'both';

export const RULE_SCOPES: readonly RuleScope[] = ['single', 'cross', 'both'];

/** Built-in validators; a candidate match counts only when its validator accepts it. */
export type ValidatorName =
  | 'luhn'
  | 'iban'
  | 'cn-resident-id'
  | 'entropy'
  | 'exfil-url'
  | 'not-placeholder'
  | 'exfil-link'
  | 'exfil-image'
  | 'exfil-html-img'
  | 'us-ssn'
  | 'email'
  | 'tag-smuggling';

export const VALIDATOR_NAMES: readonly ValidatorName[] = [
  'luhn',
  'iban',
  'cn-resident-id',
  'entropy',
  'exfil-url',
  'not-placeholder',
  'exfil-link',
  'exfil-image',
  'exfil-html-img',
  'us-ssn',
  'email',
  'tag-smuggling',
];

export interface ValidatorSpec {
  name: ValidatorName;
  /**
   * `entropy` (required) and `not-placeholder` (optional): minimum Shannon
   * entropy in bits per character of the checked part.
   */
  minEntropy?: number;
  /**
   * Optional JS regular expression source applied to an already-found candidate
   * (never to the stream): the validator checks its first capturing group (or
   * its whole match) instead of the whole candidate, e.g. the value of a
   * `password = "…"` assignment.
   */
  part?: string;
}

/** Session escalation (seed 002 §9): flags raised in one turn make later turns stricter. */
export interface RaiseSpec {
  /** Session flag name raised when this rule fires. */
  flag: string;
  /** Number of later turns the flag stays active (count-based, deterministic). */
  turns: number;
}

export interface EscalationSpec {
  /** While this session flag is active, the rule uses `action` instead of its own. */
  whenFlag: string;
  action: RuleAction;
}

export interface RuleExamples {
  /** Texts in which the rule must find (at least) one match. */
  match: string[];
  /** Texts in which the rule must find no match. */
  noMatch: string[];
}

export interface RuleSpec {
  /** Stable id, lower-case kebab (`github-pat`); used in placeholders, events and the audit log. */
  id: string;
  kind: RuleKind;
  description: string;
  /** JS regular expression source, in the compilable subset (see `csg rules check`). */
  pattern: string;
  /** JS regular expression flags: any of `i`, `m`, `s`, `u`. */
  flags?: string;
  /**
   * Literal prefixes that every match starts with (case-insensitive). The keyword
   * prefilter (one Aho-Corasick pass) starts this rule only where a keyword
   * occurs. Omit for rules without a literal prefix (emails, card numbers):
   * those start wherever their first character can.
   */
  keywords?: string[];
  /** Longest match in UTF-16 code units; required when the pattern is unbounded. */
  maxLength?: number;
  action: RuleAction;
  scope?: RuleScope;
  validator?: ValidatorSpec;
  /** Exact matched texts that are known placeholders (e.g. documented example keys). */
  allow?: string[];
  /**
   * Replacement for `redact`. `{id}` expands to the rule id and `{host}` to the
   * host found by the `exfil-url` validator. Default `[redacted:{id}]`.
   */
  replacement?: string;
  raises?: RaiseSpec;
  escalation?: EscalationSpec;
  /**
   * A generic rule (an assignment with a secret-sounding name, an entropy
   * heuristic): where its redaction overlaps a rule for a specific format, the
   * event names the specific rule (DESIGN.md §3.10).
   */
  generic?: boolean;
  /**
   * JS regular expression source applied to an already-found match (never to the
   * stream), like `validator.part`: its first capturing group is the value. Only
   * the value is redacted; the name, the operator and the quotes around it stay,
   * so a person reads `API_KEY=[redacted:openai-api-key]`. Without it the whole
   * match is the value.
   */
  value?: string;
  /**
   * A character class (`[^\s"'`]`) of what continues the value: when the value
   * ends at the rule's length bound and the next unit is still of this class,
   * the redaction goes on unit by unit until the run ends, so a value longer
   * than the bound is never cut in two (DESIGN.md §3.10).
   */
  continuation?: string;
  examples: RuleExamples;
}

export interface RulePack {
  /** Pack name, e.g. `core`. */
  name: string;
  /** Pack version (semver-like string); every event carries it. */
  version: string;
  rules: RuleSpec[];
}

export const DEFAULT_REPLACEMENT = '[redacted:{id}]';
