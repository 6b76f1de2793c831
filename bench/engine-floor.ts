/**
 * `tsx bench/engine-floor.ts [mb] [runs]`: the engine's floor by pack size (issue 19 §3,
 * docs/engine-speed.md "Floor"): the same workload as engine-quick (4-unit and 4096-unit
 * chunks, CPU time, best of `runs`) through guards on no rules, one keyword rule, one
 * always-on rule, each built-in pack alone and all of them, so the part of the cost that is
 * the guard's fixed per-push work can be told from the part that grows with the rules.
 */
import { StreamGuard } from '../src/core/guard/stream-guard.ts';
import type { CompiledPack } from '../src/core/rules/compile-pack.ts';
import { BUILTIN_PACK_NAMES, compileGuardPack } from '../src/core/rules/builtin-packs.ts';
import { buildWorkload } from './workload.ts';
import { unitOffsetAtBytes, utf8Length } from './utf8-length.ts';

const mb = Number(process.argv[2] ?? '2');
const runs = Number(process.argv[3] ?? '3');
const only = process.argv[4];
const workload = buildWorkload();
const units = unitOffsetAtBytes(workload.text, mb * 1e6);
const chunks = workload.chunks.slice(0, Math.ceil(units / workload.chunkChars));
const bulk = workload.bulkChunks.slice(0, Math.ceil(units / 4096));
const bytesOf = (cs: readonly string[]): number => {
  const s = cs.join('');
  return utf8Length(s, 0, s.length);
};
const smallBytes = bytesOf(chunks);
const bulkBytes = bytesOf(bulk);

const allIds = (): string[] => {
  const pack = compileGuardPack();
  return pack.rules.map((r) => r.id);
};

/** Every rule but `keep` switched off. */
function onlyRules(keep: readonly string[]): CompiledPack {
  const kept = new Set(keep);
  return compileGuardPack({ disabledRules: allIds().filter((id) => !kept.has(id)) });
}

const configs: [string, () => CompiledPack][] = [
  ['no rules', () => compileGuardPack({ packs: [], disabledRules: [] })],
  ['one keyword rule (github-pat)', () => onlyRules(['github-pat'])],
  ['one always-on rule (payment-card)', () => onlyRules(['payment-card'])],
  ...BUILTIN_PACK_NAMES.map((name): [string, () => CompiledPack] => [
    `pack ${name}`,
    () => compileGuardPack({ packs: [name] }),
  ]),
  ['all packs', () => compileGuardPack()],
];

function seconds(pack: CompiledPack, cs: readonly string[]): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const guard = new StreamGuard(pack);
    const cpu = process.cpuUsage();
    for (const c of cs) guard.push(c);
    guard.end();
    const used = process.cpuUsage(cpu);
    best = Math.min(best, (used.user + used.system) / 1e6);
  }
  return best;
}

for (const [name, make] of configs) {
  if (only !== undefined && !name.includes(only)) continue;
  const pack = make();
  seconds(pack, workload.chunks.slice(0, 50_000));
  const small = smallBytes / 1e6 / seconds(pack, chunks);
  const large = bulkBytes / 1e6 / seconds(pack, bulk);
  process.stdout.write(
    `${name.padEnd(36)} rules ${String(pack.rules.length).padStart(3)}  4-unit ${small.toFixed(2).padStart(6)} MB/s  bulk ${large.toFixed(2).padStart(6)} MB/s\n`,
  );
}
