/**
 * The edits the options page makes to the settings, as pure functions: each
 * returns a new Settings and leaves its argument untouched, so the page can
 * send the result with `put-settings` and keep the old value if that fails.
 */
import type { RuleKind } from '../../core/rules/rule.ts';
import type { IncomingAction, OutgoingAction, Settings } from '../../protocol/settings-schema.ts';

export function setSiteEnabled(settings: Settings, site: string, enabled: boolean): Settings {
  return { ...settings, sites: { ...settings.sites, [site]: { enabled } } };
}

export function removeSite(settings: Settings, site: string): Settings {
  const sites = { ...settings.sites };
  delete sites[site];
  return { ...settings, sites };
}

export function setIncomingPolicy(
  settings: Settings,
  kind: RuleKind,
  action: IncomingAction,
): Settings {
  const incoming = { ...settings.policy.incoming, [kind]: action };
  return { ...settings, policy: { ...settings.policy, incoming } };
}

export function setOutgoingPolicy(
  settings: Settings,
  kind: RuleKind,
  action: OutgoingAction,
): Settings {
  const outgoing = { ...settings.policy.outgoing, [kind]: action };
  return { ...settings, policy: { ...settings.policy, outgoing } };
}

/** Adds an image host once (hosts are already normalised, see host-input.ts). */
export function addImageHost(settings: Settings, host: string): Settings {
  if (settings.allowedImageHosts.includes(host)) return settings;
  return { ...settings, allowedImageHosts: [...settings.allowedImageHosts, host] };
}

export function removeImageHost(settings: Settings, host: string): Settings {
  return {
    ...settings,
    allowedImageHosts: settings.allowedImageHosts.filter((entry) => entry !== host),
  };
}

export function setPackEnabled(settings: Settings, pack: string, enabled: boolean): Settings {
  return {
    ...settings,
    packs: { ...settings.packs, enabled: { ...settings.packs.enabled, [pack]: enabled } },
  };
}

/** A pack missing from `packs.enabled` is enabled (settings-schema.ts). */
export function isPackEnabled(settings: Settings, pack: string): boolean {
  return settings.packs.enabled[pack] !== false;
}

export function setRuleEnabled(settings: Settings, rule: string, enabled: boolean): Settings {
  const others = settings.packs.disabledRules.filter((id) => id !== rule);
  const disabledRules = enabled ? others : [...others, rule];
  return { ...settings, packs: { ...settings.packs, disabledRules } };
}

export function isRuleEnabled(settings: Settings, rule: string): boolean {
  return !settings.packs.disabledRules.includes(rule);
}

/** Name of a custom pack entry, or undefined when the entry is not pack-shaped. */
export function customPackName(pack: unknown): string | undefined {
  if (typeof pack !== 'object' || pack === null) return undefined;
  const name = (pack as { name?: unknown }).name;
  return typeof name === 'string' ? name : undefined;
}

/** Adds a custom pack; a pack of the same name is replaced (an update of that pack). */
export function putCustomPack(settings: Settings, pack: { name: string }): Settings {
  const custom = settings.packs.custom.filter((entry) => customPackName(entry) !== pack.name);
  return { ...settings, packs: { ...settings.packs, custom: [...custom, pack] } };
}

export function removeCustomPack(settings: Settings, name: string): Settings {
  const custom = settings.packs.custom.filter((entry) => customPackName(entry) !== name);
  return { ...settings, packs: { ...settings.packs, custom } };
}

export const RETENTION_LIMITS = {
  maxRecords: { min: 100, max: 1_000_000 },
  maxAgeDays: { min: 1, max: 3_650 },
} as const;

/**
 * Sets a retention bound from what was typed: a whole number inside the limits
 * (clamped), or null when the text is not a number at all (the field is then
 * shown as invalid and nothing is saved).
 */
export function setRetention(
  settings: Settings,
  field: keyof typeof RETENTION_LIMITS,
  typed: string,
): Settings | null {
  if (!/^\s*\d+\s*$/.test(typed)) return null;
  const { min, max } = RETENTION_LIMITS[field];
  const value = Math.min(max, Math.max(min, Number.parseInt(typed, 10)));
  return { ...settings, audit: { ...settings.audit, [field]: value } };
}
