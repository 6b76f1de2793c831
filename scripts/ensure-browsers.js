#!/usr/bin/env node
// `node scripts/ensure-browsers.js [chromium] [firefox]` (default: both)
//
// Finds or provides the real browsers the e2e tests and `npm run demo` launch, so the
// README's `npm ci && npm test` and `npm ci && npm run demo` work on a bare Debian machine
// that has only Node. Run by `npm test` (first, and again by `test:e2e`) and by scripts/demo.js.
//
// - A browser is present when CHROME_PATH / FIREFOX_PATH (when set) or else the Debian path
//   (/usr/bin/chromium, /usr/bin/firefox-esr) is an executable file. test/e2e/launch.ts uses
//   the same paths. A set CHROME_PATH / FIREFOX_PATH that points nowhere is an error: it is
//   never replaced by an install.
// - Missing Debian browsers are installed from Debian, as ../shared/TOOLCHAIN.md says:
//   `apt-get update`, then `apt-get install -y chromium firefox-esr` (only what is missing),
//   with DEBIAN_FRONTEND=noninteractive; as root directly, otherwise through `sudo -n` when
//   that works without a password. About 80 s.
// - When that is impossible (no apt-get, not root and no password-less sudo, or apt-get
//   failed), it stops at once with exit status 1 and one line on stderr that says exactly
//   what to run.
//
// Prints nothing when the browsers are there. Plain Node, no dependencies: it runs before
// anything else is known to work.
//
// apt-get and sudo are the ones found on PATH (apt-get is run by that absolute path, also
// through sudo). For tests only: ENSURE_BROWSERS_ROOT names a directory that stands for `/`
// when looking for the Debian paths (test/unit/setup/ensure-browsers.test.ts puts fake
// apt-get and sudo shims on PATH and lets them "install" there).
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const BROWSERS = {
  chromium: {
    label: 'Chromium',
    env: 'CHROME_PATH',
    debianPath: '/usr/bin/chromium',
    pkg: 'chromium',
  },
  firefox: {
    label: 'Firefox ESR',
    env: 'FIREFOX_PATH',
    debianPath: '/usr/bin/firefox-esr',
    pkg: 'firefox-esr',
  },
};

function fail(line) {
  process.stderr.write(`ensure-browsers: ${line}\n`);
  process.exit(1);
}

function isExecutableFile(path) {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` on PATH, or null. */
function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && isExecutableFile(join(dir, name))) return join(dir, name);
  }
  return null;
}

/** Where the Debian package puts the browser (under ENSURE_BROWSERS_ROOT in tests). */
function debianPath(browser) {
  const root = process.env.ENSURE_BROWSERS_ROOT;
  return root ? join(root, browser.debianPath) : browser.debianPath;
}

const names = process.argv.slice(2);
for (const name of names) {
  if (!(name in BROWSERS)) fail(`unknown browser "${name}" (use chromium and/or firefox)`);
}
const wanted = (names.length > 0 ? names : Object.keys(BROWSERS)).map((name) => BROWSERS[name]);

const missing = [];
for (const browser of wanted) {
  const override = process.env[browser.env];
  if (override) {
    if (!isExecutableFile(override)) {
      fail(
        `${browser.env}=${override} is not an executable file: point it at ${browser.label}, or unset it to use ${browser.debianPath}`,
      );
    }
  } else if (!isExecutableFile(debianPath(browser))) {
    missing.push(browser);
  }
}
if (missing.length === 0) process.exit(0);

const packages = missing.map((b) => b.pkg).join(' ');
const what = missing.map((b) => `${b.label} (${b.debianPath})`).join(' and ');
const envs = missing.map((b) => `${b.env}=…`).join(' ');
const isRoot = process.getuid?.() === 0;
const be = missing.length > 1 ? 'are' : 'is';
/** What a person runs to install them: as root, or through sudo. */
const installCommand = isRoot
  ? `apt-get update && apt-get install -y ${packages}`
  : `sudo apt-get update && sudo apt-get install -y ${packages}`;

const aptGetPath = onPath('apt-get');
if (aptGetPath === null) {
  fail(
    `${what} ${be} missing and apt-get is not available here: install ${missing.map((b) => b.label).join(' and ')}, then run again with ${envs} set to the executable${missing.length > 1 ? 's' : ''}`,
  );
}

// Root runs apt-get itself; anyone else needs sudo that does not ask for a password.
let prefix = [];
if (!isRoot) {
  const sudo = onPath('sudo');
  const canSudo =
    sudo !== null && spawnSync(sudo, ['-n', 'true'], { stdio: 'ignore' }).status === 0;
  if (!canSudo) {
    fail(`${what} ${be} missing and installing needs root; run: ${installCommand}`);
  }
  // sudo resets the environment: pass DEBIAN_FRONTEND through env(1).
  prefix = [sudo, '-n', 'env', 'DEBIAN_FRONTEND=noninteractive'];
}

process.stderr.write(`ensure-browsers: installing ${packages} with apt-get (about 80 s)\n`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
/**
 * Runs apt-get (through sudo when needed); its exit status. Its several hundred lines of
 * progress are kept back: a newcomer sees one line before and one after, and the last lines
 * of apt-get's output only when it fails (they say why).
 */
function aptGet(args) {
  const [command, ...rest] = [...prefix, aptGetPath, ...args];
  const result = spawnSync(command, rest, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const status = result.status ?? 1;
  if (status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trimEnd();
    if (output !== '') process.stderr.write(`${output.split('\n').slice(-20).join('\n')}\n`);
  }
  return status;
}
// Wait for another apt/dpkg run (another engineer, another CI step) instead of failing.
const lock = ['-o', 'DPkg::Lock::Timeout=300'];
const updated = aptGet([...lock, 'update']);
if (updated !== 0) fail(`apt-get update failed (exit ${updated}); run: ${installCommand}`);
const installed = aptGet([...lock, 'install', '-y', ...missing.map((b) => b.pkg)]);
if (installed !== 0) fail(`apt-get install failed (exit ${installed}); run: ${installCommand}`);

const stillMissing = missing.filter((b) => !isExecutableFile(debianPath(b)));
if (stillMissing.length > 0) {
  fail(
    `apt-get installed ${packages} but ${stillMissing.map((b) => b.debianPath).join(' and ')} ${stillMissing.length > 1 ? 'are' : 'is'} still missing: set ${stillMissing.map((b) => `${b.env}=…`).join(' ')} to the executable`,
  );
}
process.stderr.write(`ensure-browsers: installed ${packages}\n`);
