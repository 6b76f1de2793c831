/**
 * The built-in packs as the commands run them: every pack, default options
 * (what `getCorePack` compiles).
 *
 * From source (tsx) they are compiled here, which parses every pattern and
 * proves every keyword list: about 300 ms, most of a short run. The bundle
 * that `bin/csg.js` runs (scripts/build-cli.js) is built with
 * CSG_COMPILED_PACK_FILE defined: the same packs, compiled and serialised
 * when the bundle was built, lie next to it as data, and `loadCompiledPack`
 * rebuilds them (checking the data as it goes), which is several times
 * faster. Both give the same rules, automata and verdicts (the loader builds
 * what compilePack builds; test/unit/cli/cli-bundle.test.ts compares outputs).
 */
import { readFileSync } from 'node:fs';
import type { CompiledPack } from '../core/rules/compiled-pack.ts';

/** File name of the serialised built-in pack beside the bundle; undefined when run from source. */
declare const CSG_COMPILED_PACK_FILE: string | undefined;

export async function loadBuiltinPack(): Promise<CompiledPack> {
  if (typeof CSG_COMPILED_PACK_FILE === 'string') {
    const { loadCompiledPack } = await import('../core/rules/load-compiled-pack.ts');
    const file = new URL(CSG_COMPILED_PACK_FILE, import.meta.url);
    return loadCompiledPack(JSON.parse(readFileSync(file, 'utf8')) as unknown);
  }
  return (await import('../core/rules/builtin-packs.ts')).getCorePack();
}
