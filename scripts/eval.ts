/**
 * `npm run eval [-- --json] [--corpus DIR] [--seed N] [--allow-hosts a,b]`:
 * detection quality of the built-in packs on ../shared/eval (issue 6), data
 * nobody on this team wrote. Progress and a readable summary go to stderr;
 * stdout's last line is one JSON object:
 * `{"secrets":{recall,fp_rate,per_source},"pii":{…},"exfil":{recall,benign_links_changed},
 *   "injection":{recall,fp_rate},"benign_files":{bytes,findings,per_mb},"chunked_equals_whole"}`.
 *
 * - A positive is detected when its own pack changes the text or flags it;
 *   a negative is a false positive when its own pack changes or flags anything
 *   (`fp_rate_all_packs`: when the whole built-in set does).
 * - `benign_files` counts match events of the whole built-in set in benign/
 *   (`findings`, every action), with a breakdown by action and kind: flags
 *   (e-mail addresses in answers, say) leave the text unchanged, redactions
 *   do not (`changing_findings`).
 * - Every sample and file also runs through the whole set in seeded random
 *   chunks; `chunked_equals_whole` says every one gave the same output and events.
 * - Per-rule misses and false positives go to eval-output/misses.json
 *   (gitignored) so they can be studied; never copy them into rules or tests.
 * Defaults: no allow-listed image/link host (the product's default), seed 1.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ScanOutcome, scanText } from '../src/core/guard/scan-text.ts';
import { BUILTIN_PACK_NAMES, compileGuardPack } from '../src/core/rules/builtin-packs.ts';
import type { CompiledPack } from '../src/core/rules/compile-pack.ts';
import { SeededRandom } from '../bench/seeded-random.ts';
import { wholeAndChunked } from './eval/chunked-run.ts';
import {
  type Sample,
  readBenignFiles,
  readProvenance,
  readTextSamples,
  readTsvSamples,
} from './eval/corpus.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface Options {
  json: boolean;
  corpus: string;
  seed: number;
  allowHosts: string[];
  misses: string;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = {
    json: false,
    corpus: resolve(repoRoot, '../shared/eval'),
    seed: 1,
    allowHosts: [],
    misses: join(repoRoot, 'eval-output', 'misses.json'),
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--json') options.json = true;
    else if (arg === '--corpus') options.corpus = resolve(value());
    else if (arg === '--seed') options.seed = Number.parseInt(value(), 10);
    else if (arg === '--allow-hosts') options.allowHosts = value().split(',').filter(Boolean);
    else if (arg === '--misses') options.misses = resolve(value());
    else throw new Error(`unknown argument ${JSON.stringify(arg)}`);
  }
  return options;
}

const log = (line: string): void => void process.stderr.write(`eval: ${line}\n`);

function round(value: number): number {
  return Math.round(value * 10000) / 10000;
}

function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : round(part / whole);
}

function matchedRules(outcome: ScanOutcome): string[] {
  return outcome.events.flatMap((e) => (e.type === 'match' ? [e.rule] : []));
}

/** Changed the text or raised any event (a flag, an error). */
function touched(text: string, outcome: ScanOutcome): boolean {
  return outcome.output !== text || outcome.blocked || outcome.events.length > 0;
}

/** A short, single-line excerpt for the misses file (local and gitignored). */
function excerpt(text: string): string {
  const one = JSON.stringify(text);
  return one.length > 200 ? `${one.slice(0, 197)}...` : one;
}

class Runner {
  readonly all: CompiledPack;
  private readonly byName = new Map<string, CompiledPack>();
  private readonly random: SeededRandom;
  chunkedEqualsWhole = true;
  readonly chunkFailures: string[] = [];

  constructor(options: Options) {
    const compile = { allowedImageHosts: options.allowHosts };
    this.all = compileGuardPack(compile);
    for (const name of BUILTIN_PACK_NAMES) {
      this.byName.set(name, compileGuardPack({ ...compile, packs: [name] }));
    }
    this.random = new SeededRandom(options.seed);
  }

  pack(name: string): CompiledPack {
    const pack = this.byName.get(name);
    if (pack === undefined) throw new Error(`no built-in pack ${name}`);
    return pack;
  }

  /** Whole-text run of the whole set, checked against a random chunking of it. */
  runAll(where: string, text: string): ScanOutcome {
    const { whole, equal } = wholeAndChunked(this.all, text, this.random);
    if (!equal) {
      this.chunkedEqualsWhole = false;
      this.chunkFailures.push(where);
    }
    return whole;
  }
}

interface Judged {
  sample: Sample;
  own: ScanOutcome;
  all: ScanOutcome;
}

function judgeSamples(
  runner: Runner,
  packName: string,
  where: string,
  samples: readonly Sample[],
): Judged[] {
  const own = runner.pack(packName);
  return samples.map((sample) => {
    const all = runner.runAll(`${where}:${sample.row}`, sample.text);
    const ownOutcome = own === runner.all ? all : scanWhole(own, sample.text);
    return { sample, own: ownOutcome, all };
  });
}

function scanWhole(pack: CompiledPack, text: string): ScanOutcome {
  return scanText(pack, text);
}

interface MissGroup {
  count: number;
  rows: { row: number; sample: string; rules?: string[] }[];
}

function groupBy(
  items: readonly Judged[],
  key: (j: Judged) => string[],
  withRules: boolean,
): Record<string, MissGroup> {
  const groups: Record<string, MissGroup> = {};
  for (const j of items) {
    for (const k of key(j)) {
      const g = (groups[k] ??= { count: 0, rows: [] });
      g.count++;
      const row: MissGroup['rows'][number] = { row: j.sample.row, sample: excerpt(j.sample.text) };
      if (withRules) row.rules = [...new Set(matchedRules(j.own))];
      g.rows.push(row);
    }
  }
  return Object.fromEntries(Object.entries(groups).sort((a, b) => b[1].count - a[1].count));
}

function recallBy(items: readonly Judged[], key: (j: Judged) => string) {
  const stats: Record<string, { recall: number; n: number }> = {};
  const counts = new Map<string, { hit: number; n: number }>();
  for (const j of items) {
    const k = key(j);
    const c = counts.get(k) ?? { hit: 0, n: 0 };
    c.n++;
    if (touched(j.sample.text, j.own)) c.hit++;
    counts.set(k, c);
  }
  for (const [k, c] of [...counts].sort()) stats[k] = { recall: ratio(c.hit, c.n), n: c.n };
  return stats;
}

function main(): void {
  const options = parseOptions(process.argv.slice(2));
  const dir = options.corpus;
  const runner = new Runner(options);
  log(`corpus ${dir}; pack ${runner.all.name}@${runner.all.version}; seed ${options.seed}`);
  const misses: Record<string, unknown> = {};

  // secrets
  const secretPos = judgeSamples(
    runner,
    'secrets',
    'secrets+',
    readTsvSamples(join(dir, 'secrets_positive.tsv')),
  );
  const secretNeg = judgeSamples(
    runner,
    'secrets',
    'secrets-',
    readTsvSamples(join(dir, 'secrets_negative.tsv')),
  );
  const sourceOf = (j: Judged): string => j.sample.label.split('/')[0] ?? '';
  const secretMissed = secretPos.filter((j) => !touched(j.sample.text, j.own));
  const secretFp = secretNeg.filter((j) => touched(j.sample.text, j.own));
  const secrets = {
    recall: ratio(secretPos.length - secretMissed.length, secretPos.length),
    fp_rate: ratio(secretFp.length, secretNeg.length),
    per_source: recallBy(secretPos, sourceOf),
    positives: secretPos.length,
    negatives: secretNeg.length,
    fp_rate_all_packs: ratio(
      secretNeg.filter((j) => touched(j.sample.text, j.all)).length,
      secretNeg.length,
    ),
  };
  misses.secrets = {
    missed_by_label: groupBy(secretMissed, (j) => [j.sample.label], false),
    false_positives_by_rule: groupBy(secretFp, (j) => [...new Set(matchedRules(j.own))], false),
  };

  // exfil
  const shapes = readProvenance(join(dir, 'markdown_exfil_positive.meta.tsv'), 'shape');
  const exfilPos = judgeSamples(
    runner,
    'exfil',
    'exfil+',
    readTextSamples(join(dir, 'markdown_exfil_positive.txt')).map((s, i) => ({
      ...s,
      label: shapes[i] ?? '',
    })),
  );
  const benignLinks = judgeSamples(
    runner,
    'exfil',
    'links-',
    readTextSamples(join(dir, 'markdown_links_benign.txt')),
  );
  const exfilMissed = exfilPos.filter((j) => !touched(j.sample.text, j.own));
  const linksChanged = benignLinks.filter((j) => touched(j.sample.text, j.own));
  const isImage = (j: Judged): boolean => /!\[/.test(j.sample.text);
  const exfil = {
    recall: ratio(exfilPos.length - exfilMissed.length, exfilPos.length),
    benign_links_changed: ratio(linksChanged.length, benignLinks.length),
    per_shape: recallBy(exfilPos, (j) => j.sample.label),
    benign_links: benignLinks.length,
    benign_changed_count: linksChanged.length,
    benign_changed_images: linksChanged.filter(isImage).length,
    benign_changed_links_without_image: linksChanged.filter((j) => !isImage(j)).length,
    allowed_hosts: options.allowHosts,
  };
  misses.exfil = {
    missed_by_shape: groupBy(exfilMissed, (j) => [j.sample.label], false),
    benign_changed_by_rule: groupBy(linksChanged, (j) => [...new Set(matchedRules(j.own))], false),
  };

  // injection
  const categories = (name: string): string[] => readProvenance(join(dir, name), 'category');
  const withCategory = (samples: Sample[], cats: string[]): Sample[] =>
    samples.map((s, i) => ({ ...s, label: cats[i] ?? '' }));
  const injPos = judgeSamples(
    runner,
    'injection',
    'injection+',
    withCategory(
      readTextSamples(join(dir, 'injection_positive.txt')),
      categories('injection_positive.meta.tsv'),
    ),
  );
  const injNeg = judgeSamples(
    runner,
    'injection',
    'injection-',
    withCategory(
      readTextSamples(join(dir, 'injection_negative.txt')),
      categories('injection_negative.meta.tsv'),
    ),
  );
  const injMissed = injPos.filter((j) => !touched(j.sample.text, j.own));
  const injFp = injNeg.filter((j) => touched(j.sample.text, j.own));
  const injection = {
    recall: ratio(injPos.length - injMissed.length, injPos.length),
    fp_rate: ratio(injFp.length, injNeg.length),
    per_source: recallBy(injPos, (j) => j.sample.label.split('-')[0] ?? ''),
    positives: injPos.length,
    negatives: injNeg.length,
    fp_rate_all_packs: ratio(
      injNeg.filter((j) => touched(j.sample.text, j.all)).length,
      injNeg.length,
    ),
    note: 'single turn: rules that are off until injection-suspected is raised in an earlier turn do not run',
  };
  misses.injection = {
    recall_by_category: recallBy(injPos, (j) => j.sample.label),
    missed_by_category: groupBy(injMissed, (j) => [j.sample.label], false),
    false_positives_by_rule: groupBy(injFp, (j) => [...new Set(matchedRules(j.own))], false),
  };

  // pii: the corpus has no pii samples; measure what is measurable (findings on negatives).
  const piiPack = runner.pack('pii');
  const negatives = [...secretNeg, ...injNeg, ...benignLinks];
  const piiOnNegatives = negatives.filter((j) =>
    touched(j.sample.text, scanWhole(piiPack, j.sample.text)),
  );

  // benign files: the whole built-in set
  const files = readBenignFiles(join(dir, 'benign'));
  let bytes = 0;
  let findings = 0;
  let piiFindings = 0;
  const perRule: Record<string, number> = {};
  const byAction: Record<string, number> = {};
  const byKind: Record<string, number> = {};
  const benignHits: Record<string, { file: string; match: string }[]> = {};
  for (const file of files) {
    const outcome = runner.runAll(`benign/${file.path}`, file.text);
    bytes += file.bytes;
    // Event offsets are code points (guard-event.ts).
    const points = Array.from(file.text);
    for (const e of outcome.events) {
      if (e.type !== 'match') continue;
      findings++;
      if (e.kind === 'pii') piiFindings++;
      perRule[e.rule] = (perRule[e.rule] ?? 0) + 1;
      byAction[e.action] = (byAction[e.action] ?? 0) + 1;
      byKind[e.kind] = (byKind[e.kind] ?? 0) + 1;
      (benignHits[e.rule] ??= []).push({
        file: file.path,
        match: excerpt(points.slice(e.start, e.end).join('')),
      });
    }
  }
  const perMb = (n: number): number => round(n / (bytes / 1e6 || 1));
  // A flag leaves the text as it was (the person sees a notice); a redact or
  // block changes what they read. Both are findings; the split is reported so
  // neither hides the other.
  const changing = (byAction.redact ?? 0) + (byAction.block ?? 0);
  const benign_files = {
    bytes,
    findings,
    per_mb: perMb(findings),
    by_action: byAction,
    by_kind: byKind,
    changing_findings: changing,
    changing_per_mb: perMb(changing),
    flag_only_findings: byAction.flag ?? 0,
    per_rule: perRule,
    files: files.length,
  };
  misses.benign_files = benignHits;
  const pii = {
    recall: null,
    measurable:
      "no pii samples in the corpus: recall not measured. flagged_rate: share of the other corpora's negatives (secrets, injection, benign links) the pii pack changes or flags; some of those texts do hold (fictional) e-mail addresses and phone numbers, so it bounds the false-positive rate from above",
    negatives: negatives.length,
    flagged_rate: ratio(piiOnNegatives.length, negatives.length),
    benign_findings: piiFindings,
  };
  misses.pii = {
    false_positives_by_rule: groupBy(
      piiOnNegatives,
      (j) => [...new Set(matchedRules(scanWhole(piiPack, j.sample.text)))],
      false,
    ),
  };
  misses.chunked_failures = runner.chunkFailures;

  mkdirSync(dirname(options.misses), { recursive: true });
  writeFileSync(options.misses, JSON.stringify(misses, null, 2) + '\n');

  const report = {
    secrets,
    pii,
    exfil,
    injection,
    benign_files,
    chunked_equals_whole: runner.chunkedEqualsWhole,
  };
  if (!options.json) {
    log(
      `secrets   recall ${secrets.recall} fp_rate ${secrets.fp_rate} (${secretPos.length}+/${secretNeg.length}-)`,
    );
    log(
      `exfil     recall ${exfil.recall} benign links changed ${linksChanged.length}/${benignLinks.length}`,
    );
    log(`injection recall ${injection.recall} fp_rate ${injection.fp_rate}`);
    log(`pii       flagged on other negatives ${pii.flagged_rate}, benign findings ${piiFindings}`);
    log(
      `benign    ${findings} findings in ${bytes} bytes (${benign_files.per_mb}/MB; ${changing} change the text, ${benign_files.flag_only_findings} flags)`,
    );
    log(`chunked = whole: ${runner.chunkedEqualsWhole}; misses in ${options.misses}`);
  }
  process.stdout.write(JSON.stringify(report) + '\n');
}

main();
