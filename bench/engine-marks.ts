/**
 * `tsx bench/engine-marks.ts [mb] [runs] [bench|cjk] [new|former]`: where the bulk engine's
 * prefilter marks and time go (issue 19 §3, docs/engine-speed.md "Bulk engine, fourth
 * round"), on the first `mb` MB of the engine-quick workload (`bench`) or on `mb` MB of
 * generated Chinese prose (`cjk`, cjk-workload.ts), with the bigram fold in use (`new`) or
 * the former one (`former`, bigram-fold.ts; "CJK and the bigram fold").
 *
 * 1. The bigrams the shared pass's union table marks (the first test of
 *    `BigramHits.compute`), most frequent first, with the scanners marking each.
 * 2. The hits left after the third- and fourth-unit checks, per scanner, and how many of
 *    them sit on a bigram the checks never prune (third-unit entry 0: a keyword of one or
 *    two units ends there, or an always-on rule may begin at its second unit).
 * 3. Bulk CPU time (best of `runs`, the configurations alternating in this process)
 *    without each scanner's rules and without the three URL rules.
 *
 * Counts are exact; times are as noisy as the machine (docs/engine-speed.md "How to measure").
 */
import { StreamGuard } from '../src/core/guard/stream-guard.ts';
import { bigramByte, caselessIndex } from '../src/core/guard/bigram-hits.ts';
import { bigramFold } from '../src/core/guard/bigram-fold.ts';
import type { BigramHits } from '../src/core/guard/bigram-hits.ts';
import type { CompiledPack } from '../src/core/rules/compile-pack.ts';
import { compileGuardPack } from '../src/core/rules/builtin-packs.ts';
import { buildCjkText } from './cjk-workload.ts';
import { buildWorkload, chunkText } from './workload.ts';
import { unitOffsetAtBytes } from './utf8-length.ts';

/** The guard's parts this bench reads (private fields, read here only). */
interface ScannerParts {
  rules: readonly { id: string }[];
  missesPending: unknown;
  thirdMisses: Int32Array;
  buildMisses(keywords: unknown): void;
}
interface GuardParts {
  seenScanner: ScannerParts | null;
  writtenScanner: ScannerParts | null;
  flagging: ScannerParts | null;
  hits:
    (Pick<BigramHits, 'compute' | 'count' | 'positions' | 'marks'> & { union: Uint8Array }) | null;
}

const mb = Number(process.argv[2] ?? '2');
const runs = Number(process.argv[3] ?? '10');
const cjk = process.argv[4] === 'cjk';
bigramFold.enabled = process.argv[5] !== 'former';
const workload = cjk ? null : buildWorkload();
const text =
  workload === null
    ? buildCjkText(Math.round((mb * 1e6) / 3))
    : workload.text.slice(0, unitOffsetAtBytes(workload.text, mb * 1e6));
const units = text.length;
const bulk =
  workload === null ? chunkText(text, 4096) : workload.bulkChunks.slice(0, Math.ceil(units / 4096));
const pack = compileGuardPack();
const parts = new StreamGuard(pack) as unknown as GuardParts;
const scanners = [parts.seenScanner, parts.writtenScanner, parts.flagging];
const NAMES = ['seen', 'written', 'flag'];
const hits = parts.hits;
if (hits === null) throw new Error('no shared hits: no scanner has keywords');
// The misses a guard takes after `missesAfter` units, taken now.
for (const s of scanners)
  if (s !== null && s.missesPending !== null) s.buildMisses(s.missesPending);

const pct = (n: number, of: number): string => `${((100 * n) / of).toFixed(1)}%`;
const show = (s: string): string => JSON.stringify(s);
const indexAt = (p: number): number =>
  (bigramByte(text.charCodeAt(p)) << 8) | bigramByte(text.charCodeAt(p + 1));

function unionMarks(): void {
  const byBigram = new Map<string, { count: number; mark: number }>();
  let marked = 0;
  for (let p = 0; p + 1 < text.length; p++) {
    const mark = hits!.union[indexAt(p)] as number;
    if (mark === 0) continue;
    marked++;
    const key = text.slice(p, p + 2);
    const entry = byBigram.get(key) ?? { count: 0, mark };
    entry.count++;
    byBigram.set(key, entry);
  }
  console.log(`units ${text.length}, union-marked ${marked} (${pct(marked, text.length)})`);
  let sum = 0;
  for (const [key, { count, mark }] of [...byBigram]
    .sort((a, b) => b[1].count - a[1].count)
    .slice(0, 30)) {
    sum += count;
    const by = NAMES.filter((_, i) => (mark & (1 << i)) !== 0).join('+');
    console.log(`  ${show(key)} ${count} ${by} (cumulative ${pct(sum, marked)})`);
  }
}

function refinedHits(): void {
  hits!.compute(text, 0, 0, text.length - 1);
  console.log(
    `hits after the third and fourth units: ${hits!.count} (${pct(hits!.count, text.length)})`,
  );
  scanners.forEach((scanner, i) => {
    if (scanner === null) return;
    const unpruned = new Map<string, number>();
    let own = 0;
    let kept = 0;
    for (let k = 0; k < hits!.count; k++) {
      if (((hits!.marks[k] as number) & (1 << i)) === 0) continue;
      own++;
      const p = hits!.positions[k] as number;
      if (scanner.thirdMisses[caselessIndex(indexAt(p))] !== 0) continue;
      kept++;
      const key = text.slice(p, p + 2);
      unpruned.set(key, (unpruned.get(key) ?? 0) + 1);
    }
    const top = [...unpruned].sort((a, b) => b[1] - a[1]).slice(0, 12);
    console.log(
      `  ${NAMES[i]}: ${own}, never pruned ${kept}: ${top.map(([s, n]) => `${show(s)} ${n}`).join(', ')}`,
    );
  });
}

function ablations(): void {
  const idsOf = (s: ScannerParts | null): string[] => (s === null ? [] : s.rules.map((r) => r.id));
  const configs: [string, CompiledPack][] = [
    ['all rules', pack],
    ...scanners.map((s, i): [string, CompiledPack] => [
      `without the ${NAMES[i]} scanner's rules`,
      compileGuardPack({ disabledRules: idsOf(s) }),
    ]),
    ...['markdown-link-exfil', 'bare-url-exfil', 'url-basic-auth'].map(
      (id): [string, CompiledPack] => [`without ${id}`, compileGuardPack({ disabledRules: [id] })],
    ),
    [
      'without the three URL rules',
      compileGuardPack({
        disabledRules: ['markdown-link-exfil', 'bare-url-exfil', 'url-basic-auth'],
      }),
    ],
    ['no rules', compileGuardPack({ packs: [], disabledRules: [] })],
  ];
  const best = configs.map(() => Infinity);
  for (let r = 0; r < runs; r++) {
    configs.forEach(([, p], i) => {
      const cpu = process.cpuUsage();
      const guard = new StreamGuard(p);
      for (const chunk of bulk) guard.push(chunk);
      guard.end();
      const used = process.cpuUsage(cpu);
      best[i] = Math.min(best[i] as number, (used.user + used.system) / 1000);
    });
  }
  console.log(`bulk ${mb} MB, CPU ms, best of ${runs}:`);
  configs.forEach(([name], i) => {
    const ms = best[i] as number;
    console.log(`  ${name}: ${ms.toFixed(1)} ms, ${((ms * 1e6) / units).toFixed(1)} ns per unit`);
  });
}

unionMarks();
refinedHits();
ablations();
