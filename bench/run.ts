/**
 * `npm run bench [-- --json]`: the streaming engine against the two regex
 * baselines on the same workload and rules (issue 2, §5). Progress goes to
 * stderr; stdout gets a readable table (unless --json) and, on its last line,
 * one JSON object. A benchmark, never a timed test.
 *
 * - engine.mbps: UTF-8 input MB (1e6 bytes) per second over the 4-unit chunks,
 *   push + end, best of two uninstrumented runs after a 1 MB warm-up.
 * - engine.bulk_mbps: the same text in 4096-unit chunks, best of three.
 * - chunk_us_p50/p99 and held: a separate run timing every push with
 *   process.hrtime.bigint and reading counters.held after each push (code units).
 * - clairvoyant_mean_chars: see clairvoyant-hold.ts, over the same push points.
 * - tail_window / naive_rescan: the baselines on a prefix (their cost per byte
 *   grows with the tail / the text), sized by time (`timeBoundedBaseline`, at
 *   most BASELINE_SECONDS each); the prefix sizes run are in `workload`.
 * - heap_growth_bytes: heapUsed after full GCs at 10 MB minus at 1 MB of one
 *   stream (negative values are reported as they are).
 * - wire: the OpenAI Chat and ChatGPT web adapters on a slice of the same text,
 *   one wire event per 4-unit chunk, and their cost over the engine alone
 *   (wire-throughput.ts); the slice size is `workload.wire_slice_bytes`;
 *   and `wire.large_frame_ms`, one 1 MB frame in 1 KB pieces through each
 *   framer (large-event.ts).
 * - cli: `echo hi | node bin/csg.js scan` as a whole process, median of N runs
 *   after `npm run build:cli`, and the same from source (cli-startup.ts).
 * - scan_file: `csg scan` of a 4 MB workload file as a whole process beside
 *   secretlint's CLI with its recommended preset, medians (scan-versus-secretlint.ts).
 * - `--profile` instead: per-rule thread starts, DFA steps and validator time on
 *   the first 2 MB of the workload, costliest first (rule-profile.ts), and nothing else.
 * - browser: render timing of a 100k-token stream in Chromium with and without the
 *   built extension, the request sent a second after the page loaded and (`at_load`)
 *   as it loads, long tasks, MAIN-world script size (browser-render.ts);
 *   `--no-browser` skips it, and a missing build or browser is reported as `error`;
 *   `--browser-only` runs only it (its JSON is then `{ browser }`), and reports the
 *   extension's set-up time on a page that only loads (`setup_ms`, issue 19 §4) and a
 *   5 MB ChatGPT-web history load rendered with and without (`history`, history-load.ts).
 */
import { fileURLToPath } from 'node:url';
import { StreamGuard } from '../src/core/guard/stream-guard.ts';
import { scanText } from '../src/core/guard/scan-text.ts';
import { compileGuardPack, getCorePack } from '../src/core/rules/builtin-packs.ts';

const corePack = getCorePack();
import { NaiveRescanGuard } from './baselines/naive-rescan-guard.ts';
import { regexRules } from './baselines/regex-redaction.ts';
import { TailWindowGuard } from './baselines/tail-window-guard.ts';
import { changingMatchSpans, clairvoyantMeanHeld } from './clairvoyant-hold.ts';
import { garbageCollector, settledHeapUsed } from './garbage-collector.ts';
import { unitOffsetAtBytes, utf8Length } from './utf8-length.ts';
import { type BrowserReport, measureBrowser } from './browser-render.ts';
import { measureLargeFrames } from './large-event.ts';
import { measureWire } from './wire-throughput.ts';
import { profileRules, profileTable } from './rule-profile.ts';
import { type CliReport, measureCli } from './cli-startup.ts';
import { type ScanFileReport, measureScanFile } from './scan-versus-secretlint.ts';
import { type Workload, buildWorkload } from './workload.ts';

/**
 * The slow baselines run on a prefix sized by time, not bytes (issue 19 §5: with
 * all 268 rules the tail window ran at 0.0003 MB/s, so a fixed 200 KB prefix took
 * most of an hour). Each starts at `BASELINE_MIN_BYTES` and doubles while the
 * next run, predicted from how the last doubling grew, fits in what is left of
 * `BASELINE_SECONDS`; the caps are the former fixed sizes, so a fast machine
 * measures what it always did. The MB/s of the largest prefix run is reported,
 * with its size.
 */
const TAIL_WINDOW_BYTES = 200_000;
const NAIVE_RESCAN_BYTES = 50_000;
const BASELINE_MIN_BYTES = 1_000;
const BASELINE_SECONDS = 20;
const WARM_UP_BYTES = 1_000_000;
const HEAP_MARK_BYTES = 1_000_000;

const jsonOnly = process.argv.includes('--json');
const log = (line: string): void => void process.stderr.write(`bench: ${line}\n`);

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

function seconds(from: bigint): number {
  return Number(process.hrtime.bigint() - from) / 1e9;
}

interface Prefix {
  chunks: string[];
  bytes: number;
}

/** The first 4-unit chunks covering at least `bytes` UTF-8 bytes of the workload. */
function prefixOf(workload: Workload, bytes: number): Prefix {
  const units = unitOffsetAtBytes(workload.text, bytes);
  const count = Math.ceil(units / workload.chunkChars);
  return {
    chunks: workload.chunks.slice(0, count),
    bytes: utf8Length(
      workload.text,
      0,
      Math.min(workload.text.length, count * workload.chunkChars),
    ),
  };
}

/** Wall time of one guarded stream over `chunks` (push each, then end). */
function engineSeconds(chunks: readonly string[]): number {
  const guard = new StreamGuard(corePack);
  const t = process.hrtime.bigint();
  for (const chunk of chunks) guard.push(chunk);
  guard.end();
  return seconds(t);
}

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))] ?? 0;
}

interface LatencyRun {
  p50us: number;
  p99us: number;
  heldMean: number;
  heldMax: number;
  output: string;
  pushPoints: Uint32Array;
}

/** Every push timed on its own; the hold read after each push (outside the timing). */
function latencyRun(workload: Workload): LatencyRun {
  const { chunks } = workload;
  const guard = new StreamGuard(corePack);
  const nanos = new Float64Array(chunks.length);
  const pushPoints = new Uint32Array(chunks.length);
  const emits: string[] = [];
  let pushed = 0;
  let heldSum = 0;
  let heldMax = 0;
  for (let i = 0; i < chunks.length; i++) {
    const chunk = chunks[i] as string;
    const t = process.hrtime.bigint();
    const result = guard.push(chunk);
    nanos[i] = Number(process.hrtime.bigint() - t);
    pushed += chunk.length;
    pushPoints[i] = pushed;
    const held = guard.counters.held;
    heldSum += held;
    if (held > heldMax) heldMax = held;
    if (result.emit.length > 0) emits.push(result.emit);
  }
  emits.push(guard.end().emit);
  nanos.sort();
  return {
    p50us: percentile(nanos, 0.5) / 1000,
    p99us: percentile(nanos, 0.99) / 1000,
    heldMean: chunks.length === 0 ? 0 : heldSum / chunks.length,
    heldMax,
    output: emits.join(''),
    pushPoints,
  };
}

interface BaselineRun {
  mbps: number;
  bytes: number;
  /** Prefix sizes run, smallest first (the last one is reported). */
  tried: number;
  seconds: number;
}

/** A baseline's MB/s on the largest prefix (up to `capBytes`) that `BASELINE_SECONDS` allows. */
function timeBoundedBaseline(
  workload: Workload,
  capBytes: number,
  makeGuard: () => { push(c: string): string; end(): string },
): BaselineRun {
  let bytes = Math.min(BASELINE_MIN_BYTES, capBytes);
  let used = 0;
  let previous = 0;
  let tried = 0;
  for (;;) {
    const prefix = prefixOf(workload, bytes);
    const guard = makeGuard();
    const t = process.hrtime.bigint();
    for (const chunk of prefix.chunks) guard.push(chunk);
    guard.end();
    const took = seconds(t);
    used += took;
    tried++;
    const run = { mbps: prefix.bytes / 1e6 / took, bytes: prefix.bytes, tried, seconds: used };
    if (bytes >= capBytes) return run;
    // Doubling the prefix multiplies the time by at least 2 (more for the naive rescan).
    const growth = previous > 0 ? Math.max(2, took / previous) : 4;
    if (used + took * growth > BASELINE_SECONDS) return run;
    previous = took;
    bytes = Math.min(capBytes, bytes * 2);
  }
}

function heapGrowth(workload: Workload, gc: () => void): { atMark: number; atEnd: number } {
  const mark = Math.ceil(unitOffsetAtBytes(workload.text, HEAP_MARK_BYTES) / workload.chunkChars);
  const guard = new StreamGuard(corePack);
  let atMark = 0;
  for (let i = 0; i < workload.chunks.length; i++) {
    if (i === mark) atMark = settledHeapUsed(gc);
    guard.push(workload.chunks[i] as string);
  }
  const atEnd = settledHeapUsed(gc);
  guard.end();
  return { atMark, atEnd };
}

/** `--browser-only`: the browser part alone, a minute or two instead of the whole bench. */
async function browserOnly(): Promise<void> {
  const browser = await measureBrowser(log).catch((error: unknown) => ({
    error: error instanceof Error ? error.message : String(error),
  }));
  if (!jsonOnly) {
    for (const [name, value] of browserRows(browser)) process.stdout.write(`${name}: ${value}\n`);
  }
  process.stdout.write(JSON.stringify({ browser }) + '\n');
}

async function main(): Promise<void> {
  if (process.argv.includes('--browser-only')) return browserOnly();
  const started = process.hrtime.bigint();
  const gc = garbageCollector();
  const workload = buildWorkload();
  const secretCount = Object.values(workload.secrets).reduce((a, b) => a + b, 0);
  log(
    `workload: ${workload.bytes} bytes, ${workload.text.length} code units, ${workload.chunks.length} chunks, ${secretCount} secrets (${seconds(started).toFixed(1)} s)`,
  );

  if (process.argv.includes('--profile')) {
    const profile = profileRules(corePack, workload, (disabled) =>
      compileGuardPack({ disabledRules: disabled }),
    );
    if (!jsonOnly) process.stdout.write(profileTable(profile) + '\n');
    process.stdout.write(
      JSON.stringify({
        profile: {
          bytes: profile.bytes,
          unprofiled_ms: round(profile.unprofiled_ms, 1),
          profiled_ms: round(profile.profiled_ms, 1),
          always_on_ablation_ms:
            profile.always_on_ablation_ms === null ? null : round(profile.always_on_ablation_ms, 1),
          rules: profile.rows.map((r) => ({
            ...r,
            spawns_per_kunit: round(r.spawns_per_kunit, 2),
            validate_ms: round(r.validate_ms, 2),
            est_ms: round(r.est_ms, 2),
            ablation_ms: r.ablation_ms === null ? null : round(r.ablation_ms, 1),
          })),
        },
      }) + '\n',
    );
    return;
  }

  const whole = scanText(corePack, workload.text);
  const spans = changingMatchSpans(workload.text, whole.events);
  const matchesByRule: Record<string, number> = {};
  for (const e of whole.events) {
    if (e.type === 'match') matchesByRule[e.rule] = (matchesByRule[e.rule] ?? 0) + 1;
  }
  log(`whole-text scan: ${spans.length} text-changing matches ${JSON.stringify(matchesByRule)}`);
  if (whole.blocked) log('WARNING: the whole-text scan was blocked');

  engineSeconds(prefixOf(workload, WARM_UP_BYTES).chunks);
  const engineBest = Math.min(engineSeconds(workload.chunks), engineSeconds(workload.chunks));
  const engineMbps = workload.bytes / 1e6 / engineBest;
  log(`engine, 4-unit chunks (best of 2): ${engineMbps.toFixed(2)} MB/s`);

  let bulkBest = Infinity;
  for (let i = 0; i < 3; i++) bulkBest = Math.min(bulkBest, engineSeconds(workload.bulkChunks));
  const bulkMbps = workload.bytes / 1e6 / bulkBest;
  log(`engine, 4096-unit chunks (best of 3): ${bulkMbps.toFixed(2)} MB/s`);

  const latency = latencyRun(workload);
  log(`latency p50 ${latency.p50us.toFixed(3)} µs, p99 ${latency.p99us.toFixed(3)} µs`);
  if (latency.output !== whole.output) {
    log(
      'WARNING: the 4-unit chunked output differs from the whole-text output (chunking invariance)',
    );
  }
  const clairvoyant = clairvoyantMeanHeld(spans, latency.pushPoints);

  const rules = regexRules(corePack);
  const tailSize = new TailWindowGuard(rules).tailSize;
  const tail = timeBoundedBaseline(workload, TAIL_WINDOW_BYTES, () => new TailWindowGuard(rules));
  const tailPrefix = { bytes: tail.bytes };
  const tailMbps = tail.mbps;
  const tailGuard = { tailSize };
  log(
    `tail window (${tail.bytes} bytes, tail ${tailSize}; ${tail.tried} prefixes in ${tail.seconds.toFixed(1)} s): ${tailMbps.toFixed(4)} MB/s`,
  );

  const naive = timeBoundedBaseline(
    workload,
    NAIVE_RESCAN_BYTES,
    () => new NaiveRescanGuard(rules),
  );
  const naivePrefix = { bytes: naive.bytes };
  const naiveMbps = naive.mbps;
  log(
    `naive rescan (${naive.bytes} bytes; ${naive.tried} prefixes in ${naive.seconds.toFixed(1)} s): ${naiveMbps.toFixed(4)} MB/s`,
  );

  const heap = heapGrowth(workload, gc);
  log(`heap after gc: ${heap.atMark} at 1 MB, ${heap.atEnd} at 10 MB`);

  const wire = measureWire(corePack, (bytes) => prefixOf(workload, bytes), log);
  // One 1 MB frame in 1 KB pieces per framer: linear, not quadratic, in the frame (issue 19 §4).
  const largeFrameMs = Object.fromEntries(
    (await measureLargeFrames(fileURLToPath(new URL('..', import.meta.url))))
      .filter((row) => row.piece === 1_024)
      .map((row) => [row.framer, row.ms]),
  );
  log(`one 1 MB frame in 1 KB pieces (ms): ${JSON.stringify(largeFrameMs)}`);

  let cli: CliReport | { error: string };
  try {
    cli = measureCli(log);
  } catch (error) {
    cli = { error: error instanceof Error ? error.message : String(error) };
  }
  let scanFile: ScanFileReport | { error: string };
  try {
    scanFile = measureScanFile(log);
  } catch (error) {
    scanFile = { error: error instanceof Error ? error.message : String(error) };
  }

  // `--no-browser` skips the browser runs (they need Chromium and a build).
  let browser: BrowserReport | { error: string } | undefined;
  if (!process.argv.includes('--no-browser')) {
    browser = await measureBrowser(log).catch((error: unknown) => ({
      error: error instanceof Error ? error.message : String(error),
    }));
  }

  const report = {
    engine: {
      mbps: round(engineMbps, 2),
      bulk_mbps: round(bulkMbps, 2),
      chunk_us_p50: round(latency.p50us, 3),
      chunk_us_p99: round(latency.p99us, 3),
    },
    tail_window: { mbps: round(tailMbps, 4) },
    naive_rescan: { mbps: round(naiveMbps, 4) },
    held: {
      engine_mean_chars: round(latency.heldMean, 3),
      engine_max_chars: latency.heldMax,
      clairvoyant_mean_chars: round(clairvoyant, 3),
    },
    heap_growth_bytes: heap.atEnd - heap.atMark,
    wire: { ...wire.report, large_frame_ms: largeFrameMs },
    cli,
    scan_file: scanFile,
    ...(browser ? { browser } : {}),
    workload: {
      bytes: workload.bytes,
      chars: workload.text.length,
      chunks: workload.chunks.length,
      chunk_chars: workload.chunkChars,
      bulk_chunk_chars: 4096,
      secrets: secretCount,
      secrets_by_kind: workload.secrets,
      matches: spans.length,
      rules: corePack.rules.length,
      pack: `${corePack.name}@${corePack.version}`,
      seed: workload.seed,
      tail_window_bytes: tailPrefix.bytes,
      tail_window_tail_chars: tailGuard.tailSize,
      naive_rescan_bytes: naivePrefix.bytes,
      baseline_seconds_budget: BASELINE_SECONDS,
      heap_mark_bytes: HEAP_MARK_BYTES,
      wire_slice_bytes: wire.sliceBytes,
      seconds: round(seconds(started), 1),
    },
  };

  if (!jsonOnly) {
    const rows: [string, string][] = [
      ['engine, 4-char chunks', `${report.engine.mbps} MB/s`],
      ['engine, 4096-char chunks', `${report.engine.bulk_mbps} MB/s`],
      [
        'push latency p50 / p99',
        `${report.engine.chunk_us_p50} / ${report.engine.chunk_us_p99} µs`,
      ],
      [`tail window (${tailPrefix.bytes} B prefix)`, `${report.tail_window.mbps} MB/s`],
      [`naive rescan (${naivePrefix.bytes} B prefix)`, `${report.naive_rescan.mbps} MB/s`],
      ['engine vs tail window', `${round(engineMbps / tailMbps, 1)}×`],
      ['engine vs naive rescan', `${round(engineMbps / naiveMbps, 1)}×`],
      [
        'held mean / max (engine)',
        `${report.held.engine_mean_chars} / ${report.held.engine_max_chars} chars`,
      ],
      ['held mean (clairvoyant)', `${report.held.clairvoyant_mean_chars} chars`],
      ['heap growth 1 MB → 10 MB', `${report.heap_growth_bytes} bytes`],
      [
        `wire, openai-chat / chatgpt-web (${wire.sliceBytes} B)`,
        `${report.wire.openai_chat_mbps} / ${report.wire.chatgpt_web_mbps ?? 'n/a'} MB/s`,
      ],
      ['wire overhead vs engine', `${report.wire.overhead_vs_engine}×`],
      [
        'csg start-up (echo hi | node bin/csg.js scan)',
        'error' in cli
          ? `not measured: ${cli.error}`
          : `${cli.startup_ms_median} ms median of ${cli.runs}; from source ${cli.from_source_ms_median} ms; node -e 0 ${cli.node_ms_median} ms`,
      ],
      [
        'csg scan of a 4 MB file vs secretlint',
        'error' in scanFile
          ? `not measured: ${scanFile.error}`
          : `${scanFile.csg_ms_median} ms vs ${scanFile.secretlint_ms_median} ms (×${scanFile.speedup})`,
      ],
      ...browserRows(browser),
      [
        'workload',
        `${workload.bytes} B, ${secretCount} secrets, ${spans.length} matches, ${corePack.rules.length} rules`,
      ],
    ];
    const width = Math.max(...rows.map(([k]) => k.length));
    process.stdout.write(rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n') + '\n');
  }
  process.stdout.write(JSON.stringify(report) + '\n');
}

function browserRows(browser: BrowserReport | { error: string } | undefined): [string, string][] {
  if (browser === undefined) return [];
  if ('error' in browser) return [['browser', `not measured: ${browser.error}`]];
  const w = browser.with_extension;
  const wo = browser.without_extension;
  const atLoad = browser.at_load;
  return [
    [
      `browser, ${browser.tokens} tokens, request ${browser.settle_ms} ms after load: first token`,
      `${round(w.ttft_ms, 1)} ms with, ${round(wo.ttft_ms, 1)} ms without`,
    ],
    [
      'browser: total render',
      `${round(w.total_ms, 0)} ms with, ${round(wo.total_ms, 0)} ms without (×${browser.total_ratio}, medians)`,
    ],
    [
      'browser: total render per run',
      `with ${browser.total_ms_runs.with.map((ms) => round(ms, 0)).join(', ')}; without ${browser.total_ms_runs.without.map((ms) => round(ms, 0)).join(', ')} ms`,
    ],
    [
      'browser, request at load: first token',
      `${round(atLoad.with_extension.ttft_ms, 1)} ms with, ${round(atLoad.without_extension.ttft_ms, 1)} ms without`,
    ],
    [
      'browser, request at load: total render',
      `${round(atLoad.with_extension.total_ms, 0)} ms with, ${round(atLoad.without_extension.total_ms, 0)} ms without (×${atLoad.total_ratio}, medians)`,
    ],
    [
      'browser: long tasks caused by the guard',
      `${browser.guard_long_tasks} (traced run: ${browser.traced_with_extension.long_tasks_touched_by_guard} of ${browser.traced_with_extension.long_tasks} long tasks ran guard code; longest task with guard code ${browser.traced_with_extension.longest_guard_task_ms} ms)`,
    ],
    [
      'browser: long tasks, with minus without',
      `${browser.long_tasks_difference} (${w.long_tasks} with, ${wo.long_tasks} without)`,
    ],
    [
      'MAIN-world script',
      `${browser.main_world_bytes} B built, ${browser.main_world_min_bytes} B minified`,
    ],
    [
      'browser: set-up on a page that only loads',
      `${browser.setup_ms} ms of guard main-thread time (runs: ${browser.setup_ms_runs.join(', ')})`,
    ],
    [
      `browser: history load (${browser.history.messages} messages, ${browser.history.bytes} B)`,
      `${browser.history.with_ms} ms with, ${browser.history.without_ms} ms without (×${browser.history.ratio}, medians)`,
    ],
  ];
}

await main();
