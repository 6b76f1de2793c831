/** Listing, dedupe and the size cap of the benign_wild corpus (scripts/eval/wild-corpus.ts). */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FAMILY_CAP,
  type WildSource,
  capShares,
  familyShares,
  isDocFile,
  isReadmeOrLicence,
  listFiles,
  manFamily,
  readWildEntry,
  selectWild,
  systematicSample,
} from '../../../scripts/eval/wild-corpus.ts';

describe('file names', () => {
  it('takes READMEs, licences and copying files that are text', () => {
    for (const name of [
      'README',
      'README.md',
      'readme.markdown',
      'LICENSE',
      'LICENCE-MIT',
      'license.txt',
      'COPYING.LIB',
    ])
      expect(isReadmeOrLicence(name), name).toBe(true);
    for (const name of [
      'index.js',
      'license.json',
      'README.d.ts',
      'licenses.js',
      'CHANGELOG.md',
      'Readme.png',
    ])
      expect(isReadmeOrLicence(name), name).toBe(false);
    expect(isDocFile('copyright')).toBe(true);
    expect(isDocFile('README.Debian.gz')).toBe(true);
    expect(isDocFile('changelog.Debian.gz')).toBe(false);
  });

  it('groups man pages by the name before the first _ or ::', () => {
    expect(manFamily('/usr/share/man/man1/gcloud_compute_ssh.1.gz')).toBe('gcloud');
    expect(manFamily('/usr/share/man/man3/Net::HTTP.3pm.gz')).toBe('Net');
    expect(manFamily('/usr/share/man/de/man1/ls.1.gz')).toBe('ls');
    expect(manFamily('/usr/share/man/man8/apt-get.8')).toBe('apt-get');
  });
});

describe('shares and sampling', () => {
  it('splits the cap equally and passes on what a small source leaves', () => {
    expect(capShares([1, 10, 10], 12)).toEqual([1, 5.5, 5.5]);
    expect(capShares([1, 2, 3], 100)).toEqual([1, 2, 3]);
    expect(capShares([50, 50], 10)).toEqual([5, 5]);
  });

  it('caps a family at a tenth of the share while the others fill it', () => {
    const many = [1000, ...Array.from({ length: 30 }, () => 5)];
    const shares = familyShares(many, 100);
    expect(shares[0]).toBeCloseTo((FAMILY_CAP * 100 * 100) / 160);
    expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(100);
    // Few families: the large one takes the room the small ones leave.
    expect(familyShares([100, 5, 5], 20)).toEqual([10, 5, 5]);
    expect(familyShares([1, 2], 20)).toEqual([1, 2]);
  });

  it('samples systematically and stays within the share', () => {
    const items = Array.from({ length: 100 }, (_, i) => i);
    expect(
      systematicSample(
        items,
        () => 1,
        () => 1,
        1000,
      ),
    ).toEqual(items);
    const half = systematicSample(
      items,
      () => 0.5,
      () => 1,
      1000,
    );
    expect(half).toHaveLength(50);
    expect(half[0]).toBe(1);
    expect(half[49]).toBe(99);
    expect(
      systematicSample(
        items,
        () => 1,
        () => 1,
        10,
      ),
    ).toHaveLength(10);
    expect(
      systematicSample(
        items,
        () => 0,
        () => 1,
        1000,
      ),
    ).toEqual([]);
  });
});

describe('selectWild', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'csg-wild-'));
    const nm = join(root, 'nm');
    mkdirSync(join(nm, 'b', 'node_modules', 'c'), { recursive: true });
    mkdirSync(join(nm, 'a'), { recursive: true });
    writeFileSync(join(nm, 'a', 'README.md'), 'alpha readme\n');
    writeFileSync(join(nm, 'a', 'LICENSE'), 'MIT licence text\n');
    writeFileSync(join(nm, 'a', 'index.js'), 'code');
    writeFileSync(join(nm, 'b', 'readme.md'), 'beta readme\n');
    writeFileSync(join(nm, 'b', 'node_modules', 'c', 'LICENSE'), 'MIT licence text\n'); // duplicate
    writeFileSync(join(nm, 'b', 'LICENSE.bin'), Buffer.from([1, 0, 2]));
    symlinkSync(join(nm, 'a'), join(nm, 'link'));
    const man = join(root, 'man', 'man1');
    mkdirSync(man, { recursive: true });
    writeFileSync(join(man, 'tool.1.gz'), gzipSync('.SH NAME\ntool \\- does \\fBthings\\fR\n'));
    writeFileSync(join(man, 'broken.1.gz'), 'not gzip');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const sources = (): WildSource[] => [
    {
      name: 'nm',
      root: join(root, 'nm'),
      accept: isReadmeOrLicence,
      roff: false,
      showRelativeTo: root,
    },
    { name: 'man', root: join(root, 'man'), accept: () => true, roff: true, family: manFamily },
  ];

  it('lists sorted regular files without following links', () => {
    expect(listFiles(join(root, 'nm'), isReadmeOrLicence).map((p) => p.slice(root.length))).toEqual(
      [
        '/nm/a/LICENSE',
        '/nm/a/README.md',
        '/nm/b/LICENSE.bin',
        '/nm/b/node_modules/c/LICENSE',
        '/nm/b/readme.md',
      ],
    );
  });

  it('dedupes by content, skips binaries, decompresses and strips man pages', () => {
    const { entries, sources: stats } = selectWild(sources(), 1e6);
    expect(entries.map((e) => e.shown)).toEqual([
      'nm/a/LICENSE',
      'nm/a/README.md',
      'nm/b/readme.md',
      join(root, 'man', 'man1', 'tool.1.gz'),
    ]);
    expect(stats.nm).toMatchObject({
      candidates: 5,
      binary: 1,
      duplicates: 1,
      unique: 3,
      files: 3,
    });
    expect(stats.man).toMatchObject({
      candidates: 2,
      binary: 1,
      unique: 1,
      files: 1,
      sampled: false,
    });
    const man = entries[3];
    expect(man && readWildEntry(man)).toBe('NAME\ntool - does things\n');
    expect(man?.bytes).toBe(Buffer.byteLength('NAME\ntool - does things\n'));
  });

  it('keeps within the cap and is the same on every run', () => {
    const small = selectWild(sources(), 30);
    expect(small.entries.reduce((s, e) => s + e.bytes, 0)).toBeLessThanOrEqual(30);
    expect(selectWild(sources(), 30)).toEqual(small);
  });
});
