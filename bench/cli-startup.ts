/**
 * The `cli` section of `npm run bench` (issue 19 §2, §5): how long
 * `echo hi | node bin/csg.js scan` takes as a whole process.
 *
 * The bundle is built first with `npm run build:cli` (scripts/build-cli.js),
 * so the launcher runs dist/cli/csg.mjs. In a checkout a source edited
 * meanwhile sends the launcher back to the sources: a run during which the
 * bundle was not current is dropped and the bundle rebuilt (`rebuilds`, at most
 * MAX_REBUILDS; `bundle_current` false when runs are missing for that).
 * `startup_ms_median` is the median wall time of `CLI_RUNS` runs after one
 * unmeasured run; `from_source_ms_median` is the same
 * with `CSG_FROM_SOURCE=1` (tsx compiles the TypeScript sources, the launcher's
 * behaviour before the build existed) over `SOURCE_RUNS` runs: the baseline.
 * Each kept run follows a `node -e 0` (interleaved): `node_ms_median` and
 * `over_node_ms_median` (what `csg` adds to a bare Node process, the median of
 * the pairs' differences) are taken under the same load, which
 * `load_average` records. Every run must print `hi` and exit 0, else the
 * section reports `error`.
 *
 * Standalone, `npx tsx bench/cli-startup.ts` measures this section alone and
 * prints its report as JSON (the log line on stderr).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from './median.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CLI_RUNS = 11;
export const SOURCE_RUNS = 3;
const MAX_REBUILDS = 3;

export interface CliReport {
  startup_ms_median: number;
  startup_ms_runs: number[];
  from_source_ms_median: number;
  /** `node -e 0` the same number of times: what any Node process costs here, now. */
  node_ms_median: number;
  /** Every kept run used the bundle (false: a source kept changing; fewer runs kept). */
  bundle_current: boolean;
  runs: number;
  /** Rebuilds because a source changed during the runs. */
  rebuilds: number;
  /**
   * Median over the kept runs of (that run − the `node -e 0` run just before it):
   * what `csg` adds to a bare Node process. Each pair sees about the same load, so
   * this moves less with the machine's load than either median alone.
   */
  over_node_ms_median: number;
  /** The 1-minute load average as the runs ended (os.loadavg; `uptime`'s first figure). */
  load_average: number;
}

/** One `echo hi | node bin/csg.js scan`, in milliseconds. */
function timedScan(env: NodeJS.ProcessEnv): number {
  const t = performance.now();
  const run = spawnSync(process.execPath, [join(ROOT, 'bin', 'csg.js'), 'scan'], {
    input: 'hi\n',
    env,
    encoding: 'utf8',
  });
  const ms = performance.now() - t;
  if (run.status !== 0 || run.stdout !== 'hi\n') {
    throw new Error(
      `csg scan exited ${String(run.status)} with ${JSON.stringify(run.stdout)}: ${run.stderr.trim()}`,
    );
  }
  return ms;
}

/** One `node -e 0`, in milliseconds: what any Node process costs here, now. */
function timedNode(): number {
  const t = performance.now();
  spawnSync(process.execPath, ['-e', '0'], { input: 'hi\n' });
  return performance.now() - t;
}

/** The launcher's own test (bin/csg.js): no input of the build changed since it began. */
function bundleIsCurrent(): boolean {
  try {
    const record = JSON.parse(readFileSync(join(ROOT, 'dist', 'cli', 'inputs.json'), 'utf8')) as {
      builtAt: number;
      inputs: string[];
    };
    return record.inputs.every((path) => statSync(join(ROOT, path)).mtimeMs < record.builtAt);
  } catch {
    return false;
  }
}

function buildCli(): void {
  const build = spawnSync('npm', ['run', '--silent', 'build:cli'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build:cli failed: ${build.stderr.trim()}`);
}

export function measureCli(log: (line: string) => void): CliReport {
  buildCli();
  const env = { ...process.env };
  delete env.CSG_FROM_SOURCE;
  timedScan(env);
  // In a checkout someone may edit a source meanwhile, and the launcher then runs the
  // sources: such a run is not kept, the bundle is rebuilt (at most MAX_REBUILDS times)
  // and the run repeated.
  // Each kept run is paired with a `node -e 0` just before it (interleaved), so both
  // medians, and their differences, are taken under the same load.
  const runs: number[] = [];
  const bare: number[] = [];
  const over: number[] = [];
  let rebuilds = 0;
  while (runs.length < CLI_RUNS) {
    if (!bundleIsCurrent()) {
      if (rebuilds === MAX_REBUILDS) break;
      rebuilds++;
      buildCli();
      continue;
    }
    const nodeMs = timedNode();
    const ms = timedScan(env);
    if (!bundleIsCurrent()) continue;
    runs.push(ms);
    bare.push(nodeMs);
    over.push(ms - nodeMs);
  }
  if (runs.length === 0) throw new Error('a source kept changing: no run used the bundle');
  const current = runs.length === CLI_RUNS;
  const source: number[] = [];
  for (let i = 0; i < SOURCE_RUNS; i++) source.push(timedScan({ ...env, CSG_FROM_SOURCE: '1' }));
  const report: CliReport = {
    startup_ms_median: Math.round(median(runs) * 10) / 10,
    startup_ms_runs: runs.map((ms) => Math.round(ms)),
    from_source_ms_median: Math.round(median(source) * 10) / 10,
    node_ms_median: Math.round(median(bare) * 10) / 10,
    bundle_current: current,
    runs: runs.length,
    rebuilds,
    over_node_ms_median: Math.round(median(over) * 10) / 10,
    load_average: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
  log(
    `cli: echo hi | node bin/csg.js scan, median of ${runs.length}: ${report.startup_ms_median} ms` +
      ` (from source: ${report.from_source_ms_median} ms; node -e 0: ${report.node_ms_median} ms; over node: ${report.over_node_ms_median} ms; load ${report.load_average}; bundle current: ${current}; rebuilds: ${rebuilds})`,
  );
  return report;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(
    `${JSON.stringify(
      measureCli((line) => process.stderr.write(`${line}\n`)),
      null,
      1,
    )}\n`,
  );
}
