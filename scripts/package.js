#!/usr/bin/env node
// `npm run package`: zips the built extensions into store-ready archives:
//   dist/chat-stream-guard-chrome.zip   (Chrome Web Store)
//   dist/chat-stream-guard-firefox.zip  (addons.mozilla.org)
// `web-ext build` packs each directory (manifest.json at the archive root, no dotfiles).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const webExt = join(root, 'node_modules', '.bin', 'web-ext');

for (const browser of ['chrome', 'firefox']) {
  const sourceDir = join(root, 'dist', browser);
  if (!existsSync(join(sourceDir, 'manifest.json'))) {
    console.error(`package: ${relative(root, sourceDir)} is not built: run \`npm run build\``);
    process.exit(1);
  }
  const outDir = mkdtempSync(join(tmpdir(), `csg-package-${browser}-`));
  const result = spawnSync(
    webExt,
    ['build', '--source-dir', sourceDir, '--artifacts-dir', outDir, '--overwrite-dest'],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const [zip] = existsSync(outDir) ? readdirSync(outDir).filter((f) => f.endsWith('.zip')) : [];
  if (result.status !== 0 || !zip) {
    console.error(`package: web-ext build failed for ${browser}`);
    process.exit(1);
  }
  const dest = join(root, 'dist', `chat-stream-guard-${browser}.zip`);
  copyFileSync(join(outDir, zip), dest);
  rmSync(outDir, { recursive: true, force: true });
  console.log(relative(process.cwd(), dest));
}
