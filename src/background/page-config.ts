/**
 * What one site's page gets from the settings (PageConfig): the policy and rule
 * choices, nothing about other sites, the audit log or the install's key.
 */
import { getDefaultLabelPack } from '../core/outgoing/source-label-pack.ts';
import { builtinPackSources, compileGuardPack, getCorePack } from '../core/rules/builtin-packs.ts';
import type { CompiledPack } from '../core/rules/compiled-pack.ts';
import { type SerialisedPack, serialiseCompiledPack } from '../core/rules/serialised-pack.ts';
import type { CompiledPageRules, PageConfig, Settings } from '../protocol/settings-schema.ts';
import type { PageConfigAnswer } from '../protocol/runtime-messages.ts';

/** Built-in packs a page runs: every built-in pack not switched off by name. */
function enabledBuiltinPacks(settings: Settings): string[] {
  return builtinPackSources
    .map((pack) => pack.name)
    .filter((name) => settings.packs.enabled[name] !== false);
}

type PackChoice = Pick<PageConfig, 'packs' | 'disabledRules' | 'customPacks' | 'allowedImageHosts'>;

/** The last compiled choice: every page asks, settings change rarely (one entry is enough). */
let cached: { key: string; pack: SerialisedPack } | undefined;
let cachedLabels: CompiledPageRules['labels'] | undefined;

function compileChoice(choice: PackChoice): CompiledPack {
  try {
    return compileGuardPack(choice);
  } catch {
    // A custom pack that does not compile (settings validate them, but fail closed
    // anyway): the built-in set still guards, and the page still gets an answer.
    try {
      return compileGuardPack({ allowedImageHosts: choice.allowedImageHosts });
    } catch {
      return getCorePack();
    }
  }
}

/**
 * The page's pack compiled here, once per pack choice (recompiled when the
 * choice changes), serialised for the MAIN world, which loads it without the
 * compiler (load-compiled-pack.ts).
 */
export function compiledRulesFor(choice: PackChoice): CompiledPageRules {
  const key = JSON.stringify([
    choice.packs,
    choice.disabledRules,
    choice.customPacks,
    choice.allowedImageHosts,
  ]);
  if (cached?.key !== key) cached = { key, pack: serialiseCompiledPack(compileChoice(choice)) };
  if (cachedLabels === undefined) {
    const labels = getDefaultLabelPack();
    cachedLabels = {
      name: labels.name,
      version: labels.version,
      minProse: labels.minProse,
      rules: serialiseCompiledPack(labels.rules),
    };
  }
  return { pack: cached.pack, labels: cachedLabels };
}

export function isSiteEnabled(settings: Settings, site: string | null): boolean {
  return site !== null && settings.sites[site]?.enabled === true;
}

export function pageConfigFor(settings: Settings, site: string | null): PageConfigAnswer {
  const config: PageConfig = {
    version: settings.version,
    incoming: { ...settings.policy.incoming },
    outgoing: { ...settings.policy.outgoing },
    allowedImageHosts: [...settings.allowedImageHosts],
    packs: enabledBuiltinPacks(settings),
    disabledRules: [...settings.packs.disabledRules],
    customPacks: structuredClone(settings.packs.custom),
    envelopeRenderer: settings.outgoing.envelopeRenderer,
    autoEnvelopeMinChars: settings.outgoing.autoEnvelopeMinChars,
  };
  return { enabled: isSiteEnabled(settings, site), config };
}
