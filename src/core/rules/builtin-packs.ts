/**
 * The packs that ship with the extension and the CLI. JSON is imported as
 * data and compiled once per set of options.
 */
import { type CompileOptions, type CompiledPack, compilePack } from './compile-pack.ts';
import corePackJson from './packs/core.json' with { type: 'json' };
import type { RulePack } from './rule.ts';

export const builtinPackSources: readonly RulePack[] = [corePackJson as RulePack];

export function compileCorePack(options: CompileOptions = {}): CompiledPack {
  return compilePack(corePackJson, options);
}

let defaultCorePack: CompiledPack | undefined;

/**
 * The core pack with default options (no image host allow-listed), compiled
 * on first use: a page that never sees a guarded response never pays for it.
 */
export function getCorePack(): CompiledPack {
  defaultCorePack ??= compileCorePack();
  return defaultCorePack;
}
