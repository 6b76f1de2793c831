/**
 * What one site's page gets from the settings (PageConfig): the policy and rule
 * choices, nothing about other sites, the audit log or the install's key.
 */
import { answerGuardOptions, sendGuardOptions } from '../core/guard/page-guard-options.ts';
import { getDefaultLabelPack } from '../core/outgoing/source-label-pack.ts';
import { builtinPackSources, compileGuardPack, getCorePack } from '../core/rules/builtin-packs.ts';
import type { CompiledPack } from '../core/rules/compiled-pack.ts';
import { loadCompiledPack } from '../core/rules/load-compiled-pack.ts';
import { type SerialisedPack, serialiseCompiledPack } from '../core/rules/serialised-pack.ts';
import { serialiseWarmTables } from '../core/rules/warm-tables.ts';
import { encodeBuiltTables } from '../core/rules/built-tables.ts';
import { dataDigest } from '../core/rules/data-digest.ts';
import { sha256Hex } from '../core/rules/sha256.ts';
import { bytesToBase64 } from '../protocol/base64.ts';
import type {
  CompiledPageRules,
  PageBuiltTables,
  PageConfig,
  Settings,
} from '../protocol/settings-schema.ts';
import type { PageConfigAnswer } from '../protocol/runtime-messages.ts';

/** Built-in packs a page runs: every built-in pack not switched off by name. */
function enabledBuiltinPacks(settings: Settings): string[] {
  return builtinPackSources
    .map((pack) => pack.name)
    .filter((name) => settings.packs.enabled[name] !== false);
}

type PackChoice = Pick<PageConfig, 'packs' | 'disabledRules' | 'customPacks' | 'allowedImageHosts'>;
/** A pack choice, with the page's two policies when the page's warm tables are wanted too. */
type RulesChoice = PackChoice & Partial<Pick<PageConfig, 'incoming' | 'outgoing'>>;

/** The last compiled choice: every page asks, settings change rarely (one entry is enough). */
let cached: { key: string; pack: SerialisedPack } | undefined;
let cachedLabels: CompiledPageRules['labels'] | undefined;
/** The last answer whole, built tables included (see `compiledRulesFor`). */
let last: { key: string; rules: CompiledPageRules } | undefined;
/** Answers computed by this worker (not restored): what the caller persists. */
let computed = 0;

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

/** What the answer for `choice` depends on: the pack choice, and the policies if given. */
export function compiledRulesKey(choice: RulesChoice): string {
  return JSON.stringify([
    choice.packs,
    choice.disabledRules,
    choice.customPacks,
    choice.allowedImageHosts,
    choice.incoming ?? null,
    choice.outgoing ?? null,
  ]);
}

/**
 * The built tables of the page's two guards (issue 19 §4, built-tables.ts): the
 * pack loaded as the page would load it, warmed for the page's two policies
 * (warm-tables.ts warms what it serialises), and what that built encoded as one
 * file, base64 for runtime messaging, with the digests the page checks (FNV-1a, and
 * SHA-256 for a page with WebCrypto: load-built-tables.ts).
 * Undefined if they cannot be built: the page then gets the pack as JSON.
 */
function builtTablesFor(pack: SerialisedPack, choice: RulesChoice): PageBuiltTables | undefined {
  if (choice.incoming === undefined || choice.outgoing === undefined) return undefined;
  try {
    const loaded = loadCompiledPack(pack, { allowedImageHosts: choice.allowedImageHosts });
    const warm = serialiseWarmTables(loaded, [
      sendGuardOptions(choice.outgoing),
      answerGuardOptions(choice.incoming),
    ]);
    const subsets = warm.automata.map((automaton) => automaton.subset);
    // With the unit misses: a history load or the first long answer built them on the page.
    const bytes = encodeBuiltTables(pack, loaded, subsets, dataDigest, { misses: true });
    return { tables: bytesToBase64(bytes), digest: dataDigest(bytes), sha256: sha256Hex(bytes) };
  } catch {
    return undefined;
  }
}

/**
 * The page's pack compiled here, once per pack choice (recompiled when the
 * choice changes); with the choice's policies, its tables built for the page's
 * guards and encoded (built-tables.ts), once per browser session instead of on
 * every page's main thread (issue 19 §4). The pack's JSON goes only when the
 * tables could not be built (or no policies were given): the page then loads it
 * (load-compiled-pack.ts) and builds the tables itself.
 */
export function compiledRulesFor(choice: RulesChoice): CompiledPageRules {
  const key = compiledRulesKey(choice);
  if (last?.key === key) return last.rules;
  const packKey = compiledRulesKey({ ...choice, incoming: undefined, outgoing: undefined });
  if (cached?.key !== packKey) {
    cached = { key: packKey, pack: serialiseCompiledPack(compileChoice(choice)) };
  }
  if (cachedLabels === undefined) {
    const labels = getDefaultLabelPack();
    cachedLabels = {
      name: labels.name,
      version: labels.version,
      minProse: labels.minProse,
      rules: serialiseCompiledPack(labels.rules),
    };
  }
  const built = builtTablesFor(cached.pack, choice);
  const rules: CompiledPageRules =
    built === undefined
      ? { pack: cached.pack, labels: cachedLabels }
      : { labels: cachedLabels, built };
  last = { key, rules };
  computed++;
  return rules;
}

/** Whether the answer for `key` is at hand without computing it. */
export function hasCompiledRules(key: string): boolean {
  return last?.key === key;
}

/** How many answers this worker computed (not restored) so far. */
export function compiledRulesComputed(): number {
  return computed;
}

/**
 * An answer restored from storage.session (a service worker restarted after
 * being idle, issue 19 §4): used as if computed here, for that key only.
 */
export function adoptCompiledRules(key: string, rules: CompiledPageRules): void {
  last = { key, rules };
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
