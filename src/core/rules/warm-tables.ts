/**
 * A pack's warm tables as plain JSON-able data (issue 19 §4): what the first
 * guards of a pack build and cache on it (warm-up.ts) — each always-on rule's
 * start classes and start deferral trigger (start-deferral.ts), the keyword automata of the rule subsets the guards scan with,
 * and their scanners' bigram tables. The extension builds them once per browser
 * session in the background and hands them to every page with the serialised
 * pack (page-config.ts), so a page loads them in a few milliseconds instead of
 * building them on its main thread in every frame (about a hundred ms of a
 * page's CPU, bench `setup_ms`). `loadWarmTables` (load-warm-tables.ts) checks
 * them against the loaded pack and seeds its caches.
 *
 * A keyword automaton travels as its trie only: per node (breadth-first, as the
 * builder numbers them) its parent and edge symbol, and the units that map to
 * each symbol. The goto rows, failure links, depths, outputs and the rules each
 * node extends are recomputed from the trie and the rules' own keywords, the
 * way the builder computes them (keyword-automaton.ts), in linear passes: the
 * costly part of building — folding every code unit, the trie's maps — is what
 * is saved. Automata that share one trie (a view for a smaller subset,
 * keyword-automata.ts) share its entry.
 */
import { runToEnd } from '../guard/run-to-end.ts';
import type { KeywordAutomaton } from '../guard/keyword-automaton.ts';
import { cachedBigramTable } from '../guard/scanner.ts';
import { type GuardOptions, StreamGuard } from '../guard/stream-guard.ts';
import { warmKeywordAutomataSteps, warmUpSteps } from '../guard/warm-up.ts';
import type { Alphabet } from '../regex/alphabet.ts';
import type { CompiledPack, CompiledRule } from './compiled-pack.ts';
import { runLengthEncode } from './serialised-pack.ts';

export const WARM_TABLES_FORMAT = 'csg-warm-tables';
/**
 * Bumped whenever the layout or the meaning of a table changes. 3: the bigram tables by the
 * fold that keeps invisible start units apart (bigram-fold.ts, issue 19 §3).
 */
export const WARM_TABLES_VERSION = 3;

/** Which pack the tables belong to: checked against the loaded pack before anything is used. */
export interface WarmTablesPack {
  name: string;
  version: string;
  /** Every rule's id, in pack order (rule indices below count in it). */
  ruleIds: string[];
  classCount: number;
  /** FNV-1a of the alphabet's interval starts (`alphabetDigest`). */
  alphabet: number;
}

export interface SerialisedTrie {
  /** Symbols, the root's "no keyword unit" 0 included. */
  symbols: number;
  /** `[unit, symbol, …]` for every code unit of a non-zero symbol, units ascending. */
  symbolUnits: number[];
  /** Per node after the root, in node order: `[parent, symbol, …]`. */
  edges: number[];
}

export interface SerialisedAutomaton {
  /** Pack indices of the subset's rules, in the order the guard asks for them. */
  subset: number[];
  /** Index into `tries`. */
  trie: number;
  /** The scanner's bigram table as 2048 32-bit words, run-length encoded; null when not built. */
  bigrams: number[] | null;
}

export interface WarmTables {
  format: typeof WARM_TABLES_FORMAT;
  formatVersion: number;
  pack: WarmTablesPack;
  /** Per rule: null for a keyword rule, else its start classes, run-length encoded. */
  startClasses: (number[] | null)[];
  /**
   * Per rule: the trigger classes its starts wait for (start-deferral.ts), run-length
   * encoded; null for a keyword rule or one whose starts do not wait. The breaker
   * classes follow from the automaton and are recomputed by the loader.
   */
  triggers: (number[] | null)[];
  tries: SerialisedTrie[];
  automata: SerialisedAutomaton[];
}

/** FNV-1a over the interval starts: the same rules and sets give the same alphabet. */
export function alphabetDigest(alphabet: Alphabet): number {
  let hash = 0x811c9dc5;
  for (const start of alphabet.intervalStart) {
    hash = Math.imul(hash ^ start, 0x01000193) >>> 0;
  }
  return Math.imul(hash ^ alphabet.classCount, 0x01000193) >>> 0;
}

/** The subset key of keyword-automata.ts: the rules' pack indices. */
export function subsetKey(subset: readonly { index: number }[]): string {
  return subset.map((r) => r.index).join(',');
}

/** 65,536 bigram bytes (0 or 1) as 2048 words of 32 bits. */
export function packBigrams(table: Uint8Array): Uint32Array {
  const words = new Uint32Array(table.length >>> 5);
  for (let i = 0; i < table.length; i++) {
    if (table[i] !== 0) words[i >>> 5] = (words[i >>> 5] as number) | (1 << (i & 31));
  }
  return words;
}

/** The trie of a built automaton: a goto step that goes one deeper is a trie edge. */
function trieOf(automaton: KeywordAutomaton): SerialisedTrie {
  const { nodeCount: n, symbols: w, goto, depth, symbolOf } = automaton;
  const parentSymbol = new Int32Array(2 * n);
  for (let node = 0; node < n; node++) {
    for (let sym = 1; sym < w; sym++) {
      const child = goto[node * w + sym] as number;
      if (child !== 0 && depth[child] === (depth[node] as number) + 1) {
        parentSymbol[2 * child] = node;
        parentSymbol[2 * child + 1] = sym;
      }
    }
  }
  const symbolUnits: number[] = [];
  for (let unit = 0; unit < symbolOf.length; unit++) {
    if (symbolOf[unit] !== 0) symbolUnits.push(unit, symbolOf[unit] as number);
  }
  return { symbols: w, symbolUnits, edges: [...parentSymbol.subarray(2)] };
}

/** A pack that records the subsets its keyword automata are asked for. */
function recording(pack: CompiledPack, asked: Map<string, readonly CompiledRule[]>): CompiledPack {
  const note = (subset: readonly CompiledRule[]) => {
    asked.set(subsetKey(subset), subset);
  };
  return {
    ...pack,
    keywordAutomaton(subset) {
      note(subset);
      return pack.keywordAutomaton(subset);
    },
    *keywordAutomatonSteps(subset) {
      note(subset);
      return yield* pack.keywordAutomatonSteps(subset);
    },
  };
}

/**
 * Warms `pack` for guards with each of `optionsList` (as a page does: the
 * keyword automata of all first, then each guard's tables) and returns what
 * that built, as data. Build it from the pack as the page loads it
 * (`loadCompiledPack` of the serialised pack), so rule order and alphabet are
 * the page's.
 */
export function serialiseWarmTables(
  pack: CompiledPack,
  optionsList: readonly GuardOptions[],
): WarmTables {
  const asked = new Map<string, readonly CompiledRule[]>();
  const watched = recording(pack, asked);
  runToEnd(warmKeywordAutomataSteps(watched, optionsList));
  for (const options of optionsList) {
    runToEnd(warmUpSteps(watched, options));
    new StreamGuard(watched, options).push('');
  }
  const tries: SerialisedTrie[] = [];
  const trieIndex = new Map<Int32Array, number>();
  const automata: SerialisedAutomaton[] = [];
  for (const subset of asked.values()) {
    const automaton = pack.keywordAutomaton(subset);
    if (automaton === null) continue;
    let trie = trieIndex.get(automaton.goto);
    if (trie === undefined) {
      trie = tries.length;
      trieIndex.set(automaton.goto, trie);
      tries.push(trieOf(automaton));
    }
    const table = cachedBigramTable(automaton);
    automata.push({
      subset: subset.map((r) => r.index),
      trie,
      bigrams: table === undefined ? null : runLengthEncode(packBigrams(table)),
    });
  }
  return {
    format: WARM_TABLES_FORMAT,
    formatVersion: WARM_TABLES_VERSION,
    pack: {
      name: pack.name,
      version: pack.version,
      ruleIds: pack.rules.map((r) => r.id),
      classCount: pack.alphabet.classCount,
      alphabet: alphabetDigest(pack.alphabet),
    },
    startClasses: pack.rules.map((rule) => {
      if (rule.keyword) return null;
      const classes = rule.startClasses;
      return classes === null ? null : runLengthEncode(classes);
    }),
    triggers: pack.rules.map((rule) => {
      const deferral = rule.keyword ? null : rule.deferral;
      return deferral === null || deferral === undefined ? null : runLengthEncode(deferral.trigger);
    }),
    tries,
    automata,
  };
}
