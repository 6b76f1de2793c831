/**
 * A scanner's bigram prefilter (scanner.ts `startBigramsSteps`), built from the
 * alphabet's intervals and the fold table's inverse, against its definition
 * computed unit by unit: 1 for the bigram (a, b) when units standing for a and
 * b can be a keyword's first two units (any b after a one-unit keyword), or
 * when an always-on rule can begin with a unit standing for b after one
 * standing for a (for a rule whose starts wait for a trigger unit,
 * start-deferral.ts: when b stands for a trigger unit, after anything).
 */
import { describe, expect, it } from 'vitest';
import { bigramByte } from '../../../src/core/guard/bigram-hits.ts';
import { foldText, foldedUnits } from '../../../src/core/guard/keyword-automaton.ts';
import { StreamGuard, activeRules } from '../../../src/core/guard/stream-guard.ts';
import { compileGuardPack } from '../../../src/core/rules/builtin-packs.ts';
import type { CompiledPack, CompiledRule } from '../../../src/core/rules/compiled-pack.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { engineTestPack } from '../../support/engine-test-pack.ts';

function referenceTable(pack: CompiledPack, rules: readonly CompiledRule[]): Uint8Array {
  const { alphabet } = pack;
  const folded = foldedUnits();
  const keywordUnits = new Map<number, number[]>();
  const table = new Uint8Array(0x10000);
  for (let unit = 0; unit < 0x10000; unit++) {
    const list = keywordUnits.get(folded[unit] as number) ?? [];
    list.push(unit);
    keywordUnits.set(folded[unit] as number, list);
  }
  const foldedKeywords = [...new Set(rules.flatMap((r) => r.keywords ?? []).map(foldText))].map(
    (k) => Array.from(k, (c) => c.charCodeAt(0)),
  );
  for (const kw of foldedKeywords) {
    for (const a of keywordUnits.get(kw[0] as number) ?? []) {
      if (kw.length === 1) table.fill(1, bigramByte(a) << 8, (bigramByte(a) << 8) + 0x100);
      else
        for (const b of keywordUnits.get(kw[1] as number) ?? [])
          table[(bigramByte(a) << 8) | bigramByte(b)] = 1;
    }
  }
  const kindsOfByte = new Uint8Array(0x100);
  const startsAfter = new Uint8Array(0x100);
  for (let unit = 0; unit < 0x10000; unit++) {
    const g = alphabet.classOf[unit] as number;
    const b = bigramByte(unit);
    kindsOfByte[b] = (kindsOfByte[b] as number) | (1 << (alphabet.kind[g] as number));
    for (const rule of rules) {
      if (rule.keyword || rule.startClasses === null) continue;
      // A deferred rule (start-deferral.ts) is read at its trigger units, after any unit.
      const deferral = rule.deferral ?? null;
      const kinds =
        deferral === null ? (rule.startClasses[g] as number) : deferral.trigger[g] === 1 ? 0xf : 0;
      startsAfter[b] = (startsAfter[b] as number) | kinds;
    }
  }
  for (let a = 0; a < 0x100; a++) {
    for (let b = 0; b < 0x100; b++) {
      if (((kindsOfByte[a] as number) & (startsAfter[b] as number)) !== 0) table[(a << 8) | b] = 1;
    }
  }
  return table;
}

/** The bigram tables of a fresh guard's scanners, with the rule sets they scan. */
function scannerTables(pack: CompiledPack) {
  const guard = new StreamGuard(pack, {});
  const active = activeRules(pack, {});
  const sets = [
    active.filter(([, a]) => a !== 'flag').map(([r]) => r),
    active.filter(([, a]) => a === 'flag').map(([r]) => r),
  ];
  const scanners = [
    (guard as unknown as { changing: { bigramTable: Uint8Array | null } | null }).changing,
    (guard as unknown as { flagging: { bigramTable: Uint8Array | null } | null }).flagging,
  ];
  return sets.map((rules, i) => ({ rules, table: scanners[i]?.bigramTable ?? null }));
}

describe('the bigram prefilter table', () => {
  it.each([
    ['the engine test pack', () => compilePack(engineTestPack)],
    ['the built-in packs', () => compileGuardPack()],
  ])('of %s equals its unit-by-unit definition', (_name, compile) => {
    const pack = compile();
    const tables = scannerTables(pack).filter((t) => t.table !== null);
    expect(tables.length).toBeGreaterThan(0);
    for (const { rules, table } of tables) {
      expect(
        Buffer.from(table as Uint8Array).equals(Buffer.from(referenceTable(pack, rules))),
      ).toBe(true);
    }
  });
});
