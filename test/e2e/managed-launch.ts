/**
 * Issue 21 §3: the built extension in real browsers with an organisation's policy
 * applied the way administrators apply it, without touching any other test.
 *
 * Chromium reads policy only from machine-wide files (Linux:
 * /etc/chromium/policies/managed/*.json). So the policy names a test-only
 * extension id: a copy of dist/chrome whose manifest carries a freshly generated
 * `key` (the id is derived from it), written to a file of its own that is removed
 * again. Any other Chromium running meanwhile, tests included, loads dist/chrome
 * under its own path-derived id, which no policy names.
 *
 * Firefox reads a policies.json per profile through `browser.policies.alternatePath`,
 * which it honours under automation (`Cu.isInAutomation`: the
 * `security.turn_off_all_security_so_that_viruses_can_take_over_this_computer` pref
 * plus MOZ_DISABLE_NONLOCAL_CONNECTIONS; the tests only talk to loopback). Nothing
 * machine-wide is written for Firefox.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer from 'puppeteer';
import {
  CHROME_DIST,
  CHROME_PATH,
  FIREFOX_DIST,
  FIREFOX_PATH,
  FIREFOX_UUID,
  GECKO_ID,
  waitForScriptRegistration,
  type ExtensionBrowser,
} from './launch.ts';

/**
 * Where the browser at CHROME_PATH reads mandatory policy files on Linux: Google
 * Chrome's own directory when CHROME_PATH points at it, Debian's Chromium otherwise.
 */
export const CHROMIUM_POLICY_DIR = /google-chrome|\/opt\/google\//.test(CHROME_PATH)
  ? '/etc/opt/chrome/policies/managed'
  : '/etc/chromium/policies/managed';

/** A Chromium extension id from the DER public key (first 128 bits of SHA-256, as a–p). */
export function extensionIdOf(publicKeyDer: Buffer): string {
  const hex = createHash('sha256').update(publicKeyDer).digest().subarray(0, 16).toString('hex');
  return [...hex].map((digit) => String.fromCharCode(97 + Number.parseInt(digit, 16))).join('');
}

/** A running browser with the extension under a managed policy, and how to change it. */
export interface ManagedBrowser extends ExtensionBrowser {
  /** Rewrites the policy (Chromium re-reads its policy files while running). */
  setPolicy(policy: unknown): void;
}

function makeDirs(dir: string): string[] {
  const created: string[] = [];
  let current = dir;
  while (!existsSync(current)) {
    created.unshift(current);
    current = join(current, '..');
  }
  mkdirSync(dir, { recursive: true });
  return created;
}

export async function launchChromiumWithPolicy(policy: unknown): Promise<ManagedBrowser> {
  if (process.getuid?.() !== 0) {
    throw new Error(
      `Chromium reads policy only from ${CHROMIUM_POLICY_DIR}; writing it needs root (run the e2e tests as root, as CI does)`,
    );
  }
  const work = mkdtempSync(join(tmpdir(), 'csg-managed-chromium-'));
  const extension = join(work, 'extension');
  cpSync(CHROME_DIST, extension, { recursive: true });
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const der = publicKey.export({ type: 'spki', format: 'der' });
  const id = extensionIdOf(der);
  const manifestPath = join(extension, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
  writeFileSync(manifestPath, JSON.stringify({ ...manifest, key: der.toString('base64') }));

  const createdDirs = makeDirs(CHROMIUM_POLICY_DIR);
  const policyFile = join(CHROMIUM_POLICY_DIR, `csg-e2e-${id}.json`);
  const setPolicy = (value: unknown) =>
    writeFileSync(policyFile, JSON.stringify({ '3rdparty': { extensions: { [id]: value } } }));
  // Idempotent: a failed launch closes the browser (which cleans up) and then cleans up again.
  let cleaned = false;
  const cleanUp = () => {
    if (cleaned) return;
    cleaned = true;
    rmSync(policyFile, { force: true });
    for (const dir of [...createdDirs].reverse()) if (existsSync(dir)) rmdirSync(dir);
    rmSync(work, { recursive: true, force: true });
  };
  setPolicy(policy);

  try {
    const browser = await puppeteer.launch({
      executablePath: CHROME_PATH,
      headless: true,
      pipe: true,
      enableExtensions: true,
      userDataDir: join(work, 'profile'),
      defaultViewport: { width: 1100, height: 800 },
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const target: ManagedBrowser = {
      name: 'chromium',
      browser,
      extensionBase: `chrome-extension://${id}/`,
      setPolicy,
      close: async () => {
        await browser.close().catch(() => undefined);
        cleanUp();
      },
    };
    try {
      const installed = await browser.installExtension(extension);
      if (installed !== id) throw new Error(`installed as ${installed}, expected ${id}`);
      await waitForScriptRegistration(target);
      return target;
    } catch (error) {
      await target.close();
      throw error;
    }
  } catch (error) {
    cleanUp();
    throw error;
  }
}

export async function launchFirefoxWithPolicy(policy: unknown): Promise<ManagedBrowser> {
  const work = mkdtempSync(join(tmpdir(), 'csg-managed-firefox-'));
  const policiesFile = join(work, 'policies.json');
  const setPolicy = (value: unknown) =>
    writeFileSync(
      policiesFile,
      JSON.stringify({ policies: { '3rdparty': { Extensions: { [GECKO_ID]: value } } } }),
    );
  setPolicy(policy);
  const close = async (browser?: { close(): Promise<void> }) => {
    await browser?.close().catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  };
  const browser = await puppeteer
    .launch({
      browser: 'firefox',
      executablePath: FIREFOX_PATH,
      headless: true,
      defaultViewport: { width: 1100, height: 800 },
      args: ['--remote-allow-system-access'],
      env: { ...process.env, MOZ_DISABLE_NONLOCAL_CONNECTIONS: '1' },
      extraPrefsFirefox: {
        'extensions.webextensions.uuids': JSON.stringify({ [GECKO_ID]: FIREFOX_UUID }),
        'browser.policies.alternatePath': policiesFile,
        'security.turn_off_all_security_so_that_viruses_can_take_over_this_computer': true,
      },
    })
    .catch(async (error: unknown) => {
      await close();
      throw error;
    });
  const target: ManagedBrowser = {
    name: 'firefox',
    browser,
    extensionBase: `moz-extension://${FIREFOX_UUID}/`,
    setPolicy,
    close: () => close(browser),
  };
  try {
    await browser.installExtension(FIREFOX_DIST);
    await waitForScriptRegistration(target);
    return target;
  } catch (error) {
    await target.close();
    throw error;
  }
}
