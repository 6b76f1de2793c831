#!/usr/bin/env node
// `npm run demo [-- --headless] [-- --no-build] [-- --port N]`
//
// Finds or installs Chromium (scripts/ensure-browsers.js), builds the extension, starts the
// local mock chat on 127.0.0.1 and opens it in Chromium with the extension loaded.
// - Without a display (no DISPLAY) or with --headless: tours the demo headless (asks the
//   Markdown chat's scripted attacks (secret, exfil, invisible, injection), reloads a
//   poisoned saved conversation, uses the pages built on the `openai` and
//   `@anthropic-ai/sdk` browser clients, opens the popup), saves screenshots to
//   demo-output/*.png, prints their paths and the attacker endpoint's hit count, and
//   exits 0 (1 when the attacker was hit).
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

// Chromium first: on a machine without it, install it or stop in the first seconds with the
// one line to run (scripts/ensure-browsers.js), before the build.
const ensureBrowsers = join(root, 'scripts', 'ensure-browsers.js');
const browsers = spawnSync(process.execPath, [ensureBrowsers, 'chromium'], { stdio: 'inherit' });
if (browsers.status !== 0) process.exit(browsers.status ?? 1);

if (!args.includes('--no-build')) {
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) fail('the build failed');
}
if (!existsSync(join(root, 'dist', 'chrome', 'manifest.json'))) {
  fail('dist/chrome/manifest.json is missing: run `npm run build`');
}

const { startMockChat } = await tsImport('../test/mock-chat/server.ts', import.meta.url);
const { SAVED_CHAT_ID } = await tsImport('../test/mock-chat/demo-routes.ts', import.meta.url);
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
await page.goto(`${chat.url}/chat`, { waitUntil: 'load' });

/** Sends a prompt on a demo page and waits until its answer has finished streaming. */
async function ask(tab, prompt) {
  const before = await tab.$$eval('.msg[data-role="assistant"]', (all) => all.length);
  await tab.type('#prompt', prompt);
  await tab.click('#composer button[type="submit"]');
  await tab.waitForFunction(
    // Runs in the page, where `document` exists.
    // eslint-disable-next-line no-undef
    (n) => document.querySelectorAll('.msg[data-role="assistant"]')[n]?.dataset.done !== 'false',
    { timeout: 20_000 },
    before,
  );
}

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
    // The Markdown chat: every scripted attack, one turn each.
    for (const prompt of ['secret', 'exfil', 'invisible', 'injection']) {
      await ask(page, `Please show the ${prompt} example`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    await shoot(page, '01-chat-attacks.png');
    // A poisoned conversation reloaded from history.
    await page.goto(`${chat.url}/chat?chat=${SAVED_CHAT_ID}`, { waitUntil: 'load' });
    await page.waitForSelector('#transcript[data-loaded="true"]', { timeout: 10_000 });
    await shoot(page, '02-history-reload.png');
    // Pages built on the official SDK browser clients.
    for (const [i, sdk] of ['openai', 'anthropic'].entries()) {
      await page.goto(`${chat.url}/sdk/${sdk}`, { waitUntil: 'load' });
      await page.waitForSelector(`html[data-sdk="${sdk}"]`, { timeout: 30_000 });
      await ask(page, 'the secret please');
      await shoot(page, `0${i + 3}-sdk-${sdk}.png`);
    }
    await page.goto(`${chat.url}/chat`, { waitUntil: 'load' });
    await ask(page, 'secret');
    const popup = await launch.openExtensionPage(target, launch.POPUP_PATH, '#csg-popup');
    const tabId = await launch.tabIdOf(popup, `${chat.url}/chat`);
    await popup.setViewport({ width: 380, height: 600 });
    await launch.openExtensionPage(
      target,
      `${launch.POPUP_PATH}?tab=${tabId}`,
      '#csg-popup[data-state="ready"]',
      popup,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    await shoot(popup, '05-popup.png');
  } finally {
    await target.close();
    await chat.close();
  }
  console.log('demo screenshots:');
  for (const file of shots) console.log(`  ${relative(process.cwd(), file)}`);
  console.log(`attacker endpoint hits: ${chat.attacker.hits()} (0 means no exfiltration)`);
  process.exit(chat.attacker.hits() === 0 ? 0 : 1);
}

console.log(`\nChat Stream Guard demo: ${chat.url}/chat is open in Chromium with the extension.`);
console.log(
  'Type "secret", "exfil", "invisible" or "injection" in the chat; the page header links',
);
console.log(
  `the saved (poisoned) conversation and the SDK pages. Attacker endpoint: ${chat.attacker.url}`,
);
console.log('Press Ctrl-C to stop.\n');
const stop = async () => {
  await target.close().catch(() => undefined);
  await chat.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
target.browser.on('disconnected', () => void chat.close().then(() => process.exit(0)));
