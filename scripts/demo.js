#!/usr/bin/env node
// `npm run demo [-- --headless] [-- --no-build] [-- --port N]`
//
// Builds the extension, starts the local mock chat on 127.0.0.1 and opens it in Chromium
// with the extension loaded.
// - Without a display (no DISPLAY) or with --headless: tours the demo headless (asks the
//   "secret", "image" and "tags" prompts, opens the popup), saves screenshots to
//   demo-output/*.png, prints their paths and exits 0.
// - With a display: opens a visible window and keeps running until Ctrl-C.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const headless = args.includes('--headless') || !process.env.DISPLAY;
const portIndex = args.indexOf('--port');
const port = portIndex >= 0 ? Number(args[portIndex + 1]) : 0;

function fail(message) {
  console.error(`demo: ${message}`);
  process.exit(1);
}

if (!args.includes('--no-build')) {
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) fail('the build failed');
}
if (!existsSync(join(root, 'dist', 'chrome', 'manifest.json'))) {
  fail('dist/chrome/manifest.json is missing: run `npm run build`');
}

const { startMockChat } = await tsImport('../test/mock-chat/server.ts', import.meta.url);
const launch = await tsImport('../test/e2e/launch.ts', import.meta.url);

const chat = await startMockChat({ port, chunkDelayMs: headless ? 8 : 40 });
let target;
try {
  target = await launch.launchChromium({ headless, width: 1000, height: 720 });
} catch (error) {
  await chat.close();
  fail(
    `could not start Chromium (${launch.CHROME_PATH}; set CHROME_PATH, or run "npm run demo -- --headless"): ${error.message}`,
  );
}

const page = (await target.browser.pages())[0] ?? (await target.browser.newPage());
await page.goto(`${chat.url}/`, { waitUntil: 'load' });

if (headless) {
  const outDir = join(root, 'demo-output');
  mkdirSync(outDir, { recursive: true });
  const shots = [];
  const shoot = async (tab, name) => {
    const file = join(outDir, name);
    await tab.screenshot({ path: file });
    shots.push(file);
  };
  try {
    for (const [i, prompt] of ['secret', 'image', 'tags'].entries()) {
      await launch.askMockChat(page, `Please show the ${prompt}`);
      await shoot(page, `0${i + 1}-chat-${prompt}.png`);
    }
    const popup = await launch.openExtensionPage(target, launch.POPUP_PATH, '#csg-popup h1');
    const tabId = await launch.tabIdOf(popup, chat.url);
    await popup.setViewport({ width: 340, height: 220 });
    await launch.openExtensionPage(
      target,
      `${launch.POPUP_PATH}?tab=${tabId}`,
      '[data-testid="status"]',
      popup,
    );
    await shoot(popup, '04-popup.png');
  } finally {
    await target.close();
    await chat.close();
  }
  console.log('demo screenshots:');
  for (const file of shots) console.log(`  ${relative(process.cwd(), file)}`);
  process.exit(0);
}

console.log(`\nChat Stream Guard demo: ${chat.url}/ is open in Chromium with the extension.`);
console.log('Type "secret", "image" or "tags" in the chat. Press Ctrl-C to stop.\n');
const stop = async () => {
  await target.close().catch(() => undefined);
  await chat.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
target.browser.on('disconnected', () => void chat.close().then(() => process.exit(0)));
