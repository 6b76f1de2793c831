/**
 * Repairs and migrates whatever is stored under `settings` into valid Settings
 * (docs/settings.md "Repair and migration"). Pure: a function of its input only.
 *
 * Storage can hold anything: an older shape (the shell's `{version, sites}`), a
 * value written by a newer version, or a broken edit. Unknown fields are dropped;
 * a bad value is replaced by its default; a value out of range is clamped. It never
 * throws, so a corrupt store can never switch the guard off (fail closed: the
 * defaults guard the known chat sites).
 */
import { RULE_KINDS, type RuleKind } from '../core/rules/rule.ts';
import { validatePack } from '../core/rules/validate-pack.ts';
import {
  DEFAULT_SITE_PATTERNS,
  SETTINGS_VERSION,
  type AuditSettings,
  type IncomingAction,
  type OutgoingAction,
  type OutgoingSettings,
  type PackSettings,
  type Settings,
  type SiteSettings,
} from '../protocol/settings-schema.ts';
import {
  DEFAULT_AUDIT,
  DEFAULT_INCOMING_POLICY,
  DEFAULT_OUTGOING,
  DEFAULT_OUTGOING_POLICY,
} from './default-settings.ts';
import { isSiteKey } from './site-key.ts';

const INCOMING_ACTIONS: readonly IncomingAction[] = ['redact', 'block', 'flag', 'off'];
const OUTGOING_ACTIONS: readonly OutgoingAction[] = ['redact', 'warn', 'block', 'off'];
const ENVELOPE_RENDERERS: readonly OutgoingSettings['envelopeRenderer'][] = ['json', 'quote'];

/** Bounds for the numeric settings (docs/settings.md). */
export const AUDIT_MAX_RECORDS_RANGE = { min: 100, max: 1_000_000 } as const;
export const AUDIT_MAX_AGE_DAYS_RANGE = { min: 1, max: 3650 } as const;
export const AUTO_ENVELOPE_RANGE = { min: 0, max: 1_000_000 } as const;
/** At most this many custom packs and allow-listed hosts are kept. */
const MAX_LIST_LENGTH = 1000;

type Plain = Record<string, unknown>;

function isPlain(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field(source: unknown, key: string): unknown {
  return isPlain(source) && Object.hasOwn(source, key) ? source[key] : undefined;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value)
    ? (value as T)
    : fallback;
}

function integerIn(value: unknown, range: { min: number; max: number }, fallback: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(range.max, Math.max(range.min, Math.round(value)));
}

function uniqueStrings(value: unknown, accept: (item: string) => boolean): string[] {
  if (!Array.isArray(value)) return [];
  const kept = new Set<string>();
  for (const item of value) {
    if (typeof item === 'string' && accept(item)) kept.add(item);
    if (kept.size >= MAX_LIST_LENGTH) break;
  }
  return [...kept];
}

/**
 * Sites: valid keys with a boolean `enabled`. Every default site missing from the
 * map is added switched on: the shell (and any older version) guarded them through
 * the static manifest, and a site added to the defaults later starts guarded. A
 * person switches a default site off, never removes it.
 */
function normaliseSites(value: unknown): Record<string, SiteSettings> {
  const sites: Record<string, SiteSettings> = {};
  if (isPlain(value)) {
    for (const [rawKey, entry] of Object.entries(value)) {
      const key = rawKey.toLowerCase();
      const enabled = field(entry, 'enabled');
      if (isSiteKey(key) && typeof enabled === 'boolean') sites[key] = { enabled };
    }
  }
  for (const site of Object.keys(DEFAULT_SITE_PATTERNS)) {
    sites[site] ??= { enabled: true };
  }
  return sites;
}

function normalisePolicy<A extends string>(
  value: unknown,
  allowed: readonly A[],
  defaults: Readonly<Record<RuleKind, A>>,
): Record<RuleKind, A> {
  const policy = { ...defaults };
  for (const kind of RULE_KINDS) policy[kind] = oneOf(field(value, kind), allowed, defaults[kind]);
  return policy;
}

function normalisePacks(value: unknown): PackSettings {
  const enabled: Record<string, boolean> = {};
  const rawEnabled = field(value, 'enabled');
  if (isPlain(rawEnabled)) {
    for (const [name, on] of Object.entries(rawEnabled)) {
      if (typeof on === 'boolean') enabled[name] = on;
    }
  }
  const rawCustom = field(value, 'custom');
  const custom = Array.isArray(rawCustom)
    ? rawCustom.filter((pack) => validatePack(pack).ok).slice(0, MAX_LIST_LENGTH)
    : [];
  return {
    enabled,
    disabledRules: uniqueStrings(field(value, 'disabledRules'), (id) => id.length > 0),
    custom,
  };
}

function normaliseAudit(value: unknown): AuditSettings {
  return {
    maxRecords: integerIn(
      field(value, 'maxRecords'),
      AUDIT_MAX_RECORDS_RANGE,
      DEFAULT_AUDIT.maxRecords,
    ),
    maxAgeDays: integerIn(
      field(value, 'maxAgeDays'),
      AUDIT_MAX_AGE_DAYS_RANGE,
      DEFAULT_AUDIT.maxAgeDays,
    ),
  };
}

function normaliseOutgoing(value: unknown): OutgoingSettings {
  return {
    envelopeRenderer: oneOf(
      field(value, 'envelopeRenderer'),
      ENVELOPE_RENDERERS,
      DEFAULT_OUTGOING.envelopeRenderer,
    ),
    autoEnvelopeMinChars: integerIn(
      field(value, 'autoEnvelopeMinChars'),
      AUTO_ENVELOPE_RANGE,
      DEFAULT_OUTGOING.autoEnvelopeMinChars,
    ),
  };
}

export function normaliseSettings(stored: unknown): Settings {
  const policy = field(stored, 'policy');
  return {
    version: SETTINGS_VERSION,
    sites: normaliseSites(field(stored, 'sites')),
    policy: {
      incoming: normalisePolicy(
        field(policy, 'incoming'),
        INCOMING_ACTIONS,
        DEFAULT_INCOMING_POLICY,
      ),
      outgoing: normalisePolicy(
        field(policy, 'outgoing'),
        OUTGOING_ACTIONS,
        DEFAULT_OUTGOING_POLICY,
      ),
    },
    allowedImageHosts: uniqueStrings(field(stored, 'allowedImageHosts'), isSiteKey),
    packs: normalisePacks(field(stored, 'packs')),
    audit: normaliseAudit(field(stored, 'audit')),
    outgoing: normaliseOutgoing(field(stored, 'outgoing')),
  };
}
