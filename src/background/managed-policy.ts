/**
 * The organisation's policy (issue 21 §1): what an administrator sets through the
 * browser's enterprise policy, read from `storage.managed` (Chrome: the 3rdparty
 * policy checked against managed_schema.json; Firefox: policies.json
 * `3rdparty.Extensions.<gecko id>`, not checked by the browser at all).
 * Documented in docs/deployment.md.
 *
 * Pure: `parseManagedPolicy` turns whatever the area holds into a typed policy
 * plus the list of values it ignored. A value is taken only when it is exactly
 * right (no coercion: `"false"` is not `false`); anything else is ignored and
 * reported, and an ignored value leaves the person's own setting in force, so
 * a typo in a policy can never switch protection off.
 */
import { RULE_KINDS, type RuleKind } from '../core/rules/rule.ts';
import { validatePack } from '../core/rules/validate-pack.ts';
import type { AuditSettings, IncomingAction, OutgoingAction } from '../protocol/settings-schema.ts';
import { AUDIT_MAX_AGE_DAYS_RANGE, AUDIT_MAX_RECORDS_RANGE } from './normalise-settings.ts';
import { parseOtlpEncoding, parseOtlpEndpoint, type OtlpEncoding } from './otlp-endpoint.ts';
import { isSiteKey } from './site-key.ts';

/** A managed policy as the extension applies it: only the values that were valid. */
export interface ManagedPolicy {
  /** Site key → forced on (true) or off (false). */
  sites: Record<string, boolean>;
  /** false: the person may not switch off a default site (the organisation's sites are locked anyway). */
  allowSiteSwitchOff?: boolean;
  incoming: Partial<Record<RuleKind, IncomingAction>>;
  outgoing: Partial<Record<RuleKind, OutgoingAction>>;
  /** Built-in pack name → forced on or off. */
  packsEnabled: Record<string, boolean>;
  /** Rule id → forced on (true) or off (false). */
  ruleSwitches: Record<string, boolean>;
  /** Packs the organisation adds; each passed `validatePack`. */
  customPacks: ManagedPack[];
  /** When set, the only hosts Markdown images may load from. */
  allowedImageHosts?: string[];
  audit: Partial<AuditSettings>;
  /**
   * Issue 21 §2: the OTLP/HTTP logs endpoint the audit log is exported to, and its
   * encoding (otlp-endpoint.ts); each is locked on its own when set.
   */
  auditExport?: { endpoint?: string; encoding?: OtlpEncoding };
}

export interface ManagedPack {
  name: string;
  /** The rule ids of the pack (they cannot be switched off by the person). */
  ruleIds: string[];
  /** The kinds of its rules (the person cannot switch these kinds off in answers). */
  kinds: RuleKind[];
  /** The pack as the administrator wrote it (validated). */
  source: unknown;
}

/** Why a managed value was ignored (codes, never the value: it is shown and logged). */
export const MANAGED_PROBLEMS = [
  'unknown-field',
  'not-an-object',
  'not-a-list',
  'not-a-boolean',
  'not-a-site',
  'unknown-kind',
  'unknown-action',
  'out-of-range',
  'invalid-pack',
  'empty-name',
  'not-an-endpoint',
  'not-an-encoding',
] as const;
export type ManagedProblem = (typeof MANAGED_PROBLEMS)[number];

export interface ManagedIssue {
  /** Where in the policy, e.g. `incomingPolicy.secret` (keys cut to 80 characters). */
  field: string;
  problem: ManagedProblem;
}

export interface ParsedManagedPolicy {
  policy: ManagedPolicy;
  issues: ManagedIssue[];
}

/** The top-level fields of the schema (managed_schema.json keeps the same names). */
export const MANAGED_FIELDS = [
  'sites',
  'allowSiteSwitchOff',
  'incomingPolicy',
  'outgoingPolicy',
  'packsEnabled',
  'ruleSwitches',
  'customPacks',
  'allowedImageHosts',
  'auditRetention',
  'auditExport',
] as const;
type ManagedField = (typeof MANAGED_FIELDS)[number];

export const INCOMING_ACTIONS: readonly IncomingAction[] = ['redact', 'block', 'flag', 'off'];
export const OUTGOING_ACTIONS: readonly OutgoingAction[] = ['redact', 'warn', 'block', 'off'];
/** Entries kept per map or list, as for the person's own settings. */
const MAX_ENTRIES = 1000;
const MAX_KEY_SHOWN = 80;

type Plain = Record<string, unknown>;

function isPlain(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function shown(key: string): string {
  return key.length > MAX_KEY_SHOWN ? `${key.slice(0, MAX_KEY_SHOWN)}…` : key;
}

/** No managed value at all: the person's settings apply unchanged. */
export function emptyManagedPolicy(): ManagedPolicy {
  return {
    sites: {},
    incoming: {},
    outgoing: {},
    packsEnabled: {},
    ruleSwitches: {},
    customPacks: [],
    audit: {},
  };
}

class PolicyParser {
  readonly policy = emptyManagedPolicy();
  readonly issues: ManagedIssue[] = [];

  report(field: string, problem: ManagedProblem): void {
    this.issues.push({ field, problem });
  }

  /** Entries of a map-shaped field, or none (reported) when it is not an object. */
  entries(field: string, value: unknown): [string, unknown][] {
    if (isPlain(value)) return Object.entries(value).slice(0, MAX_ENTRIES);
    this.report(field, 'not-an-object');
    return [];
  }

  booleanMap(field: string, value: unknown, acceptKey: (key: string) => boolean) {
    const map: Record<string, boolean> = {};
    for (const [key, on] of this.entries(field, value)) {
      const at = `${field}.${shown(key)}`;
      if (!acceptKey(key)) this.report(at, key === '' ? 'empty-name' : 'not-a-site');
      else if (typeof on !== 'boolean') this.report(at, 'not-a-boolean');
      else map[key] = on;
    }
    return map;
  }

  kindPolicy<A extends string>(field: string, value: unknown, allowed: readonly A[]) {
    const policy: Partial<Record<RuleKind, A>> = {};
    for (const [key, action] of this.entries(field, value)) {
      const at = `${field}.${shown(key)}`;
      const kind = RULE_KINDS.find((known) => known === key);
      if (kind === undefined) this.report(at, 'unknown-kind');
      else if (!allowed.some((known) => known === action)) this.report(at, 'unknown-action');
      else policy[kind] = action as A;
    }
    return policy;
  }

  field(name: ManagedField, value: unknown): void {
    const policy = this.policy;
    switch (name) {
      case 'sites':
        policy.sites = this.booleanMap(name, value, isSiteKey);
        return;
      case 'allowSiteSwitchOff':
        if (typeof value === 'boolean') policy.allowSiteSwitchOff = value;
        else this.report(name, 'not-a-boolean');
        return;
      case 'incomingPolicy':
        policy.incoming = this.kindPolicy(name, value, INCOMING_ACTIONS);
        return;
      case 'outgoingPolicy':
        policy.outgoing = this.kindPolicy(name, value, OUTGOING_ACTIONS);
        return;
      case 'packsEnabled':
        policy.packsEnabled = this.booleanMap(name, value, (key) => key !== '');
        return;
      case 'ruleSwitches':
        policy.ruleSwitches = this.booleanMap(name, value, (key) => key !== '');
        return;
      case 'customPacks':
        policy.customPacks = this.packs(value);
        return;
      case 'allowedImageHosts':
        this.imageHosts(value);
        return;
      case 'auditRetention':
        policy.audit = this.retention(value);
        return;
      case 'auditExport':
        this.auditExport(value);
        return;
    }
  }

  packs(value: unknown): ManagedPack[] {
    if (!Array.isArray(value)) {
      this.report('customPacks', 'not-a-list');
      return [];
    }
    const packs: ManagedPack[] = [];
    value.slice(0, MAX_ENTRIES).forEach((entry: unknown, index) => {
      // Chrome's schema cannot describe a pack, so there a pack is JSON text;
      // Firefox (whose policies.json is not checked) may give the object itself.
      const source = typeof entry === 'string' ? parseJson(entry) : entry;
      const checked = validatePack(source);
      if (!checked.ok) {
        this.report(`customPacks[${index}]`, 'invalid-pack');
        return;
      }
      const pack = source as { name: string; rules: { id: string; kind: RuleKind }[] };
      // A later pack of the same name replaces an earlier one, as an import does.
      const others = packs.filter((kept) => kept.name !== pack.name);
      packs.length = 0;
      packs.push(...others, {
        name: pack.name,
        ruleIds: pack.rules.map((rule) => rule.id),
        kinds: [...new Set(pack.rules.map((rule) => rule.kind))],
        source,
      });
    });
    return packs;
  }

  imageHosts(value: unknown): void {
    if (!Array.isArray(value)) {
      this.report('allowedImageHosts', 'not-a-list');
      return;
    }
    const hosts = new Set<string>();
    value.slice(0, MAX_ENTRIES).forEach((host: unknown, index) => {
      if (typeof host === 'string' && isSiteKey(host.toLowerCase())) hosts.add(host.toLowerCase());
      else this.report(`allowedImageHosts[${index}]`, 'not-a-site');
    });
    this.policy.allowedImageHosts = [...hosts];
  }

  auditExport(value: unknown): void {
    for (const [key, setting] of this.entries('auditExport', value)) {
      const at = `auditExport.${shown(key)}`;
      if (key === 'endpoint') {
        const endpoint = parseOtlpEndpoint(setting);
        if (endpoint === undefined) this.report(at, 'not-an-endpoint');
        else this.policy.auditExport = { ...this.policy.auditExport, endpoint };
      } else if (key === 'encoding') {
        const encoding = parseOtlpEncoding(setting);
        if (encoding === undefined) this.report(at, 'not-an-encoding');
        else this.policy.auditExport = { ...this.policy.auditExport, encoding };
      } else {
        this.report(at, 'unknown-field');
      }
    }
  }

  retention(value: unknown): Partial<AuditSettings> {
    const audit: Partial<AuditSettings> = {};
    const ranges = { maxRecords: AUDIT_MAX_RECORDS_RANGE, maxAgeDays: AUDIT_MAX_AGE_DAYS_RANGE };
    for (const [key, bound] of this.entries('auditRetention', value)) {
      const at = `auditRetention.${shown(key)}`;
      if (key !== 'maxRecords' && key !== 'maxAgeDays') {
        this.report(at, 'unknown-field');
        continue;
      }
      const { min, max } = ranges[key];
      if (typeof bound === 'number' && Number.isInteger(bound) && bound >= min && bound <= max) {
        audit[key] = bound;
      } else {
        this.report(at, 'out-of-range');
      }
    }
    return audit;
  }
}

/**
 * Parses what `storage.managed.get()` returned. Never throws; `undefined` or `{}`
 * (no policy) gives the empty policy and no issue.
 */
export function parseManagedPolicy(area: unknown): ParsedManagedPolicy {
  const parser = new PolicyParser();
  if (area === undefined || area === null) return { policy: parser.policy, issues: [] };
  for (const [key, value] of parser.entries('(policy)', area)) {
    const name = MANAGED_FIELDS.find((known) => known === key);
    if (name === undefined) parser.report(shown(key), 'unknown-field');
    else parser.field(name, value);
  }
  return { policy: parser.policy, issues: parser.issues };
}

/** True when the policy sets nothing (the UI then shows no organisation notice). */
export function isEmptyManagedPolicy(policy: ManagedPolicy): boolean {
  const maps = [
    policy.sites,
    policy.incoming,
    policy.outgoing,
    policy.packsEnabled,
    policy.ruleSwitches,
    policy.audit,
  ];
  return (
    maps.every((map) => Object.keys(map).length === 0) &&
    policy.customPacks.length === 0 &&
    policy.allowSiteSwitchOff === undefined &&
    policy.allowedImageHosts === undefined &&
    policy.auditExport === undefined
  );
}
