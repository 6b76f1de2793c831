/**
 * scripts/ensure-browsers.js as a newcomer meets it: on a machine where no browser exists.
 * Each test runs the real script in a child process with a PATH that holds only fake
 * `apt-get` / `sudo` shims written here, and ENSURE_BROWSERS_ROOT pointing at an empty
 * directory standing for `/`, so the Debian paths are missing. The shims log their
 * arguments; the "installing" apt-get creates the browser executables under that root.
 * The real apt-get never runs: the script runs apt-get by the path it found on PATH.
 *
 * Non-root cases run the child as `nobody` when the tests run as root (as on CI and the
 * shared machine); root cases run only when the tests do.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../../scripts/ensure-browsers.js', import.meta.url));
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

let dir: string;
/** The directory on PATH: the shims and nothing else. */
let bin: string;
/** Stands for `/`: the Debian paths are looked up under it. */
let root: string;
let log: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'csg-ensure-browsers-'));
  bin = join(dir, 'bin');
  root = join(dir, 'root');
  mkdirSync(bin);
  mkdirSync(root);
  log = join(dir, 'calls.log');
  writeFileSync(log, '');
  // The child may run as nobody: it must reach the shims, the log and the root.
  for (const path of [dir, bin, root, log]) chmodSync(path, 0o777);
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function shim(name: string, body: string): void {
  const path = join(bin, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}

/** An executable file standing for a browser. */
function fakeBrowser(path: string): string {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o777 });
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

/** apt-get that logs its call and fails the way apt-get does without a network. */
function failingAptGet(): void {
  shim(
    'apt-get',
    [
      `echo "apt-get $*" >> '${log}'`,
      'echo "Reading package lists..."',
      'echo "E: Failed to fetch the package index (Temporary failure resolving \'deb.debian.org\')" >&2',
      'exit 100',
    ].join('\n'),
  );
}

/** apt-get that logs its call (and DEBIAN_FRONTEND) and "installs" the packages named. */
function installingAptGet(): void {
  shim(
    'apt-get',
    [
      `echo "apt-get $* DEBIAN_FRONTEND=$DEBIAN_FRONTEND" >> '${log}'`,
      // The progress real apt-get prints, which a newcomer should not have to scroll past.
      'echo "Reading package lists..."; echo "Unpacking packages..." >&2',
      `/bin/mkdir -p '${root}/usr/bin'`,
      'for arg in "$@"; do',
      '  case "$arg" in',
      `    chromium|firefox-esr) printf '#!/bin/sh\\n' > '${root}/usr/bin/'"$arg"; /bin/chmod 755 '${root}/usr/bin/'"$arg" ;;`,
      '  esac',
      'done',
    ].join('\n'),
  );
}

/** sudo that works without a password: runs its command (PATH for env(1); apt-get comes absolute). */
function workingSudo(): void {
  shim(
    'sudo',
    `echo "sudo $*" >> '${log}'\n[ "$1" = -n ] || exit 1\nshift\nPATH=/usr/bin:/bin exec "$@"`,
  );
}

/** sudo that needs a password, asked with -n (non-interactive): fails. */
function passwordSudo(): void {
  shim('sudo', `echo "sudo $*" >> '${log}'\necho 'sudo: a password is required' >&2\nexit 1`);
}

interface Run {
  status: number | null;
  stderr: string;
  stdout: string;
  calls: string[];
}

function run(
  args: string[] = [],
  options: { env?: Record<string, string>; asRoot?: boolean } = {},
): Run {
  const asNobody = !options.asRoot && isRoot;
  const result = spawnSync(process.execPath, [script, ...args], {
    // A fresh environment: nothing from this machine (CHROME_PATH, PATH) leaks in.
    env: { PATH: bin, ENSURE_BROWSERS_ROOT: root, ...options.env },
    encoding: 'utf8',
    timeout: 20_000,
    ...(asNobody ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  return {
    status: result.status,
    stderr: result.stderr,
    stdout: result.stdout,
    calls: readFileSync(log, 'utf8').split('\n').filter(Boolean),
  };
}

/** stderr is exactly one line. */
function oneLine(stderr: string): string {
  expect(stderr).toMatch(/^ensure-browsers: [^\n]+\n$/);
  return stderr.trimEnd();
}

describe('ensure-browsers: environment overrides', () => {
  it('uses CHROME_PATH and FIREFOX_PATH when they point at executables, installing nothing', () => {
    installingAptGet();
    const chrome = fakeBrowser(join(dir, 'elsewhere', 'chrome'));
    const firefox = fakeBrowser(join(dir, 'elsewhere', 'firefox'));
    const result = run([], { env: { CHROME_PATH: chrome, FIREFOX_PATH: firefox } });
    expect(result).toMatchObject({ status: 0, stderr: '', stdout: '', calls: [] });
  });

  it('stops with one line when CHROME_PATH points nowhere, never installing instead', () => {
    installingAptGet();
    workingSudo();
    const missing = join(dir, 'no-such-chrome');
    const firefox = fakeBrowser(join(dir, 'elsewhere', 'firefox'));
    const result = run([], { env: { CHROME_PATH: missing, FIREFOX_PATH: firefox } });
    expect(result.status).toBe(1);
    expect(oneLine(result.stderr)).toBe(
      `ensure-browsers: CHROME_PATH=${missing} is not an executable file: point it at Chromium, or unset it to use /usr/bin/chromium`,
    );
    expect(result.calls).toEqual([]);
  });

  it('is silent when the Debian paths hold both browsers', () => {
    failingAptGet();
    fakeBrowser(join(root, 'usr/bin/chromium'));
    fakeBrowser(join(root, 'usr/bin/firefox-esr'));
    expect(run()).toMatchObject({ status: 0, stderr: '', calls: [] });
  });

  it('checks only the browsers asked for (the demo needs Chromium alone)', () => {
    failingAptGet();
    fakeBrowser(join(root, 'usr/bin/chromium'));
    expect(run(['chromium'])).toMatchObject({ status: 0, stderr: '', calls: [] });
  });
});

describe('ensure-browsers: installing cannot work', () => {
  it('not root and no sudo: one line with the command to run, at once', () => {
    installingAptGet();
    const result = run();
    expect(result.status).toBe(1);
    expect(oneLine(result.stderr)).toBe(
      'ensure-browsers: Chromium (/usr/bin/chromium) and Firefox ESR (/usr/bin/firefox-esr) are missing and installing needs root; run: sudo apt-get update && sudo apt-get install -y chromium firefox-esr',
    );
    expect(result.calls).toEqual([]);
  });

  it('not root and sudo asks for a password: the same line, apt-get never runs', () => {
    installingAptGet();
    passwordSudo();
    const result = run();
    expect(result.status).toBe(1);
    expect(oneLine(result.stderr)).toContain(
      'installing needs root; run: sudo apt-get update && sudo apt-get install -y chromium firefox-esr',
    );
    expect(result.calls).toEqual(['sudo -n true']);
  });

  it('no apt-get (not Debian): one line naming the variables to set', () => {
    const result = run(['firefox']);
    expect(result.status).toBe(1);
    expect(oneLine(result.stderr)).toBe(
      'ensure-browsers: Firefox ESR (/usr/bin/firefox-esr) is missing and apt-get is not available here: install Firefox ESR, then run again with FIREFOX_PATH=… set to the executable',
    );
  });

  it.runIf(isRoot)('root, apt-get fails: stops after apt-get update with the command', () => {
    failingAptGet();
    const result = run([], { asRoot: true });
    expect(result.status).toBe(1);
    const lines = result.stderr.trimEnd().split('\n');
    // apt-get's own last lines are shown on failure: they say why.
    expect(lines).toEqual([
      'ensure-browsers: installing chromium firefox-esr with apt-get (about 80 s)',
      'Reading package lists...',
      "E: Failed to fetch the package index (Temporary failure resolving 'deb.debian.org')",
      'ensure-browsers: apt-get update failed (exit 100); run: apt-get update && apt-get install -y chromium firefox-esr',
    ]);
    expect(result.calls).toEqual(['apt-get -o DPkg::Lock::Timeout=300 update']);
  });
});

describe('ensure-browsers: installing', () => {
  it.runIf(isRoot)('root: apt-get update, then installs what is missing, non-interactive', () => {
    installingAptGet();
    fakeBrowser(join(root, 'usr/bin/chromium'));
    const result = run([], { asRoot: true });
    expect(result.status).toBe(0);
    expect(result.calls).toEqual([
      'apt-get -o DPkg::Lock::Timeout=300 update DEBIAN_FRONTEND=noninteractive',
      'apt-get -o DPkg::Lock::Timeout=300 install -y firefox-esr DEBIAN_FRONTEND=noninteractive',
    ]);
    expect(existsSync(join(root, 'usr/bin/firefox-esr'))).toBe(true);
    // apt-get's progress is kept back: one line before, one after, nothing on stdout.
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      'ensure-browsers: installing firefox-esr with apt-get (about 80 s)',
      'ensure-browsers: installed firefox-esr',
    ]);
    expect(result.stdout).toBe('');
    // A second run finds them and does nothing.
    writeFileSync(log, '');
    expect(run([], { asRoot: true })).toMatchObject({ status: 0, stderr: '', calls: [] });
  });

  it('not root: through sudo -n when it needs no password', () => {
    installingAptGet();
    workingSudo();
    const result = run();
    expect(result.status).toBe(0);
    const aptGet = join(bin, 'apt-get');
    expect(result.calls).toEqual([
      'sudo -n true',
      `sudo -n env DEBIAN_FRONTEND=noninteractive ${aptGet} -o DPkg::Lock::Timeout=300 update`,
      'apt-get -o DPkg::Lock::Timeout=300 update DEBIAN_FRONTEND=noninteractive',
      `sudo -n env DEBIAN_FRONTEND=noninteractive ${aptGet} -o DPkg::Lock::Timeout=300 install -y chromium firefox-esr`,
      'apt-get -o DPkg::Lock::Timeout=300 install -y chromium firefox-esr DEBIAN_FRONTEND=noninteractive',
    ]);
    expect(existsSync(join(root, 'usr/bin/chromium'))).toBe(true);
    expect(existsSync(join(root, 'usr/bin/firefox-esr'))).toBe(true);
  });

  it('not root: apt-get that "succeeds" without the browser appearing is still a stop', () => {
    shim('apt-get', `echo "apt-get $*" >> '${log}'`);
    workingSudo();
    const result = run(['chromium']);
    expect(result.status).toBe(1);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(
      'ensure-browsers: apt-get installed chromium but /usr/bin/chromium is still missing: set CHROME_PATH=… to the executable',
    );
  });
});
