/**
 * `tsx bench/history-node.ts [passes]`: the engine's part of a history load in Node,
 * set up as a page sets up (issue 19 §5, docs/page-setup.md "History load"): the
 * pack loaded from the built tables the background encodes, the first guard of each
 * policy made and the always-on rules decoded (page-guard-config.ts), then the 5 MB
 * ChatGPT-web conversation of history-load.ts through the history adapter, `passes`
 * times on the same pack. The first pass is the page's (every lazy DFA state it
 * visits computed then); the later ones show what is left when they are all known.
 *
 * Prints per pass the CPU time, the lazy DFAs' transitions computed and states
 * interned (and the time inside `compute`), and the output's length (every pass
 * must give the same). Counts, not timings, are the figures to compare between
 * trees on this shared machine. `BY_RULE=1`: states interned per rule in the last
 * pass. `WARM_UNITS=n`: n units of README.md pushed through a guard first (what a
 * page that already guarded some text has warm: JIT, lazy DFA states, miss tables).
 * `MISSES=1`: the built tables carry the keyword automata's unit misses (built-tables.ts
 * `EncodeOptions`), as the CLI's do; the page's do not, so its first long answer builds them.
 * `REUSE=0`: every channel gets a new guard, as before spare-guards.ts. `AB=n`: after
 * the passes, n rounds of one pass with fresh guards and one with reused ones (order
 * alternating), same process: the medians and their ratio (fresh over reused).
 */
import {
  DEFAULT_INCOMING_POLICY,
  DEFAULT_OUTGOING_POLICY,
} from '../src/background/default-settings.ts';
import { answerGuardOptions, sendGuardOptions } from '../src/core/guard/page-guard-options.ts';
import { StreamGuard } from '../src/core/guard/stream-guard.ts';
import { LazyDfa } from '../src/core/regex/lazy-dfa.ts';
import { compileGuardPack } from '../src/core/rules/builtin-packs.ts';
import {
  decodeBuiltTables,
  encodeBuiltTables,
  loadBuiltTables,
} from '../src/core/rules/built-tables.ts';
import { dataDigest } from '../src/core/rules/data-digest.ts';
import { loadCompiledPack } from '../src/core/rules/load-compiled-pack.ts';
import { serialiseCompiledPack } from '../src/core/rules/serialised-pack.ts';
import { serialiseWarmTables } from '../src/core/rules/warm-tables.ts';
import { chatgptWebHistory } from '../src/core/wire/adapters/chatgpt-web-history.ts';
import { replayBody } from '../src/core/wire/replay-body.ts';
import { decodeAlwaysOnSteps } from '../src/content/load-built-tables.ts';
import { runToEnd } from '../src/core/guard/run-to-end.ts';
import { reuseGuards } from '../src/core/guard/spare-guards.ts';
import { historyDocument } from './history-load.ts';
import { median } from './median.ts';

const passes = Number(process.argv[2] ?? '2');
reuseGuards.enabled = process.env.REUSE !== '0';

/** Counts of the lazy DFAs' private work, read through the prototype (bench only). */
const counts = { computed: 0, interned: 0, computeMs: 0 };
let depth = 0;
let deadStates = 0;
const byDfa = new Map<unknown, number>();
const proto = LazyDfa.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
for (const [method, key] of [
  ['compute', 'computed'],
  ['intern', 'interned'],
] as const) {
  const original = proto[method] as (...args: unknown[]) => unknown;
  proto[method] = function (this: unknown, ...args: unknown[]) {
    counts[key]++;
    if (method === 'intern' && (args[0] as number[]).length === 0) deadStates++;
    if (method === 'intern') byDfa.set(this, (byDfa.get(this) ?? 0) + 1);
    if (method !== 'compute' || depth > 0) return original.apply(this, args);
    depth++;
    const t = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      counts.computeMs += performance.now() - t;
      depth--;
    }
  };
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

// The background's part (page-config.ts builtTablesFor), then the page's (page-guard-config.ts).
const answers = answerGuardOptions({ ...DEFAULT_INCOMING_POLICY });
const sends = sendGuardOptions({ ...DEFAULT_OUTGOING_POLICY });
const serialised = serialiseCompiledPack(compileGuardPack({}));
const loaded = loadCompiledPack(serialised, {});
const warm = serialiseWarmTables(loaded, [sends, answers]);
const bytes = encodeBuiltTables(
  serialised,
  loaded,
  warm.automata.map((a) => a.subset),
  dataDigest,
  { misses: process.env.MISSES === '1' },
);
const loadStart = process.cpuUsage();
const pack = loadBuiltTables(decodeBuiltTables(bytes, { digest: dataDigest }), {});
console.log(
  `built tables ${bytes.length} bytes${process.env.MISSES === '1' ? ' with unit misses' : ''}, ` +
    `decoded and loaded in ${cpuMs(loadStart).toFixed(1)} ms CPU`,
);
for (const options of [answers, sends]) new StreamGuard(pack, options).push('');
runToEnd(decodeAlwaysOnSteps(pack));

const doc = historyDocument();
// Experiment: WARM_UNITS units of the README pushed through a guard first (JIT and caches).
const warmUnits = Number(process.env.WARM_UNITS ?? '0');
if (warmUnits > 0) {
  const { readFileSync } = await import('node:fs');
  let sample = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  while (sample.length < warmUnits) sample += sample;
  sample = sample.slice(0, warmUnits);
  const start = process.cpuUsage();
  const guard = new StreamGuard(pack, answers);
  for (let i = 0; i < sample.length; i += 2048) guard.push(sample.slice(i, i + 2048));
  guard.end();
  console.log(
    `warm ${warmUnits} units: ${cpuMs(start).toFixed(1)} ms CPU, ${counts.computed} computed`,
  );
  counts.computed = 0;
}
for (let pass = 0; pass < passes; pass++) {
  counts.computed = 0;
  counts.interned = 0;
  counts.computeMs = 0;
  deadStates = 0;
  byDfa.clear();
  const start = process.cpuUsage();
  const out = replayBody(chatgptWebHistory, pack, [doc], answers);
  const ms = cpuMs(start);
  console.log(
    `pass ${pass + 1}: ${ms.toFixed(1)} ms CPU, ${counts.computed} transitions computed, ` +
      `${counts.interned} states interned (${counts.computeMs.toFixed(1)} ms in compute), ${deadStates} DFAs made, output ${out.output.length} units, ${out.events.length} events`,
  );
}

if (process.env.BY_RULE) {
  const ids = new Map<unknown, string>(pack.rules.map((r) => [r.dfa, r.id]));
  console.log([...byDfa].map(([d, n]) => `${ids.get(d)} ${n}`).join('\n'));
}

const rounds = Number(process.env.AB ?? '0');
if (rounds > 0) {
  const times: Record<'fresh' | 'reused', number[]> = { fresh: [], reused: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (['fresh', 'reused'] as const) : (['reused', 'fresh'] as const);
    for (const side of order) {
      reuseGuards.enabled = side === 'reused';
      const start = process.cpuUsage();
      replayBody(chatgptWebHistory, pack, [doc], answers);
      times[side].push(cpuMs(start));
    }
  }
  const [fresh, reused] = [median(times.fresh), median(times.reused)];
  console.log(
    `A/B ${rounds} rounds, median ms CPU: fresh ${fresh.toFixed(1)} (${times.fresh.map((t) => t.toFixed(0)).join(' ')}), ` +
      `reused ${reused.toFixed(1)} (${times.reused.map((t) => t.toFixed(0)).join(' ')}), ratio ${(fresh / reused).toFixed(2)}`,
  );
}
