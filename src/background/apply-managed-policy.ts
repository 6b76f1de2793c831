/**
 * Issue 21 §1: the organisation's values win over the person's own. Pure
 * functions of their inputs, shared by the background (which guards with the
 * result) and the UI (which shows what is locked).
 *
 * Three views of the settings:
 * - the person's own settings (`storage.local`), never holding a managed value;
 * - the managed policy (managed-policy.ts);
 * - the effective settings, `applyManagedPolicy(own, policy)`, which the guard uses.
 * An edit made on the effective settings is stored with `ownAfterEdit`, which keeps
 * the person's previous own value wherever the policy decides, so lifting the
 * policy later gives the person back exactly what they had chosen.
 */
import type { RuleKind } from '../core/rules/rule.ts';
import { DEFAULT_SITE_PATTERNS, type Settings } from '../protocol/settings-schema.ts';
import { DEFAULT_INCOMING_POLICY } from './default-settings.ts';
import type { ManagedPolicy } from './managed-policy.ts';

const isDefaultSite = (site: string): boolean => Object.hasOwn(DEFAULT_SITE_PATTERNS, site);

/** True when the policy decides whether `site` is on (the person cannot change it). */
export function isSiteLocked(policy: ManagedPolicy, site: string): boolean {
  return (
    Object.hasOwn(policy.sites, site) ||
    (policy.allowSiteSwitchOff === false && isDefaultSite(site))
  );
}

/** The rule ids of the organisation's own packs. */
function managedRuleIds(policy: ManagedPolicy): Set<string> {
  return new Set(policy.customPacks.flatMap((pack) => pack.ruleIds));
}

/**
 * True when the policy decides whether rule `id` runs: a rule it switches, or a
 * rule of one of its packs (a person switching that off would weaken the policy).
 */
export function isRuleLocked(policy: ManagedPolicy, id: string): boolean {
  return Object.hasOwn(policy.ruleSwitches, id) || managedRuleIds(policy).has(id);
}

/** True when the pack `name` is the policy's: switched by it, or one of its packs. */
export function isPackLocked(policy: ManagedPolicy, name: string): boolean {
  return (
    Object.hasOwn(policy.packsEnabled, name) ||
    policy.customPacks.some((pack) => pack.name === name)
  );
}

/**
 * True when the person may not set `kind` to `off` in answers: a rule of the
 * organisation's packs has that kind, and `off` would switch it off
 * (combineIncomingAction). The policy's own value for the kind, if any, decides.
 */
export function isIncomingOffLocked(policy: ManagedPolicy, kind: RuleKind): boolean {
  return (
    !Object.hasOwn(policy.incoming, kind) &&
    policy.customPacks.some((pack) => pack.kinds.includes(kind))
  );
}

function effectiveIncoming(
  own: Settings['policy']['incoming'],
  policy: ManagedPolicy,
): Settings['policy']['incoming'] {
  const incoming = { ...own, ...policy.incoming };
  for (const kind of Object.keys(incoming) as RuleKind[]) {
    // The organisation's packs keep running: the person's `off` falls back to the default.
    if (incoming[kind] === 'off' && isIncomingOffLocked(policy, kind)) {
      incoming[kind] = DEFAULT_INCOMING_POLICY[kind];
    }
  }
  return incoming;
}

function packName(source: unknown): unknown {
  return typeof source === 'object' && source !== null
    ? (source as { name?: unknown }).name
    : undefined;
}

function effectiveSites(own: Settings['sites'], policy: ManagedPolicy): Settings['sites'] {
  const sites = structuredClone(own);
  if (policy.allowSiteSwitchOff === false) {
    for (const site of Object.keys(DEFAULT_SITE_PATTERNS)) sites[site] = { enabled: true };
  }
  // Explicit entries last: a default site the organisation switches off stays off.
  for (const [site, enabled] of Object.entries(policy.sites)) sites[site] = { enabled };
  return sites;
}

function effectiveDisabledRules(own: readonly string[], policy: ManagedPolicy): string[] {
  const managed = managedRuleIds(policy);
  const kept = own.filter((id) => !managed.has(id) && !Object.hasOwn(policy.ruleSwitches, id));
  const forcedOff = Object.entries(policy.ruleSwitches)
    .filter(([, on]) => !on)
    .map(([id]) => id);
  return [...new Set([...kept, ...forcedOff])];
}

/** The settings the guard uses: the person's own with every managed value in force. */
export function applyManagedPolicy(own: Settings, policy: ManagedPolicy): Settings {
  const managedPacks = new Set(policy.customPacks.map((pack) => pack.name));
  return {
    ...structuredClone(own),
    sites: effectiveSites(own.sites, policy),
    policy: {
      incoming: effectiveIncoming(own.policy.incoming, policy),
      outgoing: { ...own.policy.outgoing, ...policy.outgoing },
    },
    allowedImageHosts: [...(policy.allowedImageHosts ?? own.allowedImageHosts)],
    packs: {
      enabled: { ...own.packs.enabled, ...policy.packsEnabled },
      disabledRules: effectiveDisabledRules(own.packs.disabledRules, policy),
      custom: [
        ...structuredClone(
          own.packs.custom.filter((pack) => !managedPacks.has(packName(pack) as string)),
        ),
        ...policy.customPacks.map((pack) => structuredClone(pack.source)),
      ],
    },
    audit: { ...own.audit, ...policy.audit },
  };
}

/** `edited` with `previous` restored wherever `locked(key)` holds. */
function restoreLocked<V>(
  edited: Record<string, V>,
  previous: Record<string, V>,
  locked: (key: string) => boolean,
): Record<string, V> {
  const result: Record<string, V> = {};
  for (const [key, value] of Object.entries(edited)) if (!locked(key)) result[key] = value;
  for (const [key, value] of Object.entries(previous)) if (locked(key)) result[key] = value;
  return result;
}

/**
 * What to store as the person's own after they edited the effective settings
 * (`edited`): their change where the policy leaves them free, their previous own
 * value (`previousOwn`) wherever the policy decides. A managed value never
 * becomes the person's own, and nothing sent to the background can change a
 * locked value (the UI disables those controls; this is the guarantee).
 */
export function ownAfterEdit(
  edited: Settings,
  previousOwn: Settings,
  policy: ManagedPolicy,
): Settings {
  const keepRule = (id: string) => isRuleLocked(policy, id);
  const lockedPack = (name: unknown) => policy.customPacks.some((pack) => pack.name === name);
  return {
    ...edited,
    sites: restoreLocked(edited.sites, previousOwn.sites, (site) => isSiteLocked(policy, site)),
    policy: {
      incoming: restoreLocked(edited.policy.incoming, previousOwn.policy.incoming, (kind) =>
        Object.hasOwn(policy.incoming, kind),
      ) as Settings['policy']['incoming'],
      outgoing: restoreLocked(edited.policy.outgoing, previousOwn.policy.outgoing, (kind) =>
        Object.hasOwn(policy.outgoing, kind),
      ) as Settings['policy']['outgoing'],
    },
    allowedImageHosts:
      policy.allowedImageHosts === undefined
        ? edited.allowedImageHosts
        : previousOwn.allowedImageHosts,
    packs: {
      enabled: restoreLocked(edited.packs.enabled, previousOwn.packs.enabled, (name) =>
        isPackLocked(policy, name),
      ),
      disabledRules: [
        ...edited.packs.disabledRules.filter((id) => !keepRule(id)),
        ...previousOwn.packs.disabledRules.filter(keepRule),
      ],
      custom: [
        ...edited.packs.custom.filter((pack) => !lockedPack(packName(pack))),
        ...previousOwn.packs.custom.filter((pack) => lockedPack(packName(pack))),
      ],
    },
    audit: {
      maxRecords:
        policy.audit.maxRecords === undefined
          ? edited.audit.maxRecords
          : previousOwn.audit.maxRecords,
      maxAgeDays:
        policy.audit.maxAgeDays === undefined
          ? edited.audit.maxAgeDays
          : previousOwn.audit.maxAgeDays,
    },
  };
}
