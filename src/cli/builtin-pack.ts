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
 *
 * The bundle also carries the pack's warm tables for the default guard options
 * (CSG_WARM_TABLES_FILE; warm-tables.ts, issue 19 §2): the first guard of a run
 * otherwise builds its keyword automata, bigram and start tables, which was
 * most of `echo hi | csg scan`. They are checked against the loaded pack and
 * seeded into it, as a page does with the background's (load-warm-tables.ts);
 * a guard with other options builds what the tables lack on first use. With
 * the start classes given, an always-on rule's automaton is decoded and checked
 * when a scan first starts the rule, not at load (`deferAlwaysOn`).
 */
import { readFileSync } from 'node:fs';
import type { CompiledPack } from '../core/rules/compiled-pack.ts';

/** File name of the serialised built-in pack beside the bundle; undefined when run from source. */
declare const CSG_COMPILED_PACK_FILE: string | undefined;
/** File name of that pack's warm tables beside the bundle; undefined when run from source. */
declare const CSG_WARM_TABLES_FILE: string | undefined;

function bundledJson(name: string): unknown {
  return JSON.parse(readFileSync(new URL(name, import.meta.url), 'utf8')) as unknown;
}

export async function loadBuiltinPack(): Promise<CompiledPack> {
  if (typeof CSG_COMPILED_PACK_FILE === 'string') {
    const { loadCompiledPack } = await import('../core/rules/load-compiled-pack.ts');
    const data = bundledJson(CSG_COMPILED_PACK_FILE);
    if (typeof CSG_WARM_TABLES_FILE !== 'string') return loadCompiledPack(data);
    // Written by the same build as this code: each rule's automaton is checked when a
    // scan first starts the rule, so a short run decodes only those (load-compiled-pack.ts).
    const pack = loadCompiledPack(data, {}, { deferAlwaysOn: true });
    const { loadWarmTables } = await import('../core/rules/load-warm-tables.ts');
    return loadWarmTables(bundledJson(CSG_WARM_TABLES_FILE), pack);
  }
  return (await import('../core/rules/builtin-packs.ts')).getCorePack();
}
