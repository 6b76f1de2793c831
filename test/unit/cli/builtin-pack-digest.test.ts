/**
 * The `csg` bundle trusts its own data files only when their bytes still have
 * the digest its build recorded (issue 19 §2; src/cli/builtin-pack.ts,
 * data-digest.ts): then an always-on rule's automaton is checked when a scan
 * first starts the rule and the warm tables' re-proofs are skipped. A file that
 * no longer matches is checked in full at load, so a broken pack is refused
 * before any text is scanned.
 */
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type BundledData,
  loadBundledPack,
  readBundledData,
} from '../../../src/cli/builtin-pack.ts';
import { dataDigest } from '../../../src/core/rules/data-digest.ts';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { CompiledPackError, loadCompiledPack } from '../../../src/core/rules/load-compiled-pack.ts';
import {
  type SerialisedPack,
  serialiseCompiledPack,
} from '../../../src/core/rules/serialised-pack.ts';
import { serialiseWarmTables } from '../../../src/core/rules/warm-tables.ts';
import { engineTestPack } from '../../support/engine-test-pack.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';
import { TempFiles } from './temp-files.ts';

const packText = JSON.stringify(serialiseCompiledPack(compilePack(engineTestPack)));
const warmText = JSON.stringify(serialiseWarmTables(loadCompiledPack(JSON.parse(packText)), [{}]));
const TEXT = 'x tok_abcd1234 y call 555-1234';

/** The pack data with one always-on rule's automaton pointing outside itself. */
function brokenPack(): SerialisedPack {
  const data = JSON.parse(packText) as SerialisedPack;
  const alwaysOn = data.rules.findIndex((r) => r.spec.keywords === undefined);
  expect(alwaysOn).toBeGreaterThanOrEqual(0);
  data.rules[alwaysOn]!.nfa.epsDelta[0] = data.rules[alwaysOn]!.nfa.states * 2;
  return data;
}

const files = new TempFiles();
afterAll(() => files.remove());
const base = pathToFileURL(`${files.dir}/`).href;

describe('dataDigest', () => {
  it('is the same for the same bytes, wherever they lie in memory', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat({ max: 7 }), (bytes, shift) => {
        // A copy at an odd offset in a larger buffer: the unaligned path.
        const host = new Uint8Array(bytes.length + shift);
        host.set(bytes, shift);
        expect(dataDigest(host.subarray(shift))).toBe(dataDigest(bytes));
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('differs after any one byte changes, or bytes are added or cut at the end', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (bytes, at, flip) => {
          const edited = bytes.slice();
          const i = at % bytes.length;
          edited[i] = (edited[i] as number) ^ flip;
          expect(dataDigest(edited)).not.toBe(dataDigest(bytes));
          expect(dataDigest(bytes.subarray(0, bytes.length - 1))).not.toBe(dataDigest(bytes));
        },
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });
});

describe('readBundledData', () => {
  it('is as built when the file has the recorded digest, and not once a byte changed', () => {
    files.write('pack.json', packText);
    const digest = dataDigest(new TextEncoder().encode(packText));
    const asBuilt = readBundledData('pack.json', base, digest);
    expect(asBuilt.asBuilt).toBe(true);
    expect(asBuilt.json).toEqual(JSON.parse(packText));
    // One digit of the data changed, still valid JSON: no longer the build's own.
    const edited = packText.replace(
      /"states":(\d)/,
      (_, d: string) => `"states":${(Number(d) + 1) % 10}`,
    );
    expect(edited).not.toBe(packText);
    files.write('pack.json', edited);
    expect(readBundledData('pack.json', base, digest).asBuilt).toBe(false);
    // From source no digest is defined: never as built.
    files.write('pack.json', packText);
    expect(readBundledData('pack.json', base, '').asBuilt).toBe(false);
  });
});

describe('loadBundledPack', () => {
  const warm = (asBuilt: boolean): BundledData => ({ json: JSON.parse(warmText), asBuilt });

  it('as built: loads with the checks put off, and scans as the fully checked pack does', async () => {
    const pack = await loadBundledPack({ json: JSON.parse(packText), asBuilt: true }, warm(true));
    expect(scanText(pack, TEXT)).toEqual(scanText(loadCompiledPack(JSON.parse(packText)), TEXT));
    expect(scanText(pack, TEXT).events.length).toBeGreaterThan(0);
  });

  it('as built but broken: the scan that first starts the rule fails closed', async () => {
    const pack = await loadBundledPack({ json: brokenPack(), asBuilt: true }, warm(true));
    const outcome = scanText(pack, TEXT);
    // Nothing is released past the broken rule: the stream guard blocks with the pack error.
    expect(outcome.blocked).toBe(true);
    expect(outcome.output).toBe('');
    expect(outcome.events.map((e) => e.type)).toContain('error');
  });

  it.each([
    ['the pack file', false, true],
    ['the warm tables file', true, false],
    ['both files', false, false],
  ])('%s not as built: a broken pack is refused at load', async (_, packAsBuilt, warmAsBuilt) => {
    await expect(
      loadBundledPack({ json: brokenPack(), asBuilt: packAsBuilt }, warm(warmAsBuilt)),
    ).rejects.toThrow(CompiledPackError);
  });

  it('warm tables whose trigger is not required are refused unless as built', async () => {
    const tables = JSON.parse(warmText) as { triggers: (number[] | null)[] };
    const at = tables.triggers.findIndex((t) => t !== null);
    expect(at).toBeGreaterThanOrEqual(0); // the digits rule waits for its '-'
    // A trigger of no class at all: no match holds one, so the re-proof must fail.
    const classes = (tables.triggers[at] as number[]).reduce(
      (n, v, i) => (i % 2 === 1 ? n + v : n),
      0,
    );
    tables.triggers[at] = [0, classes];
    const pack = { json: JSON.parse(packText), asBuilt: true };
    await expect(loadBundledPack(pack, { json: tables, asBuilt: false })).rejects.toThrow(
      /not in every match/,
    );
  });
});
