#!/usr/bin/env node
// `node scripts/build-cli.js [--outdir DIR]` (`npm run build:cli`; run by `prepare`, so on
// `npm ci`, `npm install` and `npm pack`)
//
// Builds the `csg` command to plain JavaScript, so it starts without compiling TypeScript
// (bin/csg.js runs it). Writes to DIR (default dist/cli/, beside the extension builds in
// dist/chrome and dist/firefox, which never touch it):
// - csg.mjs: src/cli/main.ts and everything it imports, one esbuild bundle for Node 20;
//   its only imports are Node's built-in modules, so it needs no node_modules.
// - builtin-pack.json: the built-in rule packs compiled and serialised
//   (src/core/rules/serialised-pack.ts); the bundle loads it instead of compiling the packs
//   on every run (src/cli/builtin-pack.ts).
// - inputs.json: when the build started and every source file it read, so bin/csg.js can
//   tell, in a checkout, that a source changed since and run from source instead.
//
// Each file is written under a temporary name and renamed into place, csg.mjs last, so a
// `csg` running meanwhile sees the old build or the new one, never half of one. Any failure
// ends with exit status 1 and a line that says what failed: `prepare` must not pass without
// a bundle, which would leave `npm ci` green and `csg` slow.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const outIndex = args.indexOf('--outdir');
const outDir = resolve(outIndex >= 0 ? args[outIndex + 1] : join(root, 'dist', 'cli'));
const PACK_FILE = 'builtin-pack.json';

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
    for (const { path } of output.imports) {
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
      "import { serialiseCompiledPack } from './src/core/rules/serialised-pack.ts';",
      'export default JSON.stringify(serialiseCompiledPack(getCorePack()));',
    ].join('\n'),
    resolveDir: root,
    sourcefile: 'compile-builtin-pack.ts',
    loader: 'ts',
  },
});
checkOnlyBuiltins(packProgram, 'the pack compiler');
let packJson;
try {
  const code = packProgram.outputFiles[0].text;
  const module = await import(
    `data:text/javascript;base64,${Buffer.from(code).toString('base64')}`
  );
  packJson = module.default;
} catch (error) {
  fail(`compiling the built-in packs failed: ${error.message}`);
}

// 2. The command itself. CSG_COMPILED_PACK_FILE makes src/cli/builtin-pack.ts load the
//    packs from step 1 instead of compiling them.
const cli = await bundle('bundling src/cli/main.ts', {
  entryPoints: ['src/cli/main.ts'],
  outfile: join(outDir, 'csg.mjs'),
  define: { CSG_COMPILED_PACK_FILE: JSON.stringify(PACK_FILE) },
  // Smaller to parse on every start; names kept for error classes and messages.
  minify: true,
  keepNames: true,
  banner: { js: '// csg, built by scripts/build-cli.js from src/cli/main.ts. Do not edit.' },
});
checkOnlyBuiltins(cli, 'the csg bundle');

const inputs = [
  ...new Set([...Object.keys(packProgram.metafile.inputs), ...Object.keys(cli.metafile.inputs)]),
]
  .filter((path) => !path.startsWith('<stdin>') && !path.includes('compile-builtin-pack.ts'))
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
place('inputs.json', JSON.stringify({ builtAt: started, inputs }, null, 1) + '\n');
place('csg.mjs', cli.outputFiles[0].contents);
const kB = (n) => `${Math.round(n / 1024)} kB`;
process.stderr.write(
  `build-cli: ${relative(process.cwd(), join(outDir, 'csg.mjs')) || outDir} (${kB(cli.outputFiles[0].contents.length)}) and ${PACK_FILE} (${kB(packJson.length)}) in ${Date.now() - started} ms\n`,
);
