/**
 * `npm run bench -- --profile` (issue 19 §3): what each rule costs on the
 * bench's ordinary-text workload (workload.ts), so a pack author sees it.
 *
 * One guarded stream over the first `PROFILE_BYTES` of the workload in
 * 4096-unit chunks, with a ScanProfile (src/core/guard/scan-profile.ts)
 * counting per rule: thread starts (spawns), starts that survived their first
 * units (threads), DFA steps, validator calls and their time. Counting slows the
 * run, so time per rule is not measured directly: `est_ms` divides the same
 * text's unprofiled time (best of three) over the rules by their share of
 * starts + steps, then adds the validator time measured in the profiled run.
 * The time of work no rule owns (keyword automaton, rendered view, release) is
 * spread over the rules with it, so est_ms is an upper bound per rule; the
 * ranking, spawns and steps are exact counts.
 *
 * Measured time: for the `ABLATE_TOP` costliest rules, `ablation_ms` is the
 * unprofiled time minus the time of the same pack with that rule switched off
 * (best of three each), and `always_on_ablation_ms` the same for all rules
 * without keywords at once. Ablation sees what counting cannot (a rule that
 * starts on a unit keeps the skip loop from passing over it), but on a loaded
 * machine differences of a few tens of milliseconds are noise.
 */
import { ScanProfile } from '../src/core/guard/scan-profile.ts';
import { StreamGuard } from '../src/core/guard/stream-guard.ts';
import type { CompiledPack } from '../src/core/rules/compile-pack.ts';
import { unitOffsetAtBytes, utf8Length } from './utf8-length.ts';
import type { Workload } from './workload.ts';

/** How much of the workload the profile reads (counts scale with it). */
export const PROFILE_BYTES = 2_000_000;
const BULK_CHUNK = 4096;
/** How many of the costliest rules are also timed by switching them off. */
export const ABLATE_TOP = 6;

/** The same pack with the given rule ids switched off. */
export type PackWithout = (disabled: readonly string[]) => CompiledPack;

export interface RuleProfileRow {
  rule: string;
  kind: string;
  keyword: boolean;
  spawns: number;
  /** Starts per 1000 input code units. */
  spawns_per_kunit: number;
  threads: number;
  steps: number;
  validations: number;
  validate_ms: number;
  est_ms: number;
  /** Unprofiled time saved by switching the rule off (top ABLATE_TOP rules only). */
  ablation_ms: number | null;
}

export interface RuleProfile {
  bytes: number;
  units: number;
  unprofiled_ms: number;
  profiled_ms: number;
  /** Unprofiled time saved by switching off every rule without keywords. */
  always_on_ablation_ms: number | null;
  rows: RuleProfileRow[];
}

function chunksOf(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function run(pack: CompiledPack, chunks: readonly string[], profile?: ScanProfile): number {
  const guard = new StreamGuard(pack, profile ? { profile } : {});
  const t = performance.now();
  for (const chunk of chunks) guard.push(chunk);
  guard.end();
  return performance.now() - t;
}

function bestOf3(pack: CompiledPack, chunks: readonly string[]): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) best = Math.min(best, run(pack, chunks));
  return best;
}

export function profileRules(
  pack: CompiledPack,
  workload: Workload,
  without?: PackWithout,
): RuleProfile {
  const units = unitOffsetAtBytes(workload.text, PROFILE_BYTES);
  const text = workload.text.slice(0, units);
  const chunks = chunksOf(text, BULK_CHUNK);
  run(pack, chunks.slice(0, 50)); // warm the lazy automata on a first slice
  const unprofiled = bestOf3(pack, chunks);
  const profile = new ScanProfile(() => performance.now());
  const profiled = run(pack, chunks, profile);

  const byId = new Map(pack.rules.map((r) => [r.id, r]));
  const entries = profile.entries();
  let work = 0;
  let validateTotal = 0;
  for (const [, c] of entries) {
    work += c.spawns + c.steps;
    validateTotal += c.validateTime;
  }
  const spread = Math.max(0, unprofiled - validateTotal);
  const rows: RuleProfileRow[] = entries.map(([id, c]) => {
    const rule = byId.get(id);
    return {
      rule: id,
      kind: rule?.kind ?? '?',
      keyword: rule?.keyword ?? false,
      spawns: c.spawns,
      spawns_per_kunit: (c.spawns / units) * 1000,
      threads: c.threads,
      steps: c.steps,
      validations: c.validations,
      validate_ms: c.validateTime,
      est_ms: (work === 0 ? 0 : (spread * (c.spawns + c.steps)) / work) + c.validateTime,
      ablation_ms: null,
    };
  });
  rows.sort((a, b) => b.est_ms - a.est_ms || b.spawns - a.spawns || a.rule.localeCompare(b.rule));
  let alwaysOn: number | null = null;
  if (without !== undefined) {
    const timeWithout = (ids: readonly string[]): number => {
      const reduced = without(ids);
      run(reduced, chunks); // a new pack: its lazy automata warm on a first full run
      return bestOf3(reduced, chunks);
    };
    const top = rows.slice(0, ABLATE_TOP);
    const reducedTimes = top.map((row) => timeWithout([row.rule]));
    const keywordLess = pack.rules.filter((r) => !r.keyword).map((r) => r.id);
    const alwaysOnOff = timeWithout(keywordLess);
    // The full pack timed again after the others, so a change of load shows less.
    const full = Math.min(unprofiled, bestOf3(pack, chunks));
    top.forEach((row, i) => (row.ablation_ms = full - (reducedTimes[i] as number)));
    alwaysOn = full - alwaysOnOff;
  }
  return {
    bytes: utf8Length(text, 0, text.length),
    units,
    unprofiled_ms: unprofiled,
    profiled_ms: profiled,
    always_on_ablation_ms: alwaysOn,
    rows,
  };
}

/** The table `--profile` prints: every rule that started at least once, costliest first. */
export function profileTable(profile: RuleProfile): string {
  const header = [
    'rule',
    'kind',
    'kw',
    'est ms',
    'ablation ms',
    'spawns',
    '/1k units',
    'threads',
    'dfa steps',
    'validations',
    'valid. ms',
  ];
  const lines = profile.rows
    .filter((r) => r.spawns > 0 || r.steps > 0)
    .map((r) => [
      r.rule,
      r.kind,
      r.keyword ? 'yes' : 'no',
      r.est_ms.toFixed(1),
      r.ablation_ms === null ? '' : r.ablation_ms.toFixed(1),
      String(r.spawns),
      r.spawns_per_kunit.toFixed(1),
      String(r.threads),
      String(r.steps),
      String(r.validations),
      r.validate_ms.toFixed(1),
    ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const fmt = (cells: string[]): string =>
    cells.map((c, i) => (i < 3 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  const silent = profile.rows.length - lines.length;
  return [
    `${profile.bytes} B of ordinary text (${profile.units} code units), 4096-unit chunks: ` +
      `${profile.unprofiled_ms.toFixed(0)} ms unprofiled (best of 3), ${profile.profiled_ms.toFixed(0)} ms profiled`,
    'est ms: the unprofiled time shared by starts + DFA steps, plus measured validator time (an upper bound)',
    `ablation ms: unprofiled time saved by switching the rule off (top ${ABLATE_TOP}; noisy on a loaded machine)` +
      (profile.always_on_ablation_ms === null
        ? ''
        : `; all rules without keywords off: ${profile.always_on_ablation_ms.toFixed(0)} ms saved`),
    fmt(header),
    ...lines.map(fmt),
    `${silent} more rules never started on this text`,
  ].join('\n');
}
