/**
 * `tsx bench/engine-threads.ts [mode] [rounds] [mb]`: where the URL rules' share
 * of bulk goes (docs/engine-speed.md "Threads and URL rules"). Alternates, in
 * one process, the full pack and the pack without the three URL rules, best of
 * `rounds` in CPU ms; `mode` `all` runs only the full pack (a profile driver),
 * `both` alternates. Counts are exact: per rule, threads kept by `spawn`,
 * units stepped by `advanceThread` and accepts handed to `finishThread`'s
 * validator.
 */
import { StreamGuard } from '../src/core/guard/stream-guard.ts';
import { Scanner } from '../src/core/guard/scanner.ts';
import type { CompiledPack } from '../src/core/rules/compile-pack.ts';
import { compileGuardPack } from '../src/core/rules/builtin-packs.ts';
import { buildWorkload } from './workload.ts';
import { unitOffsetAtBytes } from './utf8-length.ts';

const URL_RULES = ['markdown-link-exfil', 'bare-url-exfil', 'url-basic-auth'];
const mode = process.argv[2] ?? 'both';
const rounds = Number(process.argv[3] ?? '8');
const mb = Number(process.argv[4] ?? '2');
const workload = buildWorkload();
const units = unitOffsetAtBytes(workload.text, mb * 1e6);
const chunks = workload.bulkChunks.slice(0, Math.ceil(units / 4096));

function run(pack: CompiledPack): void {
  const guard = new StreamGuard(pack);
  for (const c of chunks) guard.push(c);
  guard.end();
}

interface Counted {
  steps: Map<string, number>;
  validations: Map<string, number>;
  threads: Map<string, number>;
}

/** Shadows the scanner's thread methods to count per rule (profiling only). */
function countThreads(): Counted {
  const proto = Scanner.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const advance = proto['advanceThread'] as (...a: unknown[]) => unknown;
  const finish = proto['finishThread'] as (...a: unknown[]) => unknown;
  const counted: Counted = { steps: new Map(), validations: new Map(), threads: new Map() };
  const idOf = (self: unknown, r: number): string =>
    ((self as { rules: { id: string }[] }).rules[r] as { id: string }).id;
  const bump = (m: Map<string, number>, k: string): void => {
    m.set(k, (m.get(k) ?? 0) + 1);
  };
  proto['advanceThread'] = function (this: unknown, ...a: unknown[]) {
    bump(counted.steps, idOf(this, (a[0] as { rule: number }).rule));
    return advance.apply(this, a);
  };
  proto['finishThread'] = function (this: unknown, ...a: unknown[]) {
    const t = a[0] as { rule: number; acceptEnd: number; start: number };
    if (t.acceptEnd > t.start) bump(counted.validations, idOf(this, t.rule));
    return finish.apply(this, a);
  };
  return counted;
}

/** The pack with the URL rules' validators answering "no" at once: their threads without their verdicts. */
function withoutValidation(pack: CompiledPack): CompiledPack {
  const rules = pack.rules.map((r) =>
    URL_RULES.includes(r.id)
      ? (Object.create(r, { accept: { value: () => ({ ok: false }) } }) as typeof r)
      : r,
  );
  return Object.assign(Object.create(pack) as CompiledPack, { rules });
}

const all = compileGuardPack({});
if (mode === 'counts') {
  const counted = countThreads();
  run(all);
  const rows = [...counted.steps.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15);
  for (const [id, n] of rows) {
    console.log(`${id}\tsteps ${n}\tvalidations ${counted.validations.get(id) ?? 0}`);
  }
} else {
  const packs: [string, CompiledPack][] = [['all', all]];
  if (mode !== 'all') packs.push(['no URL rules', compileGuardPack({ disabledRules: URL_RULES })]);
  if (mode === 'ablate')
    packs.push(['URL rules never valid', withoutValidation(compileGuardPack({}))]);
  const best = packs.map(() => Infinity);
  for (let k = 0; k < rounds; k++) {
    packs.forEach(([, p], i) => {
      const cpu = process.cpuUsage();
      run(p);
      const used = process.cpuUsage(cpu);
      best[i] = Math.min(best[i] as number, (used.user + used.system) / 1000);
    });
  }
  packs.forEach(([name], i) => console.log(`${name}: ${(best[i] as number).toFixed(1)} ms`));
}
