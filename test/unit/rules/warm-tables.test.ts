/**
 * Issue 19 §4: a pack's warm tables, built once (in the background) and
 * loaded by each page (load-warm-tables.ts). A pack seeded with them guards
 * exactly as a freshly compiled one, for any text and chunking, under both of
 * a page's policies, and builds none of them itself; data that is corrupted,
 * truncated or built for another pack is refused (the page then fails closed:
 * test/unit/content/page-guard-config-warm.test.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_INCOMING_POLICY,
  DEFAULT_OUTGOING_POLICY,
} from '../../../src/background/default-settings.ts';
import { scanChunks } from '../../../src/core/guard/scan-text.ts';
import type { GuardOptions } from '../../../src/core/guard/stream-guard.ts';
import { StreamGuard } from '../../../src/core/guard/stream-guard.ts';
import { outgoingScanOptions } from '../../../src/core/outgoing/outgoing-dlp.ts';
import { builtinPackJson, compileGuardPack } from '../../../src/core/rules/builtin-packs.ts';
import type { CompiledPack } from '../../../src/core/rules/compiled-pack.ts';
import { loadCompiledPack } from '../../../src/core/rules/load-compiled-pack.ts';
import { WarmTablesError, loadWarmTables } from '../../../src/core/rules/load-warm-tables.ts';
import { serialiseCompiledPack } from '../../../src/core/rules/serialised-pack.ts';
import {
  WARM_TABLES_VERSION,
  type WarmTables,
  serialiseWarmTables,
} from '../../../src/core/rules/warm-tables.ts';
import {
  PROPERTY_RUNS,
  cut,
  cutsArbitrary,
  textArbitrary,
} from '../../support/text-arbitraries.ts';

const compileOptions = { allowedImageHosts: ['images.example.org'] };
const answers: GuardOptions = { attachMatchedText: true, policy: { ...DEFAULT_INCOMING_POLICY } };
const sends: GuardOptions = outgoingScanOptions({ ...DEFAULT_OUTGOING_POLICY });
const policies: [string, GuardOptions][] = [
  ['answers', answers],
  ['sends', sends],
];

/** The serialised pack as it crosses to a page (JSON: no typed arrays survive). */
const packData = JSON.stringify(serialiseCompiledPack(compileGuardPack(compileOptions)));
const loadPack = (): CompiledPack => loadCompiledPack(JSON.parse(packData), compileOptions);
/** Built from a loaded pack, as the background does (page-config.ts). */
const tables = serialiseWarmTables(loadPack(), [sends, answers]);
const tablesJson = JSON.stringify(tables);
const freshTables = (): WarmTables => JSON.parse(tablesJson) as WarmTables;

/** A freshly loaded pack whose own keyword automata builds are counted. */
function countingPack(): { pack: CompiledPack; builds: () => number } {
  const pack = loadPack();
  let builds = 0;
  const build = pack.keywordAutomaton;
  const buildSteps = pack.keywordAutomatonSteps;
  Object.assign(pack, {
    keywordAutomaton: (subset: Parameters<typeof build>[0]) => {
      builds++;
      return build(subset);
    },
    keywordAutomatonSteps: (subset: Parameters<typeof build>[0]) => {
      builds++;
      return buildSteps(subset);
    },
  });
  return { pack, builds: () => builds };
}

describe('warm tables', () => {
  const fresh = loadPack();
  const seeded = loadWarmTables(freshTables(), loadPack());

  it('are small next to the pack and hold every automaton the two policies scan with', () => {
    expect(tables.automata.length).toBeGreaterThan(0);
    expect(tablesJson.length).toBeLessThan(packData.length / 2);
  });

  it('seed every table the first guards need: nothing is built on the page', () => {
    const { pack, builds } = countingPack();
    const warmed = loadWarmTables(freshTables(), pack);
    for (const [, options] of policies) new StreamGuard(warmed, options).push('warm');
    expect(builds()).toBe(0);
    for (const rule of pack.rules) {
      // Always-on rules get a plain value: the getter that builds the DFA is gone.
      const descriptor = Object.getOwnPropertyDescriptor(rule, 'startClasses');
      expect(descriptor?.get === undefined).toBe(!rule.keyword);
      const deferral = Object.getOwnPropertyDescriptor(rule, 'deferral');
      expect(deferral?.get === undefined).toBe(!rule.keyword);
    }
  });

  it('carry the start deferrals (issue 19 §3), each trigger re-proved on load', () => {
    const deferred = tables.triggers.filter((t) => t !== null).length;
    expect(deferred).toBeGreaterThan(0);
    fresh.rules.forEach((rule, i) => {
      expect(seeded.rules[i]?.deferral ?? null).toEqual(rule.deferral ?? null);
    });
  });

  it.each(policies)(
    'every rule example inside prose, one unit per chunk, %s: same emits and events',
    { timeout: 300_000 },
    (_name, options) => {
      for (const rule of builtinPackJson().rules) {
        for (const example of [...rule.examples.match, ...rule.examples.noMatch]) {
          const chunks = [...`Sure: ${example} — done.`];
          expect(scanChunks(seeded, chunks, options)).toEqual(scanChunks(fresh, chunks, options));
        }
      }
    },
  );

  it.each(policies)(
    'random texts and chunkings (fast-check), %s: same emits, output and events',
    { timeout: 300_000 },
    (_name, options) => {
      fc.assert(
        fc.property(textArbitrary(builtinPackJson()), cutsArbitrary, (text, fractions) => {
          const chunks = cut(text, fractions);
          expect(scanChunks(seeded, chunks, options)).toEqual(scanChunks(fresh, chunks, options));
        }),
        { numRuns: Math.min(PROPERTY_RUNS, 300) },
      );
    },
  );
});

type Corruption = [string, (t: WarmTables) => unknown, RegExp];

const corruptions: Corruption[] = [
  ['not an object', () => 'tables', /must be an object/],
  ['another format', (t) => ({ ...t, format: 'x' }), /format/],
  [
    'another format version',
    (t) => ({ ...t, formatVersion: WARM_TABLES_VERSION + 1 }),
    /formatVersion/,
  ],
  ['another pack version', (t) => ({ ...t, pack: { ...t.pack, version: '0' } }), /another pack/],
  [
    'a rule missing',
    (t) => ({ ...t, pack: { ...t.pack, ruleIds: t.pack.ruleIds.slice(1) } }),
    /ruleIds/,
  ],
  ['another alphabet', (t) => ({ ...t, pack: { ...t.pack, alphabet: 1 } }), /alphabet/],
  ['start classes truncated', (t) => ({ ...t, startClasses: t.startClasses.slice(1) }), /start/],
  [
    'a start-class row too short',
    (t) => {
      const i = t.startClasses.findIndex((row) => row !== null);
      const row = [...t.startClasses[i]!];
      row[row.length - 1] = row[row.length - 1]! - 1;
      t.startClasses[i] = row;
      return t;
    },
    /must describe/,
  ],
  [
    'a start class out of range',
    (t) => {
      const i = t.startClasses.findIndex((row) => row !== null);
      t.startClasses[i]![0] = 16;
      return t;
    },
    /at most 15/,
  ],
  [
    'a start deferral whose trigger is not in every match',
    (t) => {
      const i = t.triggers.findIndex((row) => row !== null);
      t.triggers[i] = [0, t.pack.classCount];
      return t;
    },
    /not in every match/,
  ],
  ['triggers truncated', (t) => ({ ...t, triggers: t.triggers.slice(1) }), /triggers/],
  [
    'a trie truncated (a keyword no longer spelled)',
    (t) => {
      t.tries[0]!.edges = t.tries[0]!.edges.slice(0, -2);
      return t;
    },
    /lacks a keyword/,
  ],
  [
    'a node before its parent',
    (t) => {
      t.tries[0]!.edges[0] = 5;
      return t;
    },
    /before its parent/,
  ],
  [
    'a symbol out of range',
    (t) => {
      t.tries[0]!.edges[1] = t.tries[0]!.symbols;
      return t;
    },
    /bad symbol/,
  ],
  [
    'two children on one symbol',
    (t) => {
      const edges = t.tries[0]!.edges;
      edges[3] = edges[1]!;
      edges[2] = edges[0]!;
      return t;
    },
    /two children/,
  ],
  [
    'a capital folded apart from its small letter',
    (t) => {
      const units = t.tries[0]!.symbolUnits;
      const i = units.indexOf(0x41);
      if (i >= 0 && i % 2 === 0) units.splice(i, 2);
      else units.push(0xfffe, 1, 0x10000, 1);
      return t;
    },
    /capitals|0 to 65535/,
  ],
  [
    'a bigram table truncated',
    (t) => {
      const a = t.automata.find((x) => x.bigrams !== null)!;
      a.bigrams = a.bigrams!.slice(0, -2);
      return t;
    },
    /must describe 2048/,
  ],
  [
    'a number that is not one',
    (t) => {
      t.tries[0]!.edges[4] = Number.NaN;
      return t;
    },
    /edges\[4\]/,
  ],
  [
    'a parent that is not a number',
    (t) => {
      (t.tries[0]!.edges as unknown[])[0] = '0';
      return t;
    },
    /edges\[0\]/,
  ],
  [
    // Keywords are checked once per trie (load-warm-tables.ts `spelledOn`): a subset
    // moved to another trie must be spelled on that one, not pass on the first's.
    'an automaton moved to a trie that lacks its keywords',
    (t) => {
      const small = t.tries.reduce(
        (m, trie, i) => (trie.edges.length < t.tries[m]!.edges.length ? i : m),
        0,
      );
      const big = t.automata.findIndex(
        (a, i) =>
          i > 0 && a.trie !== small && t.automata.slice(0, i).some((b) => b.trie === a.trie),
      );
      t.automata[big]!.trie = small;
      return t;
    },
    /lacks a keyword/,
  ],
  [
    'a subset out of order',
    (t) => {
      t.automata[0]!.subset = [...t.automata[0]!.subset].reverse();
      return t;
    },
    /must ascend/,
  ],
  [
    'an automaton on a trie that does not exist',
    (t) => {
      t.automata[0]!.trie = t.tries.length;
      return t;
    },
    /\.trie/,
  ],
  [
    'the JSON cut short',
    () => JSON.parse(tablesJson.slice(0, tablesJson.lastIndexOf(',"automata"')) + '}'),
    /automata/,
  ],
];

describe('warm tables that are corrupted, truncated or not this pack are refused', () => {
  it.each(corruptions)('%s', (_name, corrupt, message) => {
    const pack = loadPack();
    expect(() => loadWarmTables(corrupt(freshTables()), pack)).toThrow(WarmTablesError);
    expect(() => loadWarmTables(corrupt(freshTables()), pack)).toThrow(message);
  });

  it('built for another pack (fewer rules), they are refused', () => {
    const other = compileGuardPack({ ...compileOptions, packs: ['secrets'] });
    const otherTables = serialiseWarmTables(other, [answers]);
    expect(() => loadWarmTables(otherTables, loadPack())).toThrow(/another pack|ruleIds/);
  });

  it('a refused load leaves the pack as it was (nothing seeded)', () => {
    const pack = loadPack();
    const broken = freshTables();
    broken.automata[broken.automata.length - 1]!.trie = -1;
    expect(() => loadWarmTables(broken, pack)).toThrow(WarmTablesError);
    const rule = pack.rules.find((r) => !r.keyword)!;
    expect(Object.getOwnPropertyDescriptor(rule, 'startClasses')?.get).toBeDefined();
  });
});
