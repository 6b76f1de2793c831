/**
 * `tsx bench/guard-creation.ts [runs]`: the cost of making the guards of a history
 * load (issue 19 §5): a ChatGPT-web conversation document (history-load.ts) has
 * 1,241 assistant messages, and the wire adapter makes a guard stream for each
 * (channel-ledger.ts). Makes that many guards on the core pack and pushes one
 * message's prose (~2 KB) into each, then ends it; prints the CPU time of making
 * the guards alone and of the whole, best of `runs` (3). CPU time, not wall time:
 * the machine is shared (docs/engine-speed.md).
 */
import { StreamGuard } from '../src/core/guard/stream-guard.ts';
import { getCorePack } from '../src/core/rules/builtin-packs.ts';
import { historyDocument } from './history-load.ts';

const runs = Number(process.argv[2] ?? '3');
const pack = getCorePack();
const doc = JSON.parse(historyDocument()) as {
  mapping: Record<string, { message: { author: { role: string }; content: { parts: string[] } } }>;
};
const texts = Object.values(doc.mapping)
  .filter((node) => node.message.author.role === 'assistant')
  .map((node) => node.message.content.parts[0] ?? '');

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

function run(): { make: number; all: number } {
  const start = process.cpuUsage();
  const guards = texts.map(() => new StreamGuard(pack));
  const make = cpuMs(start);
  guards.forEach((guard, i) => {
    guard.push(texts[i] as string);
    guard.end();
  });
  return { make, all: cpuMs(start) };
}

// One warm-up run: the pack's tables are built on first use, once per process.
run();
let best = { make: Infinity, all: Infinity };
for (let i = 0; i < runs; i++) {
  const r = run();
  best = { make: Math.min(best.make, r.make), all: Math.min(best.all, r.all) };
}
console.log(
  `${texts.length} guards, ${Math.round(texts.reduce((n, t) => n + t.length, 0) / texts.length)} units each: ` +
    `make ${best.make.toFixed(1)} ms, make+push+end ${best.all.toFixed(1)} ms (best of ${runs}, CPU)`,
);
