/**
 * `npm run eval [-- --json] [--corpus DIR] [--seed N] [--allow-hosts a,b] [--wild-mb N]`:
 * detection quality of the built-in packs on ../shared/eval (issue 6, issue 17
 * §4–5), data nobody on this team wrote, and on text already on this machine
 * that nobody tuned for (`benign_wild`). Progress and a readable summary go to
 * stderr; stdout's last line is one JSON object:
 * `{"secrets":{recall,fp_rate,per_source,ambiguous,…},"pii":{…},
 *   "exfil":{recall,benign_links_changed,…},"injection":{recall,fp_rate,…},
 *   "benign_files":{bytes,changing,changing_per_mb,flags,flags_per_mb,…},
 *   "benign_wild":{mb,files,changing,changing_per_mb,flags,flags_per_mb,top_changing,top_flags,…},
 *   "chunked_equals_whole","targets":{"secrets.recall":{value,op,target,met},…},"targets_met"}`.
 *
 * - The engine runs as the extension runs it on answers: the whole built-in set
 *   merged, with the default answer policy per kind (a floor: `secret: redact`
 *   turns a secret rule's flag into a redaction; docs/settings.md).
 * - A positive is detected when its own pack changes the text or flags it;
 *   a negative is a false positive when its own pack changes or flags anything
 *   (`fp_rate_all_packs`: when the whole built-in set does).
 * - `secrets_ambiguous.tsv` (rows the source tools call negative although they
 *   hold a credential-shaped value) is reported row by row — redacted or not,
 *   by which rules — and counted neither way.
 * - `benign_files` (benign/ of the corpus) and `benign_wild` (READMEs and
 *   licences under node_modules/, /usr/share/doc, man pages; eval/wild-corpus.ts)
 *   count the whole set's findings per MB, split into changing ones (redact,
 *   block, errors: the page sees different text) and flags (the text stays,
 *   a notice is shown). The benign_files target counts changing ones only.
 * - Every sample and file also runs through the whole set in seeded random
 *   chunks; `chunked_equals_whole` says every one gave the same output and events.
 * - Local triage files in eval-output/ (gitignored; never copy them into rules
 *   or tests): misses.json (per-rule misses and false positives),
 *   false-positives.json (false positives by rule with their text: secrets
 *   negatives, benign files, benign_wild), benign-wild.json (benign_wild per
 *   rule with the first findings' file, offset and line; no matched text).
 * Defaults: no allow-listed image/link host (the product's default), seed 1,
 * benign_wild capped at 40 MB (`--wild-mb 0` skips it).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ScanOutcome, scanText } from '../src/core/guard/scan-text.ts';
import type { GuardOptions } from '../src/core/guard/stream-guard.ts';
import { BUILTIN_PACK_NAMES, compileGuardPack } from '../src/core/rules/builtin-packs.ts';
import type { CompiledPack } from '../src/core/rules/compile-pack.ts';
import { DEFAULT_INCOMING_POLICY } from '../src/background/default-settings.ts';
import { SeededRandom } from '../bench/seeded-random.ts';
import { wholeAndChunked } from './eval/chunked-run.ts';
import {
  type Sample,
  readBenignFiles,
  readProvenance,
  readTextSamples,
  readTsvSamples,
} from './eval/corpus.ts';
import { FindingTally } from './eval/finding-tally.ts';
import { checkTargets } from './eval/targets.ts';
import { defaultWildSources, readWildEntry, selectWild } from './eval/wild-corpus.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface Options {
  json: boolean;
  corpus: string;
  seed: number;
  allowHosts: string[];
  misses: string;
  /** Cap of the benign_wild scan in MB of text; 0 skips it. */
  wildMb: number;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = {
    json: false,
    corpus: resolve(repoRoot, '../shared/eval'),
    seed: 1,
    allowHosts: [],
    misses: join(repoRoot, 'eval-output', 'misses.json'),
    wildMb: 40,
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
    else if (arg === '--wild-mb') {
      const mb = Number(value());
      if (!Number.isFinite(mb) || mb < 0) throw new Error('--wild-mb needs a number ≥ 0');
      options.wildMb = mb;
    } else throw new Error(`unknown argument ${JSON.stringify(arg)}`);
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

/** A short, single-line excerpt for the local triage files (gitignored). */
function excerpt(text: string): string {
  const one = JSON.stringify(text);
  return one.length > 200 ? `${one.slice(0, 197)}...` : one;
}

/** How the extension runs the guard on answers: the default policy per kind (a floor). */
const ANSWER_OPTIONS: GuardOptions = { policy: { ...DEFAULT_INCOMING_POLICY } };

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
    const { whole, equal } = wholeAndChunked(this.all, text, this.random, ANSWER_OPTIONS);
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
  return scanText(pack, text, ANSWER_OPTIONS);
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

/**
 * A `.tsv` with its `*.sources.tsv`: the provenance has one row per sample and
 * names the same rule, so a relabelled file is read with its own provenance.
 */
function provenanceAligned(dir: string, name: string, samples: readonly Sample[]): boolean {
  const rules = readProvenance(join(dir, name.replace(/\.tsv$/, '.sources.tsv')), 'rule');
  return rules.length === samples.length && samples.every((s, i) => rules[i] === s.label);
}

/** How the guard (whole set, answer policy) treats one ambiguous row; counted neither way. */
function ambiguousRow(runner: Runner, sample: Sample, line: string | undefined) {
  const outcome = runner.runAll(`secrets?:${sample.row}`, sample.text);
  const changed = outcome.output !== sample.text || outcome.blocked;
  return {
    row: sample.row,
    line: line === undefined || line === '' ? null : Number(line),
    label: sample.label,
    redacted: changed,
    flagged: !changed && outcome.events.length > 0,
    rules: outcome.events.map((e) =>
      e.type === 'match'
        ? { rule: e.rule, action: e.action }
        : { rule: `error:${e.rule ?? 'engine'}`, action: 'error' },
    ),
  };
}

/** Wall-clock seconds since `start` (performance.now()), one decimal. */
function seconds(start: number): number {
  return Math.round((performance.now() - start) / 100) / 10;
}

function main(): void {
  const started = performance.now();
  const options = parseOptions(process.argv.slice(2));
  const dir = options.corpus;
  const runner = new Runner(options);
  log(`corpus ${dir}; pack ${runner.all.name}@${runner.all.version}; seed ${options.seed}`);
  const misses: Record<string, unknown> = {};
  const falsePositives: Record<string, unknown> = {
    note: 'local triage only (eval-output/ is gitignored): never copy these into rules or tests',
  };

  // secrets: the relabelled corpus (../shared/eval/README.md), ambiguous rows apart
  const positiveSamples = readTsvSamples(join(dir, 'secrets_positive.tsv'));
  const negativeSamples = readTsvSamples(join(dir, 'secrets_negative.tsv'));
  const ambiguousPath = join(dir, 'secrets_ambiguous.tsv');
  const ambiguousSamples = existsSync(ambiguousPath) ? readTsvSamples(ambiguousPath) : [];
  const secretPos = judgeSamples(runner, 'secrets', 'secrets+', positiveSamples);
  const secretNeg = judgeSamples(runner, 'secrets', 'secrets-', negativeSamples);
  const sourceOf = (j: Judged): string => j.sample.label.split('/')[0] ?? '';
  const secretMissed = secretPos.filter((j) => !touched(j.sample.text, j.own));
  const secretFp = secretNeg.filter((j) => touched(j.sample.text, j.own));
  const secretFpAll = secretNeg.filter((j) => touched(j.sample.text, j.all));
  const ambiguousLines = readProvenance(join(dir, 'secrets_ambiguous.sources.tsv'), 'line');
  const ambiguousRows = ambiguousSamples.map((s, i) => ambiguousRow(runner, s, ambiguousLines[i]));
  const counted = new Set([...positiveSamples, ...negativeSamples].map((s) => s.text));
  const secrets = {
    recall: ratio(secretPos.length - secretMissed.length, secretPos.length),
    fp_rate: ratio(secretFp.length, secretNeg.length),
    per_source: recallBy(secretPos, sourceOf),
    positives: secretPos.length,
    negatives: secretNeg.length,
    fp_rate_all_packs: ratio(secretFpAll.length, secretNeg.length),
    provenance_aligned:
      provenanceAligned(dir, 'secrets_positive.tsv', positiveSamples) &&
      provenanceAligned(dir, 'secrets_negative.tsv', negativeSamples) &&
      (ambiguousSamples.length === 0 ||
        provenanceAligned(dir, 'secrets_ambiguous.tsv', ambiguousSamples)),
    ambiguous: {
      counted: false,
      rows: ambiguousRows.length,
      redacted: ambiguousRows.filter((r) => r.redacted).length,
      flagged_only: ambiguousRows.filter((r) => r.flagged).length,
      untouched: ambiguousRows.filter((r) => !r.redacted && !r.flagged).length,
      also_in_counted_files: ambiguousSamples.filter((s) => counted.has(s.text)).length,
      per_row: ambiguousRows,
    },
  };
  if (!secrets.provenance_aligned) log('warning: a secrets .tsv and its .sources.tsv disagree');
  misses.secrets = {
    missed_by_label: groupBy(secretMissed, (j) => [j.sample.label], false),
    false_positives_by_rule: groupBy(secretFp, (j) => [...new Set(matchedRules(j.own))], false),
  };
  falsePositives.secrets_negatives = {
    own_pack_by_rule: groupBy(secretFp, (j) => [...new Set(matchedRules(j.own))], false),
    all_packs_by_rule: groupBy(secretFpAll, (j) => [...new Set(matchedRules(j.all))], false),
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
  const samplesSeconds = seconds(started);

  // benign files: the whole built-in set
  const files = readBenignFiles(join(dir, 'benign'));
  const benignTally = new FindingTally({ keepPerRule: 50 });
  let findings = 0;
  let piiFindings = 0;
  const byAction: Record<string, number> = {};
  const byKind: Record<string, number> = {};
  const perRule: Record<string, number> = {};
  const benignHits: Record<string, { file: string; match: string }[]> = {};
  for (const file of files) {
    const outcome = runner.runAll(`benign/${file.path}`, file.text);
    benignTally.add(file.path, 'benign', file.text, outcome);
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
  // A flag leaves the text as it was (the person sees a notice); a redact, a
  // block or an error changes what they read. The target counts changing ones;
  // flags are reported beside them so neither hides the other.
  const benign_files = {
    bytes: benignTally.bytes,
    files: files.length,
    changing: benignTally.changing,
    changing_per_mb: benignTally.perMb(benignTally.changing),
    flags: benignTally.flags,
    flags_per_mb: benignTally.perMb(benignTally.flags),
    changing_per_rule: benignTally.perRule('changing'),
    flags_per_rule: benignTally.perRule('flags'),
    errors: benignTally.errors,
    // Kept for readers of the earlier report: every match event, whatever its action.
    findings,
    per_mb: benignTally.perMb(findings),
    by_action: byAction,
    by_kind: byKind,
    changing_findings: benignTally.changing,
    flag_only_findings: benignTally.flags,
    per_rule: perRule,
  };
  misses.benign_files = benignHits;
  falsePositives.benign_files = {
    changing_by_rule: benignTally.withText('changing'),
    flags_by_rule: benignTally.withText('flags'),
  };
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

  // benign_wild: text on this machine nobody tuned for (eval/wild-corpus.ts)
  const wildStarted = performance.now();
  const wild = options.wildMb > 0 ? benignWild(runner, options.wildMb) : null;
  const wildSeconds = seconds(wildStarted);
  const benign_wild =
    wild === null
      ? { skipped: true, cap_mb: 0 }
      : {
          mb: round(wild.tally.mb),
          files: wild.tally.files,
          changing: wild.tally.changing,
          changing_per_mb: wild.tally.perMb(wild.tally.changing),
          flags: wild.tally.flags,
          flags_per_mb: wild.tally.perMb(wild.tally.flags),
          top_changing: wild.tally.top('changing', 10),
          top_flags: wild.tally.top('flags', 10),
          errors: wild.tally.errors,
          cap_mb: options.wildMb,
          sources: Object.fromEntries(
            Object.entries(wild.sources).map(([name, s]) => [
              name,
              { files: s.files, mb: s.mb, sampled: s.sampled },
            ]),
          ),
          man_pages: 'roff stripped lightly (scripts/eval/roff-text.ts)',
        };
  if (wild !== null) {
    falsePositives.benign_wild = {
      changing_by_rule: wild.tally.withText('changing'),
      flags_by_rule: wild.tally.withText('flags'),
    };
  }
  misses.chunked_failures = runner.chunkFailures;

  const targets = checkTargets({
    secretsRecall: secrets.recall,
    secretsFpRate: secrets.fp_rate,
    benignFilesChangingPerMb: benign_files.changing_per_mb,
    benignWildChangingPerMb: wild === null ? null : wild.tally.perMb(wild.tally.changing),
    exfilRecall: exfil.recall,
    exfilBenignLinksChanged: exfil.benign_changed_count,
    injectionFpRate: injection.fp_rate,
  });
  const targetsMet = Object.values(targets).every((t) => t.met);

  const out = dirname(options.misses);
  mkdirSync(out, { recursive: true });
  writeFileSync(options.misses, JSON.stringify(misses, null, 2) + '\n');
  writeFileSync(join(out, 'false-positives.json'), JSON.stringify(falsePositives, null, 2) + '\n');
  if (wild !== null) {
    const wildReport = {
      note: 'places only (file, offset in code points of the scanned text, line); the matched text is in false-positives.json',
      pack: `${runner.all.name}@${runner.all.version}`,
      policy: DEFAULT_INCOMING_POLICY,
      seconds: wildSeconds,
      ...benign_wild,
      source_details: wild.sources,
      changing_by_rule: wild.tally.detail('changing', 5),
      flags_by_rule: wild.tally.detail('flags', 5),
    };
    writeFileSync(join(out, 'benign-wild.json'), JSON.stringify(wildReport, null, 2) + '\n');
  }

  const report = {
    secrets,
    pii,
    exfil,
    injection,
    benign_files,
    benign_wild,
    chunked_equals_whole: runner.chunkedEqualsWhole,
    targets,
    targets_met: targetsMet,
  };
  log(
    `time: samples ${samplesSeconds} s, benign_wild ${wildSeconds} s, total ${seconds(started)} s`,
  );
  if (!options.json) {
    log(
      `secrets   recall ${secrets.recall} fp_rate ${secrets.fp_rate} (${secretPos.length}+/${secretNeg.length}-); ambiguous ${secrets.ambiguous.redacted}/${secrets.ambiguous.rows} redacted (not counted)`,
    );
    log(
      `exfil     recall ${exfil.recall} benign links changed ${linksChanged.length}/${benignLinks.length}`,
    );
    log(`injection recall ${injection.recall} fp_rate ${injection.fp_rate}`);
    log(`pii       flagged on other negatives ${pii.flagged_rate}, benign findings ${piiFindings}`);
    log(
      `benign    ${benign_files.changing} changing (${benign_files.changing_per_mb}/MB), ${benign_files.flags} flags (${benign_files.flags_per_mb}/MB) in ${benign_files.bytes} bytes`,
    );
    if (wild !== null) {
      log(
        `wild      ${benign_wild.changing} changing (${benign_wild.changing_per_mb}/MB), ${benign_wild.flags} flags (${benign_wild.flags_per_mb}/MB) in ${benign_wild.mb} MB, ${benign_wild.files} files`,
      );
    }
    for (const [figure, t] of Object.entries(targets)) {
      log(`target    ${figure} ${t.value} ${t.op} ${t.target}: ${t.met ? 'met' : 'NOT met'}`);
    }
    log(`chunked = whole: ${runner.chunkedEqualsWhole}; triage files in ${out}`);
  }
  process.stdout.write(JSON.stringify(report) + '\n');
}

/** Selects the wild corpus under the cap and runs the whole set over it. */
function benignWild(runner: Runner, capMb: number) {
  const selection = selectWild(defaultWildSources(repoRoot), capMb * 1e6);
  const tally = new FindingTally({ keepPerRule: 50 });
  let next = 0;
  for (const entry of selection.entries) {
    const text = readWildEntry(entry);
    tally.add(entry.shown, entry.source, text, runner.runAll(`wild:${entry.shown}`, text));
    if (tally.bytes >= next) {
      log(`benign_wild: ${Math.round(tally.mb)} MB of ${capMb} scanned`);
      next += 10e6;
    }
  }
  return { tally, sources: selection.sources };
}

main();
