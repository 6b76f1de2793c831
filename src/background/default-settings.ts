/**
 * The settings a fresh install starts with (docs/settings.md "Defaults"). A new
 * object on every call, so no caller can mutate a shared default.
 */
import type { RuleKind } from '../core/rules/rule.ts';
import {
  DEFAULT_SITE_PATTERNS,
  SETTINGS_VERSION,
  type IncomingAction,
  type OutgoingAction,
  type Settings,
} from '../protocol/settings-schema.ts';

/** Issue 4 and issue 6 defaults for answers. */
export const DEFAULT_INCOMING_POLICY: Readonly<Record<RuleKind, IncomingAction>> = Object.freeze({
  secret: 'redact',
  pii: 'flag',
  exfil: 'redact',
  invisible: 'redact',
  injection: 'flag',
  custom: 'flag',
});

/** Outgoing (issue 5): secrets redacted, PII asks first, everything else passes. */
export const DEFAULT_OUTGOING_POLICY: Readonly<Record<RuleKind, OutgoingAction>> = Object.freeze({
  secret: 'redact',
  pii: 'warn',
  exfil: 'off',
  invisible: 'off',
  injection: 'off',
  custom: 'off',
});

export const DEFAULT_AUDIT = Object.freeze({ maxRecords: 10_000, maxAgeDays: 30 });
export const DEFAULT_OUTGOING = Object.freeze({
  envelopeRenderer: 'json' as const,
  autoEnvelopeMinChars: 0,
});

export function defaultSettings(): Settings {
  return {
    version: SETTINGS_VERSION,
    sites: Object.fromEntries(
      Object.keys(DEFAULT_SITE_PATTERNS).map((site) => [site, { enabled: true }]),
    ),
    policy: { incoming: { ...DEFAULT_INCOMING_POLICY }, outgoing: { ...DEFAULT_OUTGOING_POLICY } },
    allowedImageHosts: [],
    packs: { enabled: {}, disabledRules: [], custom: [] },
    audit: { ...DEFAULT_AUDIT },
    outgoing: { ...DEFAULT_OUTGOING },
  };
}
