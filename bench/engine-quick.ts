/**
 * `tsx bench/engine-quick.ts [mb] [runs]`: the engine part of `npm run bench`
 * alone (4-unit and 4096-unit chunks over the first `mb` MB of the workload,
 * best of `runs` (3) each, in CPU time of this process), plus a digest of the
 * output and events, so a change to the engine can be timed and checked for
 * identical output in seconds. On a shared machine, compare old and new trees
 * alternately with more runs (docs/engine-speed.md).
 */
import { createHash } from 'node:crypto';
import { StreamGuard } from '../src/core/guard/stream-guard.ts';
import { getCorePack } from '../src/core/rules/builtin-packs.ts';
import { buildWorkload } from './workload.ts';
import { unitOffsetAtBytes, utf8Length } from './utf8-length.ts';

const pack = getCorePack();
const mb = Number(process.argv[2] ?? '10');
const runs = Number(process.argv[3] ?? '3');
const workload = buildWorkload();
const units = unitOffsetAtBytes(workload.text, mb * 1e6);
const chunks = workload.chunks.slice(0, Math.ceil(units / workload.chunkChars));
const bulk = workload.bulkChunks.slice(0, Math.ceil(units / 4096));
const bytesOf = (cs: string[]): number => utf8Length(cs.join(''), 0, cs.join('').length);

function run(cs: readonly string[]): { seconds: number; digest: string } {
  const guard = new StreamGuard(pack);
  const hash = createHash('sha256');
  const cpu = process.cpuUsage();
  for (const c of cs) {
    const r = guard.push(c);
    hash.update(r.emit);
    if (r.events.length > 0) hash.update(JSON.stringify(r.events));
  }
  const r = guard.end();
  // CPU time, not wall time: the machine is shared, and a descheduled run is not slower code.
  const used = process.cpuUsage(cpu);
  const seconds = (used.user + used.system) / 1e6;
  hash.update(r.emit);
  hash.update(JSON.stringify(r.events));
  return { seconds, digest: hash.digest('hex').slice(0, 16) };
}

function best(cs: readonly string[], n: number): { mbps: number; digest: string } {
  let secs = Infinity;
  let digest = '';
  for (let i = 0; i < n; i++) {
    const r = run(cs);
    secs = Math.min(secs, r.seconds);
    digest = r.digest;
  }
  return { mbps: bytesOf(cs as string[]) / 1e6 / secs, digest };
}

run(workload.chunks.slice(0, 250_000));
const small = best(chunks, runs);
const large = best(bulk, runs);
process.stdout.write(
  `4-unit ${small.mbps.toFixed(2)} MB/s (${small.digest})  bulk ${large.mbps.toFixed(2)} MB/s (${large.digest})\n`,
);
