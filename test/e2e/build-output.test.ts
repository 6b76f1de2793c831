/** The build contract (DESIGN.md §5): unpacked extensions in dist/chrome and dist/firefox. */

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHROME_DIST, FIREFOX_DIST } from './launch.ts';

interface BuiltManifest {
  manifest_version: number;
  background?: { service_worker?: string; scripts?: string[] };
  content_scripts?: { js: string[]; world?: string; run_at?: string; all_frames?: boolean }[];
  action?: { default_popup?: string };
  options_ui?: { page?: string };
  permissions?: string[];
  browser_specific_settings?: { gecko?: { id?: string } };
}

function readManifest(dir: string): BuiltManifest {
  const file = join(dir, 'manifest.json');
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  return JSON.parse(readFileSync(file, 'utf8')) as BuiltManifest;
}

describe.each([
  { browser: 'chrome', dir: CHROME_DIST },
  { browser: 'firefox', dir: FIREFOX_DIST },
])('build output for $browser', ({ browser, dir }) => {
  const manifest = readManifest(dir);

  it('is a Manifest V3 extension with least-privilege permissions', () => {
    expect(manifest.manifest_version).toBe(3);
    expect(manifest.permissions?.sort()).toEqual(['scripting', 'storage']);
    if (browser === 'firefox') {
      expect(manifest.browser_specific_settings?.gecko?.id).toBe('chat-stream-guard@example.org');
    } else {
      expect(manifest.browser_specific_settings).toBeUndefined();
    }
  });

  it('keeps the background key this browser wants', () => {
    const entry =
      browser === 'chrome'
        ? manifest.background?.service_worker
        : manifest.background?.scripts?.[0];
    expect(entry).toBeTruthy();
    expect(existsSync(join(dir, entry!))).toBe(true);
    if (browser === 'chrome') expect(manifest.background?.scripts).toBeUndefined();
    else expect(manifest.background?.service_worker).toBeUndefined();
  });

  it('builds the MAIN-world script as one standalone file that runs at document_start', () => {
    const main = manifest.content_scripts?.find((script) => script.world === 'MAIN');
    expect(main?.run_at).toBe('document_start');
    expect(main?.all_frames).toBe(true);
    expect(main?.js).toHaveLength(1);
    const code = readFileSync(join(dir, main!.js[0]!), 'utf8');
    // No crxjs loader: no dynamic import, no module syntax, no extension API.
    expect(code).not.toMatch(/\bimport\s*\(/);
    expect(code).not.toMatch(/^\s*(import|export)\s/m);
    expect(code).not.toMatch(/\b(chrome|browser)\.(runtime|storage|tabs)\b/);
    expect(code).toMatch(/^\(function\(\) \{/);
  });

  it('builds the bridge as a standalone ISOLATED-world file', () => {
    const bridge = manifest.content_scripts?.find((script) => script.world !== 'MAIN');
    expect(bridge?.run_at).toBe('document_start');
    const code = readFileSync(join(dir, bridge!.js[0]!), 'utf8');
    expect(code).not.toMatch(/\bimport\s*\(/);
    expect(code).not.toMatch(/^\s*(import|export)\s/m);
  });

  it('contains the popup, the options page and the icons', () => {
    for (const file of [
      manifest.action?.default_popup,
      manifest.options_ui?.page,
      'assets/icon-16.png',
      'assets/icon-128.png',
    ]) {
      expect(file).toBeTruthy();
      expect(existsSync(join(dir, file!))).toBe(true);
    }
  });
});
