/**
 * benign_wild (issue 17 §4): ordinary text already on this machine that nobody
 * tuned the rules on — the READMEs and licences under node_modules/, the
 * copyright files and READMEs under /usr/share/doc, and the man pages.
 *
 * - Files are listed in sorted path order (symbolic links are not followed),
 *   `.gz` files are decompressed, files with a NUL byte are skipped as binary,
 *   and identical contents (SHA-256 of the decompressed bytes) are scanned
 *   once, the first path in source order keeping it.
 * - Man pages go through a light roff strip (roff-text.ts), so the guard reads
 *   roughly what a person reads; the other files are scanned as they are.
 * - The total is capped (`capBytes`, UTF-8 bytes of the text scanned). Each
 *   source gets an equal share of the cap; a share a source does not fill goes
 *   to the others. A source larger than its share is sampled evenly over its
 *   sorted list (systematic sampling), so the sample spans all packages, sections
 *   and languages instead of the first letters of the alphabet. No family of
 *   files takes more than a tenth of its source's part while others could use
 *   the room (man pages by the name
 *   before the first `_` or `::`: sixteen thousand generated `gcloud_…` pages
 *   are one family, not four fifths of the sample). Scanned in sorted path
 *   order. Same machine, same cap: same files.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { stripRoff } from './roff-text.ts';

export interface WildSource {
  /** Short name used in the report (`node_modules`, `doc`, `man`). */
  name: string;
  root: string;
  /** Whether a file (by its base name) belongs to the source. */
  accept: (name: string) => boolean;
  /** Man pages: strip roff before scanning. */
  roff: boolean;
  /** How paths are shown: relative to this directory, or absolute when unset. */
  showRelativeTo?: string;
  /** The family a file belongs to, for sharing a capped source (all one family when unset). */
  family?: (path: string) => string;
}

/** Code, data and binary files that happen to be called README* or LICENSE*. */
const NOT_TEXT = new Set(
  'js mjs cjs ts mts cts jsx tsx json map png jpg jpeg gif svg ico webp wasm node woff woff2 ttf eot otf zip tgz'.split(
    ' ',
  ),
);

const README_OR_LICENCE = /^(readme|licen[cs]e|copying)/i;

function extension(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** A README, licence or copying file that is text by its name. */
export function isReadmeOrLicence(name: string): boolean {
  return README_OR_LICENCE.test(name) && !NOT_TEXT.has(extension(name));
}

/** Debian's per-package copyright files, and READMEs and licences, under /usr/share/doc. */
export function isDocFile(name: string): boolean {
  return /^copyright(\.gz)?$/i.test(name) || isReadmeOrLicence(name);
}

export function defaultWildSources(repoRoot: string): WildSource[] {
  return [
    {
      name: 'node_modules',
      root: join(repoRoot, 'node_modules'),
      accept: isReadmeOrLicence,
      roff: false,
      showRelativeTo: repoRoot,
    },
    { name: 'doc', root: '/usr/share/doc', accept: isDocFile, roff: false },
    { name: 'man', root: '/usr/share/man', accept: () => true, roff: true, family: manFamily },
  ];
}

/** `gcloud_compute_ssh.1.gz` → `gcloud`, `Net::HTTP.3pm.gz` → `Net`, `ls.1` → `ls`. */
export function manFamily(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const stem = name.replace(/\.gz$/, '').replace(/\.\d\w*$/, '');
  return stem.split(/_|::/)[0] ?? stem;
}

/** Regular files under `root` whose name `accept`s, in sorted path order, links not followed. */
export function listFiles(root: string, accept: (name: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const full = join(dir, name);
      let stat;
      try {
        stat = lstatSync(full);
      } catch {
        continue;
      }
      if (stat.isDirectory()) walk(full);
      else if (stat.isFile() && accept(name)) out.push(full);
    }
  };
  if (existsSync(root)) walk(root);
  return out;
}

/** The decompressed bytes of a file, or null when it is binary or cannot be read. */
export function readWildBytes(path: string): Buffer | null {
  try {
    let bytes = readFileSync(path);
    if (path.endsWith('.gz')) bytes = gunzipSync(bytes);
    return bytes.includes(0) ? null : bytes;
  } catch {
    return null;
  }
}

/** The text the guard scans for a file's bytes (UTF-8; roff stripped for man pages). */
export function wildText(bytes: Buffer, roff: boolean): string {
  const text = bytes.toString('utf8');
  return roff ? stripRoff(text) : text;
}

export interface WildEntry {
  source: string;
  /** Absolute path on disk. */
  path: string;
  /** Path as reported (relative to the repository for node_modules). */
  shown: string;
  roff: boolean;
  /** UTF-8 bytes of the scanned text. */
  bytes: number;
}

export interface WildSourceStats {
  root: string;
  /** Files of the source found (by name). */
  candidates: number;
  /** Skipped: a NUL byte, or unreadable / not gzip. */
  binary: number;
  /** Skipped: the same contents as a file listed before. */
  duplicates: number;
  /** Distinct text files and their size. */
  unique: number;
  unique_mb: number;
  /** What was scanned. */
  files: number;
  mb: number;
  /** True when only part of the source fitted its share of the cap. */
  sampled: boolean;
  /** The family with the most distinct text (see WildSource.family), unique and scanned. */
  largest_family: { name: string; unique: number; unique_mb: number; files: number; mb: number };
}

export interface WildSelection {
  entries: WildEntry[];
  sources: Record<string, WildSourceStats>;
}

const MB = 1e6;
const mb = (bytes: number): number => Math.round((bytes / MB) * 1000) / 1000;

/**
 * Shares of `cap` for sources of the given sizes: equal shares, a share a
 * source does not need passed on to the others (water filling).
 */
export function capShares(sizes: readonly number[], cap: number): number[] {
  const shares = sizes.map(() => 0);
  const order = sizes.map((size, i) => ({ size, i })).sort((a, b) => a.size - b.size || a.i - b.i);
  let left = cap;
  order.forEach(({ size, i }, k) => {
    const share = Math.min(size, left / (order.length - k));
    shares[i] = share;
    left -= share;
  });
  return shares;
}

/**
 * Systematic sampling in list order: item i is taken when the running sum of
 * weights (each in [0, 1]) crosses an integer, so a family with weight w keeps
 * about w of its files, spread evenly; weight 1 keeps every item. Then trimmed
 * so the sizes stay within `share`. Deterministic.
 */
export function systematicSample<T>(
  items: readonly T[],
  weight: (t: T) => number,
  size: (t: T) => number,
  share: number,
): T[] {
  const picked: T[] = [];
  let cumulative = 0;
  let sum = 0;
  for (const t of items) {
    const before = cumulative;
    cumulative += Math.min(1, Math.max(0, weight(t)));
    if (Math.floor(cumulative + 1e-9) === Math.floor(before + 1e-9)) continue;
    if (sum + size(t) > share) continue;
    picked.push(t);
    sum += size(t);
  }
  return picked;
}

/** No family takes more than this part of its source's share, unless the others leave room. */
export const FAMILY_CAP = 0.1;

/**
 * The share of each family (by total size) in `share`: each capped at
 * FAMILY_CAP of it and all scaled down together if they still exceed it; when
 * the capped families do not fill the share, equal shares instead (capShares),
 * so the room the small ones leave goes to the large ones.
 */
export function familyShares(sizes: readonly number[], share: number): number[] {
  const capped = sizes.map((size) => Math.min(size, FAMILY_CAP * share));
  const total = capped.reduce((a, b) => a + b, 0);
  if (total < share) return capShares(sizes, share);
  return capped.map((c) => (c * share) / total);
}

/** Lists, dedupes and caps the wild corpus (see the file comment). */
export function selectWild(sources: readonly WildSource[], capBytes: number): WildSelection {
  const seen = new Set<string>();
  const unique: WildEntry[][] = [];
  const stats: Record<string, WildSourceStats> = {};
  for (const source of sources) {
    const paths = listFiles(source.root, source.accept);
    const kept: WildEntry[] = [];
    let binary = 0;
    let duplicates = 0;
    for (const path of paths) {
      const bytes = readWildBytes(path);
      if (bytes === null) {
        binary++;
        continue;
      }
      const hash = createHash('sha256').update(bytes).digest('hex');
      if (seen.has(hash)) {
        duplicates++;
        continue;
      }
      seen.add(hash);
      const text = wildText(bytes, source.roff);
      kept.push({
        source: source.name,
        path,
        shown: source.showRelativeTo === undefined ? path : relative(source.showRelativeTo, path),
        roff: source.roff,
        bytes: Buffer.byteLength(text, 'utf8'),
      });
    }
    unique.push(kept);
    stats[source.name] = {
      root: source.root,
      candidates: paths.length,
      binary,
      duplicates,
      unique: kept.length,
      unique_mb: mb(kept.reduce((s, e) => s + e.bytes, 0)),
      files: 0,
      mb: 0,
      sampled: false,
      largest_family: { name: '', unique: 0, unique_mb: 0, files: 0, mb: 0 },
    };
  }
  const shares = capShares(
    unique.map((list) => list.reduce((s, e) => s + e.bytes, 0)),
    capBytes,
  );
  const entries: WildEntry[] = [];
  unique.forEach((list, i) => {
    const source = sources[i];
    const family = source?.family ?? (() => '');
    const picked = sampleByFamily(list, family, shares[i] ?? 0);
    const stat = stats[source?.name ?? ''];
    if (stat !== undefined) {
      stat.files = picked.length;
      stat.mb = mb(picked.reduce((s, e) => s + e.bytes, 0));
      stat.sampled = picked.length < list.length;
      stat.largest_family = largestFamily(list, picked, family);
    }
    entries.push(...picked);
  });
  return { entries, sources: stats };
}

/**
 * A source within `share`: whole when it fits; otherwise each family gets
 * familyShares() of it, sampled systematically over the sorted list.
 */
function sampleByFamily(
  list: readonly WildEntry[],
  family: (path: string) => string,
  share: number,
): WildEntry[] {
  const total = list.reduce((s, e) => s + e.bytes, 0);
  if (total <= share) return [...list];
  const sizes = new Map<string, number>();
  for (const e of list) sizes.set(family(e.path), (sizes.get(family(e.path)) ?? 0) + e.bytes);
  const names = [...sizes.keys()];
  const shares = familyShares(
    names.map((n) => sizes.get(n) ?? 0),
    share,
  );
  const weight = new Map(names.map((n, i) => [n, (shares[i] ?? 0) / (sizes.get(n) || 1)]));
  return systematicSample(
    list,
    (e) => weight.get(family(e.path)) ?? 0,
    (e) => e.bytes,
    share,
  );
}

function largestFamily(
  list: readonly WildEntry[],
  picked: readonly WildEntry[],
  family: (path: string) => string,
): WildSourceStats['largest_family'] {
  const sizes = new Map<
    string,
    { unique: number; uniqueBytes: number; files: number; bytes: number }
  >();
  const add = (e: WildEntry, scanned: boolean): void => {
    const name = family(e.path);
    const f = sizes.get(name) ?? { unique: 0, uniqueBytes: 0, files: 0, bytes: 0 };
    if (scanned) {
      f.files++;
      f.bytes += e.bytes;
    } else {
      f.unique++;
      f.uniqueBytes += e.bytes;
    }
    sizes.set(name, f);
  };
  for (const e of list) add(e, false);
  for (const e of picked) add(e, true);
  let best: [string, { unique: number; uniqueBytes: number; files: number; bytes: number }] = [
    '',
    { unique: 0, uniqueBytes: 0, files: 0, bytes: 0 },
  ];
  for (const entry of sizes) if (entry[1].uniqueBytes > best[1].uniqueBytes) best = entry;
  return {
    name: best[0],
    unique: best[1].unique,
    unique_mb: mb(best[1].uniqueBytes),
    files: best[1].files,
    mb: mb(best[1].bytes),
  };
}

/** The text of a selected entry (read again: the selection keeps no text in memory). */
export function readWildEntry(entry: WildEntry): string {
  const bytes = readWildBytes(entry.path);
  if (bytes === null) throw new Error(`${entry.path} changed while the eval ran`);
  return wildText(bytes, entry.roff);
}
