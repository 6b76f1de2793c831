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
 * a guard with other options builds what the tables lack on first use.
 *
 * The build records a digest of each data file's bytes in the bundle
 * (CSG_COMPILED_PACK_DIGEST, CSG_WARM_TABLES_DIGEST; data-digest.ts). Only when both files
 * match is the data trusted as the build's own: an always-on rule's automaton is
 * then decoded and checked when a scan first starts the rule, not at load
 * (`deferAlwaysOn`), and the warm tables' re-proofs are skipped. A file that
 * does not match (edited, corrupted, another build's) is checked in full, and
 * a pack given with --pack always is (it never comes through here).
 *
 * Before both, the bundle tries its built tables (CSG_BUILT_TABLES_FILE,
 * built-tables.ts): the pack's rule specs, alphabet, start tables and keyword
 * automata as typed arrays, so a run builds none of them and parses no pack
 * JSON. They are used only while the digest of their head is the one the build
 * recorded (CSG_BUILT_TABLES_DIGEST); the rules' automata after the head are
 * checked by a digest the head records, when a rule is first decoded (a
 * mismatch then refuses the rule, failing its scan closed). Any other file, or
 * one laid out wrong, is ignored and the JSON files are loaded as above.
 */
import { readFileSync } from 'node:fs';
import { builtTablesHead } from '../core/rules/built-tables.ts';
import type { CompiledPack } from '../core/rules/compiled-pack.ts';
import { dataDigest } from '../core/rules/data-digest.ts';

/** File name of the serialised built-in pack beside the bundle; undefined when run from source. */
declare const CSG_COMPILED_PACK_FILE: string | undefined;
/** File name of that pack's warm tables beside the bundle; undefined when run from source. */
declare const CSG_WARM_TABLES_FILE: string | undefined;
/** data-digest.ts of the pack file's bytes as the build wrote them; undefined from source. */
declare const CSG_COMPILED_PACK_DIGEST: string | undefined;
/** data-digest.ts of the warm tables file's bytes as the build wrote them. */
declare const CSG_WARM_TABLES_DIGEST: string | undefined;
/** File name of the pack's built tables (built-tables.ts) beside the bundle. */
declare const CSG_BUILT_TABLES_FILE: string | undefined;
/** data-digest.ts of the built tables file's bytes as the build wrote them. */
declare const CSG_BUILT_TABLES_DIGEST: string | undefined;

/** A data file beside the bundle: its JSON, and whether its bytes are the build's own. */
export interface BundledData {
  json: unknown;
  asBuilt: boolean;
}

/**
 * Reads `name` relative to `base`; `asBuilt` when its digest is `digest`, the one
 * scripts/build-cli.js recorded for the bytes it wrote (issue 19 §2). Those bytes
 * came from this build's own compiler, so the loaders may skip the checks that
 * only guard against another producer; a file edited or corrupted since fails the
 * comparison and is checked in full.
 */
export function readBundledData(name: string, base: string, digest: string): BundledData {
  const bytes = readFileSync(new URL(name, base));
  const asBuilt = digest !== '' && dataDigest(bytes) === digest;
  return { json: JSON.parse(bytes.toString('utf8')) as unknown, asBuilt };
}

/**
 * Reads the built tables `name` relative to `base` when the digest of their head
 * (built-tables.ts `builtTablesHead`) is `digest`; undefined when the file is
 * missing or not as built, so the caller takes the checked path instead.
 */
export function readBuiltBytes(name: string, base: string, digest: string): Uint8Array | undefined {
  if (digest === '') return undefined;
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(new URL(name, base));
  } catch {
    return undefined;
  }
  // The head only: the rules' automata, 60% of the file, are digested when a rule is
  // first decoded (built-tables.ts), and a short scan may start none.
  const head = builtTablesHead(bytes);
  return head !== undefined && dataDigest(head) === digest ? bytes : undefined;
}

/**
 * The pack from the built tables (built-tables.ts) alone, as built: its alphabet
 * and caches are the file's, and each rule's data is decoded and checked when the
 * rule first runs, so nothing is built or parsed that a short run does not use.
 * Undefined when the file's layout is wrong (the caller then takes the checked
 * path through the JSON files).
 */
export async function loadBuiltPack(tables: Uint8Array): Promise<CompiledPack | undefined> {
  const { decodeBuiltTables, loadBuiltTables, BuiltTablesError } =
    await import('../core/rules/built-tables.ts');
  try {
    // Node's own Latin-1 decoding: the built tables' text is ASCII.
    const text = (ascii: Uint8Array) =>
      Buffer.from(ascii.buffer, ascii.byteOffset, ascii.byteLength).toString('latin1');
    return loadBuiltTables(decodeBuiltTables(tables, { digest: dataDigest, text }));
  } catch (error) {
    if (error instanceof BuiltTablesError) return undefined;
    throw error;
  }
}

/**
 * The pack from the bundle's data files. Only when both files are as built is
 * the pack trusted: each always-on rule's automaton is then checked when a scan
 * first starts the rule (`deferAlwaysOn`) and the warm tables' re-proofs are
 * skipped. Otherwise every check runs, at load, as for a pack given with --pack.
 */
export async function loadBundledPack(
  pack: BundledData,
  warm: BundledData | undefined,
): Promise<CompiledPack> {
  const { loadCompiledPack } = await import('../core/rules/load-compiled-pack.ts');
  const trusted = pack.asBuilt && warm?.asBuilt === true;
  const loaded = loadCompiledPack(pack.json, {}, { deferAlwaysOn: trusted });
  if (warm === undefined) return loaded;
  const { loadWarmTables } = await import('../core/rules/load-warm-tables.ts');
  return loadWarmTables(warm.json, loaded, { trusted });
}

export async function loadBuiltinPack(): Promise<CompiledPack> {
  if (typeof CSG_COMPILED_PACK_FILE === 'string') {
    const base = import.meta.url;
    // `typeof` first: from source the names are not defined at all.
    const packDigest = typeof CSG_COMPILED_PACK_DIGEST === 'string' ? CSG_COMPILED_PACK_DIGEST : '';
    const warmDigest = typeof CSG_WARM_TABLES_DIGEST === 'string' ? CSG_WARM_TABLES_DIGEST : '';
    const tables =
      typeof CSG_BUILT_TABLES_FILE === 'string'
        ? readBuiltBytes(
            CSG_BUILT_TABLES_FILE,
            base,
            typeof CSG_BUILT_TABLES_DIGEST === 'string' ? CSG_BUILT_TABLES_DIGEST : '',
          )
        : undefined;
    if (tables !== undefined) {
      const built = await loadBuiltPack(tables);
      if (built !== undefined) return built;
    }
    const pack = readBundledData(CSG_COMPILED_PACK_FILE, base, packDigest);
    const warm =
      typeof CSG_WARM_TABLES_FILE === 'string'
        ? readBundledData(CSG_WARM_TABLES_FILE, base, warmDigest)
        : undefined;
    return loadBundledPack(pack, warm);
  }
  return (await import('../core/rules/builtin-packs.ts')).getCorePack();
}
