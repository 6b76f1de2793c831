/**
 * A keyword automaton's third- and fourth-unit misses are built once its scanners have read
 * `missesAfter` units in total over every guard, not per scanner (scanner.ts): a page guards
 * each message of a history load on a guard of its own, each shorter than the threshold, and
 * a per-scanner count left the whole load on tables that prune nothing (issue 19 §5).
 *
 * The pack comes through the built-tables path, as in a page and the `csg` bundle: its bigram
 * tables arrive built and its misses do not (a pack compiled here builds both at once).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  cachedUnitMisses,
  missesAfter,
  offerUnitMisses,
  unitMissesBuilt,
} from '../../../src/core/guard/scanner.ts';
import { StreamGuard } from '../../../src/core/guard/stream-guard.ts';
import {
  decodeBuiltTables,
  encodeBuiltTables,
  loadBuiltTables,
} from '../../../src/core/rules/built-tables.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import type { CompiledPack } from '../../../src/core/rules/compiled-pack.ts';
import { dataDigest } from '../../../src/core/rules/data-digest.ts';
import { loadCompiledPack } from '../../../src/core/rules/load-compiled-pack.ts';
import type { KeywordAutomaton } from '../../../src/core/guard/keyword-automaton.ts';
import { serialiseCompiledPack } from '../../../src/core/rules/serialised-pack.ts';
import { serialiseWarmTables } from '../../../src/core/rules/warm-tables.ts';

const lazyUnits = missesAfter.units;
afterEach(() => {
  missesAfter.units = lazyUnits;
});

/** One keyword secret rule, loaded as a page loads the built tables: a pack of its own per call. */
function loadedPack(): { pack: CompiledPack; automaton: KeywordAutomaton } {
  const compiled = compilePack({
    name: 'misses-total',
    version: '1',
    rules: [
      {
        id: 'zq-token',
        kind: 'secret',
        description: 'a keyword rule, so the scanner has an automaton',
        pattern: 'zqx_[a-z]{6}',
        keywords: ['zqx_'],
        action: 'redact',
        examples: { match: ['zqx_abcdef'], noMatch: ['zqx_ab'] },
      },
    ],
  });
  const serialised = serialiseCompiledPack(compiled);
  const warmed = loadCompiledPack(JSON.parse(JSON.stringify(serialised)));
  const warm = serialiseWarmTables(warmed, [{}]);
  const file = encodeBuiltTables(
    serialised,
    warmed,
    warm.automata.map((a) => a.subset),
    dataDigest,
  );
  const pack = loadBuiltTables(decodeBuiltTables(file, { digest: dataDigest }));
  const automaton = pack.keywordAutomaton(pack.rules);
  if (automaton === null) throw new Error('the rule has a keyword: an automaton is expected');
  return { pack, automaton };
}

/** One guard per message, as a history load runs: each reads `text` whole. */
function guardMessage(pack: CompiledPack, text: string): string {
  const guard = new StreamGuard(pack);
  return guard.push(text).emit + guard.end().emit;
}

describe('third- and fourth-unit misses after missesAfter units in total (issue 19 §5)', () => {
  const message = 'plain words of a message without anything to find in them at all. '; // 66 units

  it('the message is as long as the counts below assume', () => {
    expect(message.length).toBe(66);
  });

  it('a loaded pack starts without them', () => {
    const { automaton } = loadedPack();
    expect(unitMissesBuilt(automaton)).toBe(false);
  });

  it('builds them once short guards together have read the threshold', () => {
    missesAfter.units = 150;
    const { pack, automaton } = loadedPack();
    for (let i = 0; i < 2; i++) guardMessage(pack, message);
    expect(unitMissesBuilt(automaton)).toBe(false); // 132 units read so far
    guardMessage(pack, message);
    expect(unitMissesBuilt(automaton)).toBe(true); // 198
  });

  it('counts per automaton: another pack’s guards do not count toward it', () => {
    missesAfter.units = 150;
    const first = loadedPack();
    const second = loadedPack();
    for (let i = 0; i < 3; i++) guardMessage(first.pack, message);
    expect(unitMissesBuilt(first.automaton)).toBe(true);
    expect(unitMissesBuilt(second.automaton)).toBe(false);
  });

  it('takes offered misses (built tables) once, where it would have built them', () => {
    missesAfter.units = 150;
    const { pack, automaton } = loadedPack();
    const offered = { third: new Int32Array(0x10000), fourth: new Int32Array(0x10000) };
    let decodes = 0;
    offerUnitMisses(automaton, () => {
      decodes += 1;
      return offered;
    });
    for (let i = 0; i < 2; i++) guardMessage(pack, message);
    expect(decodes).toBe(0); // 132 units: nothing decoded at load or before the threshold
    expect(unitMissesBuilt(automaton)).toBe(false);
    guardMessage(pack, message);
    expect(decodes).toBe(1); // 198
    expect(cachedUnitMisses(automaton)).toBe(offered); // the offer's, not a build
    for (let i = 0; i < 2; i++) guardMessage(pack, message);
    expect(decodes).toBe(1);
  });

  it('guards with and without the misses give the same output', () => {
    missesAfter.units = 150;
    const { pack } = loadedPack();
    const secret = `${message}key zqx_abcdef here; zq and zqx plus zqx_ab. `;
    const before = guardMessage(pack, secret);
    for (let i = 0; i < 4; i++) guardMessage(pack, message);
    expect(guardMessage(pack, secret)).toBe(before);
    expect(before).not.toContain('zqx_abcdef');
  });
});
