/**
 * The `csg` bundle loads its built-in pack from the built tables
 * (src/core/rules/built-tables.ts) only while the file's bytes have the digest
 * its build recorded (issue 19 §2; src/cli/builtin-pack.ts): an edited or
 * corrupted file is never read as tables; the bundle then loads the JSON files
 * with their own checks (test/unit/cli/builtin-pack-digest.test.ts). A file with
 * the digest but a wrong layout is refused, and the JSON path taken likewise.
 */
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { loadBuiltPack, readBuiltBytes } from '../../../src/cli/builtin-pack.ts';
import { dataDigest } from '../../../src/core/rules/data-digest.ts';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { builtTablesHead, encodeBuiltTables } from '../../../src/core/rules/built-tables.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { loadCompiledPack } from '../../../src/core/rules/load-compiled-pack.ts';
import { serialiseCompiledPack } from '../../../src/core/rules/serialised-pack.ts';
import { serialiseWarmTables } from '../../../src/core/rules/warm-tables.ts';
import { engineTestPack } from '../../support/engine-test-pack.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';
import { TempFiles } from './temp-files.ts';

const serialised = serialiseCompiledPack(compilePack(engineTestPack));
const warmed = loadCompiledPack(JSON.parse(JSON.stringify(serialised)));
const subsets = serialiseWarmTables(warmed, [{}]).automata.map((a) => a.subset);
const tables = encodeBuiltTables(serialised, warmed, subsets, dataDigest);
/** What the build records: the digest of the head (the rules' data is checked on use). */
const digest = dataDigest(builtTablesHead(tables)!);
const TEXT = 'x tok_abcd1234 y call 555-1234';

const files = new TempFiles();
afterAll(() => files.remove());
const base = pathToFileURL(`${files.dir}/`).href;

describe('readBuiltBytes', () => {
  it('gives the bytes while they have the recorded digest', () => {
    files.write('tables.bin', Buffer.from(tables));
    expect(readBuiltBytes('tables.bin', base, digest)).toEqual(Buffer.from(tables));
  });

  it('gives nothing once any one byte of the head changed, or the file was cut short', () => {
    const head = builtTablesHead(tables)!.length;
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 1, max: 255 }), (at, flip) => {
        const edited = Buffer.from(tables);
        const i = at % head;
        edited[i] = (edited[i] as number) ^ flip;
        files.write('edited.bin', edited);
        expect(readBuiltBytes('edited.bin', base, digest)).toBeUndefined();
      }),
      { numRuns: Math.min(PROPERTY_RUNS, 300) },
    );
    files.write('short.bin', Buffer.from(tables.subarray(0, head - 1)));
    expect(readBuiltBytes('short.bin', base, digest)).toBeUndefined();
  });

  it('gives nothing from source (no digest) or when the file is missing', () => {
    files.write('tables.bin', Buffer.from(tables));
    expect(readBuiltBytes('tables.bin', base, '')).toBeUndefined();
    expect(readBuiltBytes('missing.bin', base, digest)).toBeUndefined();
  });
});

describe('loadBuiltPack', () => {
  it('loads the pack that scans as the fully checked one', async () => {
    const pack = await loadBuiltPack(tables);
    expect(pack).toBeDefined();
    const reference = loadCompiledPack(JSON.parse(JSON.stringify(serialised)));
    expect(scanText(pack!, TEXT)).toEqual(scanText(reference, TEXT));
    expect(scanText(pack!, TEXT).events.length).toBeGreaterThan(0);
  });

  it('gives nothing for a file laid out wrong, so the JSON path is taken', async () => {
    const wrong = tables.slice();
    wrong[0] = 0x58;
    await expect(loadBuiltPack(wrong)).resolves.toBeUndefined();
    await expect(loadBuiltPack(tables.slice(0, tables.length >> 1))).resolves.toBeUndefined();
  });
});
