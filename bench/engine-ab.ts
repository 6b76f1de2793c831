/**
 * `tsx bench/engine-ab.ts <other-tree> [bulk|small] [rounds] [mb]`: this tree's
 * engine against another checkout's (e.g. `git worktree add /tmp/base <commit>`,
 * with its own node_modules or a link to these), in one process, alternating
 * run by run, best of `rounds` each, in CPU time. On a shared machine separate
 * processes minutes apart differ by more than most single changes; alternating
 * in one process exposes both to the same load (docs/engine-speed.md).
 * `bulk`: 4096-unit chunks; `small`: the workload's 4-unit chunks; `cjk`: 4096-unit
 * chunks of generated Chinese prose (cjk-workload.ts; `mb` MB of UTF-8, ~3 bytes a unit).
 */
import { buildCjkText } from './cjk-workload.ts';
import { buildWorkload, chunkText } from './workload.ts';
import { unitOffsetAtBytes } from './utf8-length.ts';

interface Side {
  name: string;
  run: (chunks: readonly string[]) => void;
}

async function side(dir: string): Promise<Side> {
  const guardModule = (await import(`${dir}/src/core/guard/stream-guard.ts`)) as {
    StreamGuard: new (pack: unknown) => { push(t: string): unknown; end(): unknown };
  };
  const packModule = (await import(`${dir}/src/core/rules/builtin-packs.ts`)) as {
    getCorePack: () => unknown;
  };
  const pack = packModule.getCorePack();
  return {
    name: dir,
    run: (chunks) => {
      const guard = new guardModule.StreamGuard(pack);
      for (const c of chunks) guard.push(c);
      guard.end();
    },
  };
}

const other = process.argv[2];
if (other === undefined)
  throw new Error('usage: engine-ab.ts <other-tree> [bulk|small] [rounds] [mb]');
const mode = process.argv[3] ?? 'bulk';
const rounds = Number(process.argv[4] ?? '8');
const mb = Number(process.argv[5] ?? '2');
const workload = buildWorkload();
const units = unitOffsetAtBytes(workload.text, mb * 1e6);
const chunks =
  mode === 'cjk'
    ? chunkText(buildCjkText(Math.round((mb * 1e6) / 3)), 4096)
    : mode === 'small'
      ? workload.chunks.slice(0, Math.ceil(units / workload.chunkChars))
      : workload.bulkChunks.slice(0, Math.ceil(units / 4096));
const here = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const sides = [await side(here), await side(other)];
const best = sides.map(() => Infinity);
for (let k = 0; k < rounds; k++) {
  sides.forEach((s, i) => {
    const cpu = process.cpuUsage();
    s.run(chunks);
    const used = process.cpuUsage(cpu);
    best[i] = Math.min(best[i] as number, (used.user + used.system) / 1000);
  });
}
const [mine, theirs] = best as [number, number];
process.stdout.write(
  `${mode} ${mb} MB: this tree ${mine.toFixed(0)} ms, ${other} ${theirs.toFixed(0)} ms, ` +
    `speed-up ${(theirs / mine).toFixed(3)}\n`,
);
