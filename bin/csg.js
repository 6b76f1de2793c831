#!/usr/bin/env node
// The `csg` launcher. All behaviour lives in src/cli/main.ts.
//
// It runs the plain-JavaScript build of the CLI, dist/cli/csg.mjs (scripts/build-cli.js,
// run by `prepare` on `npm ci` and `npm pack`, or `npm run build:cli`), which starts in a
// fraction of the time TypeScript takes to compile.
//
// Development note: in a checkout (src/ is here) the build is used only while it is current:
// when a source file it was built from has changed since (or is gone), or CSG_FROM_SOURCE=1
// is set, the launcher registers tsx and runs the TypeScript sources as they are, as before,
// only slower. `npm run build:cli` makes the fast path current again. An installed package
// has no sources and always runs the build.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// node:fs as CommonJS: its ES module facade reads every export, and two of them load
// Node's stream machinery and fs/promises, ~10 ms of a start (docs/cli-startup.md).
const { existsSync, readFileSync, statSync } = createRequire(import.meta.url)('node:fs');

const root = fileURLToPath(new URL('..', import.meta.url));
const bundle = join(root, 'dist', 'cli', 'csg.mjs');
const sourceMain = join(root, 'src', 'cli', 'main.ts');

/** Whether no input listed in dist/cli/inputs.json changed after the build started. */
function buildIsCurrent() {
  try {
    const record = JSON.parse(readFileSync(join(root, 'dist', 'cli', 'inputs.json'), 'utf8'));
    return record.inputs.every((path) => statSync(join(root, path)).mtimeMs < record.builtAt);
  } catch {
    return false; // no record of the build, or an input is gone
  }
}

function fail(line) {
  process.stderr.write(`csg: ${line}\n`);
  process.exit(1);
}

const inCheckout = existsSync(sourceMain);
const useBuild =
  existsSync(bundle) && (!inCheckout || (process.env.CSG_FROM_SOURCE !== '1' && buildIsCurrent()));

if (useBuild) {
  await import(pathToFileURL(bundle).href);
} else if (!inCheckout) {
  fail(`${bundle} is missing: reinstall the package`);
} else {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    fail('dist/cli/csg.mjs is missing or out of date and tsx is not installed: run "npm ci"');
  }
  register();
  await import(pathToFileURL(sourceMain).href);
}
