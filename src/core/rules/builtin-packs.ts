/**
 * The packs that ship with the extension and the CLI, one JSON file per kind
 * of finding (issue 6). JSON is imported as data; the enabled packs are merged
 * into one pack (a stream runs one CompiledPack) and compiled once per set of
 * options.
 */
import { type CompileOptions, type CompiledPack, PackError, compilePack } from './compile-pack.ts';
import { mergePacks } from './merge-packs.ts';
import exfilPackJson from './packs/exfil.json' with { type: 'json' };
import injectionPackJson from './packs/injection.json' with { type: 'json' };
import invisiblePackJson from './packs/invisible.json' with { type: 'json' };
import piiPackJson from './packs/pii.json' with { type: 'json' };
import secretsPackJson from './packs/secrets.json' with { type: 'json' };
import type { RulePack } from './rule.ts';

/** Every built-in pack, in the order their rules run (secrets first: they are the most specific). */
export const builtinPackSources: readonly RulePack[] = [
  secretsPackJson as RulePack,
  piiPackJson as RulePack,
  exfilPackJson as RulePack,
  invisiblePackJson as RulePack,
  injectionPackJson as RulePack,
];

export const BUILTIN_PACK_NAMES: readonly string[] = builtinPackSources.map((p) => p.name);

/** The whole built-in set merged into one pack, as JSON (what `csg rules check` checks). */
export function builtinPackJson(): RulePack {
  const merged = mergePacks(builtinPackSources, { name: 'builtin' });
  if (!merged.ok) throw new PackError(merged.problems);
  return merged.pack;
}

export interface GuardPackOptions extends CompileOptions {
  /** Built-in packs to run, by name (default: all). */
  packs?: readonly string[];
  /** Rule ids switched off (in any pack). */
  disabledRules?: readonly string[];
  /** Custom packs (unvalidated JSON) to run besides the built-in ones. */
  customPacks?: readonly unknown[];
}

/**
 * The built-in packs (all, or `packs`), plus custom packs, merged and compiled.
 * Throws PackError when a custom pack is invalid or reuses a rule id.
 */
export function compileGuardPack(options: GuardPackOptions = {}): CompiledPack {
  const enabled = options.packs === undefined ? undefined : new Set(options.packs);
  const disabledPacks =
    enabled === undefined ? [] : BUILTIN_PACK_NAMES.filter((name) => !enabled.has(name));
  const merged = mergePacks([...builtinPackSources, ...(options.customPacks ?? [])], {
    name: 'builtin',
    disabledPacks,
    disabledRules: options.disabledRules ?? [],
  });
  if (!merged.ok) throw new PackError(merged.problems);
  const compileOptions: CompileOptions = {};
  if (options.allowedImageHosts !== undefined) {
    compileOptions.allowedImageHosts = options.allowedImageHosts;
  }
  return compilePack(merged.pack, compileOptions);
}

/** The whole built-in set with `options` (kept for callers written before the split). */
export function compileCorePack(options: CompileOptions = {}): CompiledPack {
  return compileGuardPack(options);
}

let defaultPack: CompiledPack | undefined;

/**
 * Every built-in pack with default options (no image host allow-listed),
 * compiled on first use: a page that never sees a guarded response never pays
 * for it.
 */
export function getCorePack(): CompiledPack {
  defaultPack ??= compileGuardPack();
  return defaultPack;
}
