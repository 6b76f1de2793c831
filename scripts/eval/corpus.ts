/**
 * Reading ../shared/eval (its README): one sample per line, a backslash
 * escapes the next character (`\\`, `\n` LF, `\r` CR, `\t` TAB); `.tsv` rows
 * are `label<TAB>sample` with a header-less first column, provenance in the
 * `*.sources.tsv` / `*.meta.tsv` files in the same row order.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t' };

export function unescapeSample(line: string): string {
  let out = '';
  for (let i = 0; i < line.length; i++) {
    const c = line.charAt(i);
    if (c === '\\' && i + 1 < line.length) {
      const next = line.charAt(++i);
      out += ESCAPES[next] ?? next;
    } else {
      out += c;
    }
  }
  return out;
}

function lines(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  const all = text.split('\n');
  if (all[all.length - 1] === '') all.pop();
  return all.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

export interface Sample {
  /** Row number (1-based) in its file. */
  row: number;
  text: string;
  /** The label column of a `.tsv` (e.g. `gitleaks/github-pat`), or the file's shape/category. */
  label: string;
}

export function readTextSamples(path: string): Sample[] {
  return lines(path).map((l, i) => ({ row: i + 1, text: unescapeSample(l), label: '' }));
}

export function readTsvSamples(path: string): Sample[] {
  return lines(path).map((l, i) => {
    const tab = l.indexOf('\t');
    return {
      row: i + 1,
      label: tab < 0 ? '' : l.slice(0, tab),
      text: unescapeSample(tab < 0 ? l : l.slice(tab + 1)),
    };
  });
}

/** A provenance column (by header name) of a `*.meta.tsv` / `*.sources.tsv`, in row order. */
export function readProvenance(path: string, column: string): string[] {
  if (!existsSync(path)) return [];
  const [header, ...rows] = lines(path);
  const index = (header ?? '').split('\t').indexOf(column);
  if (index < 0) return [];
  return rows.map((r) => r.split('\t')[index] ?? '');
}

export interface CorpusFile {
  path: string;
  text: string;
  bytes: number;
}

/** Every file under `dir` except the manifest, as UTF-8 text. */
export function readBenignFiles(dir: string): CorpusFile[] {
  const out: CorpusFile[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name !== 'MANIFEST.tsv') {
        const buffer = readFileSync(full);
        out.push({
          path: relative(dir, full),
          text: buffer.toString('utf8'),
          bytes: buffer.length,
        });
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}
