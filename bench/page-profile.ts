/**
 * Where the extension's time goes in the page's renderer (issue 19 §4/§5): a traced
 * run of the browser bench's set-up page (`setup`), of its history load (`history`)
 * or of its live stream with the page's load (`stream`, as the bench's traced run:
 * then also each long task in which guard code ran, with its guard functions),
 * with the built extension's content scripts rebuilt unminified (readable function
 * names) into a copy of dist/chrome. Prints, for the samples whose stack holds an
 * extension script, the self time per function and the inclusive time per function,
 * and the totals by script. Same trace categories and page as browser-render.ts.
 *
 *   npm run build && npx tsx bench/page-profile.ts setup|history|stream [runs] [top]
 *
 * A tool to find causes, not a measurement of record (the trace is of one run; the
 * machine is shared): `npm run bench -- --browser-only` gives the figures.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { build } from 'vite';
import { CHROME_DIST, ROOT, launchChromium } from '../test/e2e/launch.ts';
import { PAGE_SITE_ROUTES_ALIAS, STANDALONE_CONTENT_SCRIPTS } from '../vite.config.ts';
import { SETUP_PATH, startServer } from './browser-render.ts';
import type { TraceEvent } from './long-task-attribution.ts';
import { longTaskReport } from './long-task-functions.ts';

interface Frame {
  functionName?: string;
  url?: string;
  lineNumber?: number;
  columnNumber?: number;
}
interface Node {
  id: number;
  parent?: number;
  callFrame: Frame;
}

/** The three content scripts, unminified, over a copy of dist/chrome. */
async function unminifiedCopy(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'csg-profile-'));
  cpSync(CHROME_DIST, dir, { recursive: true });
  for (const entry of STANDALONE_CONTENT_SCRIPTS) {
    const fileName = entry.replace(/\.ts$/, '.js');
    await build({
      configFile: false,
      logLevel: 'warn',
      root: ROOT,
      ...(entry.endsWith('main-world.ts') ? { resolve: { alias: PAGE_SITE_ROUTES_ALIAS } } : {}),
      build: {
        outDir: join(dir, fileName, '..'),
        emptyOutDir: false,
        target: 'es2022',
        minify: false,
        sourcemap: false,
        lib: {
          entry: join(ROOT, entry),
          formats: ['iife'],
          name: 'csg',
          fileName: () => fileName.split('/').pop()!,
        },
        rollupOptions: { output: { inlineDynamicImports: true } },
      },
    });
  }
  return dir;
}

function profiles(events: readonly TraceEvent[]) {
  const byId = new Map<string, { nodes: Map<number, Node>; samples: number[]; deltas: number[] }>();
  for (const e of events) {
    if (e.name === 'Profile' && e.ph === 'P') {
      byId.set(`${e.pid}:${e.id}`, { nodes: new Map(), samples: [], deltas: [] });
    }
  }
  for (const e of events) {
    if (e.name !== 'ProfileChunk') continue;
    const p = byId.get(`${e.pid}:${e.id}`);
    const data = e.args?.data as
      { cpuProfile?: { nodes?: Node[]; samples?: number[] }; timeDeltas?: number[] } | undefined;
    if (!p || !data) continue;
    for (const n of data.cpuProfile?.nodes ?? []) p.nodes.set(n.id, n);
    p.samples.push(...(data.cpuProfile?.samples ?? []));
    p.deltas.push(...(data.timeDeltas ?? []));
  }
  return [...byId.values()];
}

function report(events: readonly TraceEvent[], base: string, pageUrl: string, top: number) {
  const profile = profiles(events).find((p) =>
    [...p.nodes.values()].some((n) => (n.callFrame.url ?? '').startsWith(pageUrl)),
  );
  if (!profile) throw new Error('no profile of the page');
  const name = (n: Node) => {
    const url = n.callFrame.url ?? '';
    const file = url.startsWith(base) ? url.slice(base.length) : url ? 'page' : '';
    return `${n.callFrame.functionName || '(anon)'} ${file}:${(n.callFrame.lineNumber ?? 0) + 1}`;
  };
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  const byScript = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const weight = (profile.deltas[i + 1] ?? 0) / 1000;
    let node = profile.nodes.get(profile.samples[i] ?? -1);
    const stack: Node[] = [];
    while (node) {
      stack.push(node);
      node = node.parent === undefined ? undefined : profile.nodes.get(node.parent);
    }
    const ext = stack.find((n) => (n.callFrame.url ?? '').startsWith(base));
    if (!ext) continue;
    total += weight;
    const script = (ext.callFrame.url ?? '').slice(base.length);
    byScript.set(script, (byScript.get(script) ?? 0) + weight);
    const leaf = stack[0]!;
    self.set(name(leaf), (self.get(name(leaf)) ?? 0) + weight);
    for (const key of new Set(stack.map(name))) incl.set(key, (incl.get(key) ?? 0) + weight);
  }
  const list = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => `  ${v.toFixed(1).padStart(7)} ms  ${k}`)
      .join('\n');
  console.log(`extension total ${total.toFixed(1)} ms`);
  console.log(`by script (outermost extension frame):\n${list(byScript)}`);
  console.log(`self:\n${list(self)}`);
  console.log(`inclusive:\n${list(incl)}`);
}

const CATEGORIES = ['toplevel', 'disabled-by-default-v8.cpu_profiler'];

async function main() {
  const mode = process.argv[2] ?? 'setup';
  const runs = Number(process.argv[3] ?? 1);
  const top = Number(process.argv[4] ?? 40);
  const dir = await unminifiedCopy();
  const server = await startServer();
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const guarded = await launchChromium({ dist: dir });
  try {
    // A first page, so the background has built what it hands pages (as in the bench).
    const warm = await guarded.browser.newPage();
    await warm.goto(url, { waitUntil: 'load' });
    await new Promise((r) => setTimeout(r, 1500));
    await warm.close();
    for (let run = 0; run < runs; run++) {
      const page = await guarded.browser.newPage();
      if (mode === 'stream') {
        // As browser-render.ts `tracedRun`: the page's load and the answer, one trace.
        await page.tracing.start({ categories: CATEGORIES });
        await page.goto(url, { waitUntil: 'load' });
        await page.evaluate('window.runBench()');
      } else if (mode === 'history') {
        await page.goto(url, { waitUntil: 'load' });
        await new Promise((r) => setTimeout(r, 1000));
        await page.tracing.start({ categories: CATEGORIES });
        const result = await page.evaluate('window.runHistory()');
        console.log(JSON.stringify(result));
      } else {
        await page.tracing.start({ categories: CATEGORIES });
        await page.goto(`${url}${SETUP_PATH}`, { waitUntil: 'load' });
        await new Promise((r) => setTimeout(r, 1500));
      }
      const trace = await page.tracing.stop();
      await page.close();
      const text = Buffer.from(trace!).toString('utf8');
      writeFileSync(join(tmpdir(), `csg-${mode}-${run}.trace.json`), text);
      const parsed = JSON.parse(text) as TraceEvent[] | { traceEvents: TraceEvent[] };
      const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
      report(events, guarded.extensionBase, url, top);
      if (mode === 'stream') console.log(longTaskReport(events, guarded.extensionBase, url, 12));
    }
  } finally {
    await guarded.close();
    server.closeAllConnections();
    server.close();
    if (process.env.KEEP_PROFILE_BUILD) console.log(`unminified build kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

await main();
