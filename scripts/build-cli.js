#!/usr/bin/env node
// `node scripts/build-cli.js [--outdir DIR] [--no-minify]` (`npm run build:cli`; run by `prepare`, so on
// `npm ci`, `npm install` and `npm pack`)
//
// Builds the `csg` command to plain JavaScript, so it starts without compiling TypeScript
// (bin/csg.js runs it). Writes to DIR (default dist/cli/, beside the extension builds in
// dist/chrome and dist/firefox, which never touch it):
// - csg.mjs and chunks/*.mjs: src/cli/main.ts and everything it imports, bundled by esbuild
//   for Node 20 and split by command (a run loads only what its command imports); their
//   only imports are each other and Node's built-in modules, so they need no node_modules.
// - builtin-pack.json: the built-in rule packs compiled and serialised
//   (src/core/rules/serialised-pack.ts); the bundle loads it instead of compiling the packs
//   on every run (src/cli/builtin-pack.ts).
//   The bundle holds a digest of each data file as written here; a file that no longer
//   matches is loaded with every check (src/cli/builtin-pack.ts).
// - builtin-warm.json: the warm tables of that pack for the default guard options
//   (src/core/rules/warm-tables.ts): start classes, keyword automata and bigram tables the
//   first guard would otherwise build on every run (most of a short run's time).
// - builtin-tables.bin: that pack's rule specs and every rule's automaton, and what warming
//   built for it (the alphabet, start classes and deferrals, keyword automata with their
//   outputs, bigram tables and third- and fourth-unit misses) as typed arrays
//   (src/core/rules/built-tables.ts). While it has its
//   recorded digest the bundle loads the pack from it alone, building and parsing nothing
//   a short run does not use; otherwise it is ignored and the two JSON files are loaded as
//   above.
// - inputs.json: when the build started and every source file it read, so bin/csg.js can
//   tell, in a checkout, that a source changed since and run from source instead.
//
// Each file is written under a temporary name and renamed into place, csg.mjs last, so a
// `csg` running meanwhile sees the old build or the new one, never half of one. Any failure
// ends with exit status 1 and a line that says what failed: `prepare` must not pass without
// a bundle, which would leave `npm ci` green and `csg` slow.
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const outIndex = args.indexOf('--outdir');
const outDir = resolve(outIndex >= 0 ? args[outIndex + 1] : join(root, 'dist', 'cli'));
// --no-minify: readable function names in `node --cpu-prof` profiles of the bundle.
const minify = !args.includes('--no-minify');
const PACK_FILE = 'builtin-pack.json';
const WARM_FILE = 'builtin-warm.json';
const TABLES_FILE = 'builtin-tables.bin';
const CHUNKS = 'chunks';

function fail(message) {
  process.stderr.write(`build-cli: ${message}\n`);
  process.exit(1);
}

let esbuild;
try {
  esbuild = await import('esbuild');
} catch (error) {
  fail(
    `cannot load esbuild (a devDependency; did "npm ci" install dev dependencies?): ${error.message}`,
  );
}

const started = Date.now();
const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  write: false,
  metafile: true,
  logLevel: 'silent',
  legalComments: 'none',
};

/**
 * `node:fs` as Node's CommonJS module, not its ES module facade. Building the facade reads
 * every export, and two are getters that load Node's stream machinery and fs/promises
 * (`ReadStream`, `promises`): ~10 ms of a ~130 ms `echo hi | csg scan` spent compiling
 * modules a scan never uses (issue 19 §2). The shim exports every plain property of
 * `node:fs` under its own name; an import of a getter's name fails the build.
 */
const fsShim = {
  name: 'csg-fs-shim',
  setup(build) {
    build.onResolve({ filter: /^(node:)?fs$/ }, () => ({ path: 'node:fs', namespace: 'csg-fs' }));
    build.onLoad({ filter: /.*/, namespace: 'csg-fs' }, async () => {
      const { createRequire } = await import('node:module');
      const fs = createRequire(import.meta.url)('node:fs');
      const names = Object.keys(fs).filter(
        (name) =>
          /^[A-Za-z_$][\w$]*$/.test(name) &&
          Object.getOwnPropertyDescriptor(fs, name)?.get === undefined,
      );
      return {
        contents: [
          "import { createRequire } from 'node:module';",
          "const fs = createRequire(import.meta.url)('node:fs');",
          ...names.map((name) => `export const ${name} = fs.${name};`),
          'export default fs;',
        ].join('\n'),
        loader: 'js',
      };
    });
  },
};

/** Runs one esbuild build; on errors, fails with esbuild's first message, located. */
async function bundle(what, options) {
  try {
    return await esbuild.build({ ...common, ...options });
  } catch (error) {
    const first = error.errors?.[0];
    const where = first?.location ? `${first.location.file}:${first.location.line}: ` : '';
    fail(`${what} failed: ${where}${first?.text ?? error.message}`);
  }
}

/** The import paths a bundle leaves to Node; all must be Node's own modules. */
function checkOnlyBuiltins(result, what) {
  const builtins = new Set(builtinModules);
  for (const output of Object.values(result.metafile.outputs)) {
    for (const { path, external } of output.imports) {
      if (!external) continue; // another output of the same build (a chunk)
      if (!path.startsWith('node:') && !builtins.has(path)) {
        fail(`${what} imports "${path}" at run time; only Node's built-in modules may stay out`);
      }
    }
  }
}

// 1. The built-in packs, compiled and serialised by the same sources the bundle loads them
//    with (a small bundle run once, in this process).
const packProgram = await bundle('bundling the pack compiler', {
  stdin: {
    contents: [
      "import { getCorePack } from './src/core/rules/builtin-packs.ts';",
      "import { loadCompiledPack } from './src/core/rules/load-compiled-pack.ts';",
      "import { serialiseCompiledPack } from './src/core/rules/serialised-pack.ts';",
      "import { serialiseWarmTables } from './src/core/rules/warm-tables.ts';",
      "import { encodeBuiltTables } from './src/core/rules/built-tables.ts';",
      'const pack = serialiseCompiledPack(getCorePack());',
      // Warmed as the bundle loads the pack, for the default options (`scan`, `replay`).
      'const loaded = loadCompiledPack(pack);',
      'const warm = serialiseWarmTables(loaded, [{}]);',
      // What that warming built, as the binary the bundle maps (built-tables.ts).
      "import { dataDigest } from './src/core/rules/data-digest.ts';",
      'const subsets = warm.automata.map((a) => a.subset);',
      // With the unit misses a scan of a file builds otherwise (docs/cli-startup.md).
      'const tables = encodeBuiltTables(pack, loaded, subsets, dataDigest, { misses: true });',
      "import { builtTablesHead } from './src/core/rules/built-tables.ts';",
      'const texts = [JSON.stringify(pack), JSON.stringify(warm)];',
      // The digests builtin-pack.ts compares, of the UTF-8 bytes `place` writes below.
      'const digests = texts.map((text) => dataDigest(new TextEncoder().encode(text)));',
      // Of the head only: builtin-pack.ts compares it on every start (built-tables.ts).
      'export default [...texts, ...digests, tables, dataDigest(builtTablesHead(tables))];',
    ].join('\n'),
    resolveDir: root,
    sourcefile: 'compile-builtin-pack.ts',
    loader: 'ts',
  },
});
checkOnlyBuiltins(packProgram, 'the pack compiler');
let packJson;
let warmJson;
let packDigest;
let warmDigest;
let tablesBytes;
let tablesDigest;
try {
  const code = packProgram.outputFiles[0].text;
  const module = await import(
    `data:text/javascript;base64,${Buffer.from(code).toString('base64')}`
  );
  [packJson, warmJson, packDigest, warmDigest, tablesBytes, tablesDigest] = module.default;
} catch (error) {
  fail(`compiling the built-in packs failed: ${error.message}`);
}

// 2. The command itself. CSG_COMPILED_PACK_FILE and CSG_WARM_TABLES_FILE make
//    src/cli/builtin-pack.ts load the packs and their warm tables from step 1 instead of
//    compiling and warming them. The *_DIGEST values (src/core/rules/data-digest.ts) are of
//    exactly the bytes written below: a file that still has its digest is this build's
//    own and is trusted (fewer checks at load); any other is checked in full (issue 19 §2).
const cli = await bundle('bundling src/cli/main.ts', {
  entryPoints: [{ in: 'src/cli/main.ts', out: 'csg' }],
  outdir: outDir,
  outExtension: { '.js': '.mjs' },
  // main.ts imports each command when it runs: split, a run parses only the chunks its
  // command reaches. `scan` with the built-in pack never reads the pack sources, the regex
  // parser or the wire adapters (about half of the code); one bundle parsed them all.
  splitting: true,
  chunkNames: `${CHUNKS}/[name]-[hash]`,
  // Paths from the chunk that holds src/cli/builtin-pack.ts (checked below) to the data.
  define: {
    CSG_COMPILED_PACK_FILE: JSON.stringify(`../${PACK_FILE}`),
    CSG_WARM_TABLES_FILE: JSON.stringify(`../${WARM_FILE}`),
    CSG_COMPILED_PACK_DIGEST: JSON.stringify(packDigest),
    CSG_WARM_TABLES_DIGEST: JSON.stringify(warmDigest),
    CSG_BUILT_TABLES_FILE: JSON.stringify(`../${TABLES_FILE}`),
    CSG_BUILT_TABLES_DIGEST: JSON.stringify(tablesDigest),
  },
  plugins: [fsShim],
  // Smaller to parse on every start; names kept for error classes and messages.
  minify,
  keepNames: true,
  banner: { js: '// csg, built by scripts/build-cli.js from src/cli/main.ts. Do not edit.' },
});
checkOnlyBuiltins(cli, 'the csg bundle');
// The data paths above count from chunks/: the module that reads them must be in one.
for (const [path, output] of Object.entries(cli.metafile.outputs)) {
  if (
    output.inputs['src/cli/builtin-pack.ts'] !== undefined &&
    dirname(path).split('/').pop() !== CHUNKS
  ) {
    fail(
      `src/cli/builtin-pack.ts was bundled into ${path}, not into ${CHUNKS}/: fix the data paths`,
    );
  }
}

const inputs = [
  ...new Set([...Object.keys(packProgram.metafile.inputs), ...Object.keys(cli.metafile.inputs)]),
]
  .filter(
    (path) =>
      !path.startsWith('<stdin>') &&
      !path.includes('compile-builtin-pack.ts') &&
      // The fs shim is made here, not read from a file.
      !path.startsWith('csg-fs:'),
  )
  .map((path) => relative(root, resolve(root, path)))
  .sort();

/** Writes `name` in outDir by way of a temporary file and a rename. */
function place(name, contents) {
  const target = join(outDir, name);
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, contents);
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    fail(`cannot write ${target}: ${error.message}`);
  }
}

mkdirSync(outDir, { recursive: true });
place(PACK_FILE, packJson);
place(WARM_FILE, warmJson);
place(TABLES_FILE, tablesBytes);
place('inputs.json', JSON.stringify({ builtAt: started, inputs }, null, 1) + '\n');
// Chunks are named by their content's hash, so one being written is never one that a
// running csg reads (that one has other contents, hence another name). The entry goes
// last; then chunks no build output names any more are removed.
const entry = join(outDir, 'csg.mjs');
const chunkFiles = cli.outputFiles.filter((file) => file.path !== entry);
mkdirSync(join(outDir, CHUNKS), { recursive: true });
for (const file of chunkFiles) place(relative(outDir, file.path), file.contents);
const entryFile = cli.outputFiles.find((file) => file.path === entry);
if (entryFile === undefined) fail(`esbuild wrote no ${entry}`);
place('csg.mjs', entryFile.contents);
const current = new Set(chunkFiles.map((file) => basename(file.path)));
for (const name of readdirSync(join(outDir, CHUNKS))) {
  if (!current.has(name)) rmSync(join(outDir, CHUNKS, name), { force: true });
}
const kB = (n) => `${Math.round(n / 1024)} kB`;
process.stderr.write(
  `build-cli: ${relative(process.cwd(), entry) || outDir} (${kB(entryFile.contents.length)}; ${chunkFiles.length} chunks, ${kB(chunkFiles.reduce((n, file) => n + file.contents.length, 0))}) and ${PACK_FILE} (${kB(packJson.length)}), ${TABLES_FILE} (${kB(tablesBytes.length)}) in ${Date.now() - started} ms\n`,
);
