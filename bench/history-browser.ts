/**
 * `npm run build && npx tsx bench/history-browser.ts [other tree] [runs]`: the browser
 * bench's history load (history-load.ts, issue 19 §5: a 5 MB ChatGPT-web conversation
 * GET and rendered, a second after the page loaded) without the extension, with this
 * tree's `dist/chrome`, and with another tree's (built there first), each in a Chromium
 * of its own with the flags and fresh profile the bench uses; the runs interleaved
 * (without, this, other, …) so a change in the machine's load touches every side alike.
 * Prints each side's median, its runs and its ratio over the median without: an A/B of
 * two builds in one session, on the figure `npm run bench -- --browser-only` reports,
 * without the bench's other runs. Default 7 runs after one warm-up each.
 *
 * Also the renderer main thread's CPU time over the load (the DevTools protocol's
 * `Performance.getMetrics` ThreadTime, read before and after `runHistory`): the page's
 * and the content scripts' work on that thread, which the machine's load inflates far
 * less than the wall-clock time (load 5-10 here, docs/page-setup.md).
 */
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Browser } from 'puppeteer';
import { CHROME_DIST, launchChromium, launchPlainChromium } from '../test/e2e/launch.ts';
import { startServer } from './browser-render.ts';
import type { HistoryRun } from './history-load.ts';
import { median } from './median.ts';

const other = process.argv[2];
const runs = Number(process.argv[3] ?? '7');
/** As browser-render.ts: the page's set-up has settled before the GET. */
const SETTLE_MS = 1000;

interface Side {
  label: string;
  browser: Browser;
  close(): Promise<void>;
  times: number[];
  cpu: number[];
}

/** Chromium as the bench runs it (test/e2e/launch.ts), with `dist` installed when given. */
async function launch(label: string, dist: string | null): Promise<Side> {
  const { browser, close } =
    dist === null ? await launchPlainChromium() : await launchChromium({ dist });
  return { label, browser, close, times: [], cpu: [] };
}

/**
 * One history load and render (browser-render.ts `historyRun`), and the main thread's
 * CPU time over it (ms).
 */
async function historyRun(browser: Browser, url: string): Promise<HistoryRun & { cpu: number }> {
  const page = await browser.newPage();
  await page.goto(url, { waitUntil: 'load' });
  await new Promise((done) => setTimeout(done, SETTLE_MS));
  const session = await page.createCDPSession();
  await session.send('Performance.enable');
  const threadTime = async () => {
    const { metrics } = await session.send('Performance.getMetrics');
    return metrics.find((m) => m.name === 'ThreadTime')?.value ?? NaN;
  };
  const before = await threadTime();
  const run = (await page.evaluate('window.runHistory()')) as HistoryRun;
  const cpu = ((await threadTime()) - before) * 1000;
  await page.close();
  return { ...run, cpu };
}

const dists: [string, string | null][] = [
  ['without', null],
  ['this tree', CHROME_DIST],
];
if (other !== undefined) dists.push([`other (${other})`, join(resolve(other), 'dist', 'chrome')]);
for (const [, dist] of dists) {
  if (dist !== null && !existsSync(join(dist, 'manifest.json'))) {
    throw new Error(`${dist} is missing: run \`npm run build\` there first`);
  }
}

const server = await startServer();
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
const sides: Side[] = [];
try {
  for (const [label, dist] of dists) sides.push(await launch(label, dist));
  for (const side of sides) await historyRun(side.browser, url); // warm-up
  for (let run = 0; run < runs; run++) {
    for (const side of sides) {
      const { total_ms, cpu } = await historyRun(side.browser, url);
      side.times.push(total_ms);
      side.cpu.push(cpu);
    }
  }
} finally {
  for (const side of sides) await side.close();
  server.close();
}
const base = median(sides[0]?.times ?? []);
const baseCpu = median(sides[0]?.cpu ?? []);
for (const side of sides) {
  const [m, cpu] = [median(side.times), median(side.cpu)];
  console.log(
    `${side.label}: median ${m.toFixed(1)} ms, ratio ${(m / base).toFixed(3)} ` +
      `(${side.times.map((t) => t.toFixed(0)).join(' ')}); main-thread CPU median ` +
      `${cpu.toFixed(1)} ms, ratio ${(cpu / baseCpu).toFixed(3)} (${side.cpu.map((t) => t.toFixed(0)).join(' ')})`,
  );
}
