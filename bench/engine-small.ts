/**
 * `tsx bench/engine-small.ts [mb] [runs]`: only the 4-unit pushes of
 * engine-quick, so a CPU profile (`node --import tsx --cpu-prof ...`) shows the
 * per-push cost alone, without the bulk run (docs/engine-speed.md, per-push).
 */
import { StreamGuard } from '../src/core/guard/stream-guard.ts';
import { getCorePack } from '../src/core/rules/builtin-packs.ts';
import { buildWorkload } from './workload.ts';
import { unitOffsetAtBytes } from './utf8-length.ts';

const pack = getCorePack();
const mb = Number(process.argv[2] ?? '2');
const runs = Number(process.argv[3] ?? '3');
const workload = buildWorkload();
const units = unitOffsetAtBytes(workload.text, mb * 1e6);
const chunks = workload.chunks.slice(0, Math.ceil(units / workload.chunkChars));
let best = Infinity;
for (let i = 0; i < runs; i++) {
  const guard = new StreamGuard(pack);
  const cpu = process.cpuUsage();
  for (const c of chunks) guard.push(c);
  guard.end();
  const used = process.cpuUsage(cpu);
  best = Math.min(best, (used.user + used.system) / 1000);
}
process.stdout.write(
  `4-unit ${chunks.length} pushes, best ${best.toFixed(0)} ms, ${((best * 1000) / chunks.length).toFixed(2)} µs per push\n`,
);
