/**
 * Findings of the whole built-in set in ordinary text (benign_files,
 * benign_wild; issue 17 §4–5), split the way a person meets them:
 *
 * - changing: a redact or block (the page sees different text), and an error
 *   event (the stream fails closed, which changes it too);
 * - flags: the text stays as it was and a notice is shown (e-mail addresses in
 *   answers, injection markers).
 *
 * Per rule it keeps counts, the files they came from and the first findings
 * (file, offset, line). The matched text is kept separately (`withText`), only
 * for the local triage file in eval-output/; summaries never carry it.
 */
import type { ScanOutcome } from '../../src/core/guard/scan-text.ts';

export interface FindingPlace {
  file: string;
  /** Offset in code points of the file's scanned text (as guard events count). */
  offset: number;
  /** 1-based line of the offset. */
  line: number;
  rule: string;
  action: string;
}

export interface FindingWithText extends FindingPlace {
  match: string;
  /** Up to 60 code units either side, one line. */
  context: string;
}

interface RuleTally {
  kind: string;
  count: number;
  files: Map<string, number>;
  bySource: Record<string, number>;
  first: FindingWithText[];
}

export interface TallyOptions {
  /** Findings kept per rule with their place (and text, for the triage file). */
  keepPerRule: number;
}

/** UTF-16 index and 1-based line of each code-point offset (sorted ascending), in one pass. */
export function locate(
  text: string,
  offsets: readonly number[],
): { index: number; line: number }[] {
  const out: { index: number; line: number }[] = [];
  let index = 0;
  let point = 0;
  let line = 1;
  for (const offset of offsets) {
    while (point < offset && index < text.length) {
      const code = text.charCodeAt(index);
      if (code === 10) line++;
      const high = code >= 0xd800 && code <= 0xdbff;
      const next = text.charCodeAt(index + 1);
      index += high && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
      point++;
    }
    out.push({ index, line });
  }
  return out;
}

function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, ' ');
}

export class FindingTally {
  bytes = 0;
  files = 0;
  changing = 0;
  flags = 0;
  errors = 0;
  private readonly changingRules = new Map<string, RuleTally>();
  private readonly flagRules = new Map<string, RuleTally>();

  constructor(private readonly options: TallyOptions = { keepPerRule: 20 }) {}

  add(file: string, source: string, text: string, outcome: ScanOutcome): void {
    this.files++;
    this.bytes += Buffer.byteLength(text, 'utf8');
    const wanted: {
      offset: number;
      end: number;
      rule: string;
      action: string;
      tally: RuleTally;
    }[] = [];
    const pending = new Map<RuleTally, number>();
    for (const e of outcome.events) {
      let rule: string;
      let action: string;
      let kind: string;
      let start: number;
      let end: number;
      let changes: boolean;
      if (e.type === 'match') {
        ({ rule, action, kind, start, end } = e);
        changes = action !== 'flag';
      } else {
        rule = `error:${e.rule ?? 'engine'}`;
        action = 'error';
        kind = 'error';
        start = e.at;
        end = e.at;
        changes = true;
        this.errors++;
      }
      if (changes) this.changing++;
      else this.flags++;
      const map = changes ? this.changingRules : this.flagRules;
      let tally = map.get(rule);
      if (tally === undefined) {
        tally = { kind, count: 0, files: new Map(), bySource: {}, first: [] };
        map.set(rule, tally);
      }
      tally.count++;
      tally.files.set(file, (tally.files.get(file) ?? 0) + 1);
      tally.bySource[source] = (tally.bySource[source] ?? 0) + 1;
      const queued = pending.get(tally) ?? 0;
      if (tally.first.length + queued < this.options.keepPerRule) {
        pending.set(tally, queued + 1);
        wanted.push({ offset: start, end, rule, action, tally });
      }
    }
    if (wanted.length === 0) return;
    const points = [...new Set(wanted.flatMap((w) => [w.offset, w.end]))].sort((a, b) => a - b);
    const places = new Map(locate(text, points).map((p, i) => [points[i] ?? 0, p]));
    for (const w of wanted) {
      const from = places.get(w.offset) ?? { index: 0, line: 1 };
      const to = places.get(w.end) ?? from;
      w.tally.first.push({
        file,
        offset: w.offset,
        line: from.line,
        rule: w.rule,
        action: w.action,
        match: text.slice(from.index, to.index),
        context: oneLine(
          text.slice(Math.max(0, from.index - 60), Math.min(text.length, to.index + 60)),
        ),
      });
    }
  }

  get mb(): number {
    return this.bytes / 1e6;
  }

  perMb(count: number): number {
    return this.bytes === 0 ? 0 : Math.round((count / this.mb) * 10000) / 10000;
  }

  /** Counts per rule, largest first. */
  perRule(which: 'changing' | 'flags'): Record<string, number> {
    return Object.fromEntries(this.sorted(which).map(([rule, t]) => [rule, t.count]));
  }

  top(which: 'changing' | 'flags', n: number): { rule: string; count: number }[] {
    return this.sorted(which)
      .slice(0, n)
      .map(([rule, t]) => ({ rule, count: t.count }));
  }

  /**
   * Per rule: kind, count, files, counts by source, the files with the most
   * findings and the first findings' places — no text.
   */
  detail(which: 'changing' | 'flags', firstPlaces: number) {
    return this.sorted(which).map(([rule, t]) => ({
      rule,
      kind: t.kind,
      count: t.count,
      files: t.files.size,
      by_source: t.bySource,
      top_files: [...t.files]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, firstPlaces)
        .map(([file, count]) => ({ file, count })),
      first: t.first.slice(0, firstPlaces).map(({ file, offset, line, action }) => ({
        file,
        offset,
        line,
        action,
      })),
    }));
  }

  /** Per rule, the kept findings with their text: for eval-output/ only. */
  withText(
    which: 'changing' | 'flags',
  ): Record<string, { count: number; findings: FindingWithText[] }> {
    return Object.fromEntries(
      this.sorted(which).map(([rule, t]) => [rule, { count: t.count, findings: t.first }]),
    );
  }

  private sorted(which: 'changing' | 'flags'): [string, RuleTally][] {
    const map = which === 'changing' ? this.changingRules : this.flagRules;
    return [...map].sort((a, b) => b[1].count - a[1].count || (a[0] < b[0] ? -1 : 1));
  }
}
