/**
 * Loads a pack's warm tables (warm-tables.ts) into a loaded pack: checks them,
 * then seeds the pack's caches with them, so the first guards of the pack
 * build nothing (issue 19 §4: the page pays almost nothing).
 *
 * The data crosses from the background, which is trusted to have built the
 * tables from this pack, but not to have delivered them intact: everything is
 * checked before anything is used, and any problem throws WarmTablesError
 * naming the place (the caller fails closed, page-guard-config.ts). Checked:
 * the tables belong to this pack (name, version, every rule id, the
 * alphabet); every number's type and range; each start-class row's length;
 * each trie's shape (parents before children, breadth-first depths, one child
 * per symbol); and every keyword of every subset is spelled out from the root
 * of its trie, which is how the outputs are computed here, so no keyword rule
 * can be left without its prefilter hits; and each start deferral's trigger is
 * re-proved on the rule's automaton (every match holds a trigger unit), so a
 * deferral cannot keep a rule from starting. What cannot be re-proved without
 * building them is that the start classes and bigram tables are the ones the
 * rules give: the loader trusts the producer on those, as load-compiled-pack.ts
 * trusts it on the patterns.
 */
import { KeywordAutomaton, type KeywordHit, foldText } from '../guard/keyword-automaton.ts';
import { runToEnd } from '../guard/run-to-end.ts';
import { adoptBigramTable } from '../guard/scanner.ts';
import { type Alphabet, classList } from '../regex/alphabet.ts';
import type { CharSet } from '../regex/char-set.ts';
import type { Nfa } from '../regex/nfa.ts';
import type { CompiledPack, CompiledRule } from './compiled-pack.ts';
import type { StartDeferral } from './start-deferral.ts';
import {
  WARM_TABLES_FORMAT,
  WARM_TABLES_VERSION,
  alphabetDigest,
  subsetKey,
} from './warm-tables.ts';

export class WarmTablesError extends Error {
  override name = 'WarmTablesError';
  constructor(
    /** Where in the data, e.g. `tries[0].edges`. */
    readonly path: string,
    problem: string,
  ) {
    super(`invalid warm tables at ${path}: ${problem}`);
  }
}

/** Bounds on what one load may allocate (the built-in packs' largest trie has ~5,000 nodes). */
const MAX_TRIE_NODES = 1 << 20;
const MAX_GOTO_CELLS = 1 << 23;
const BIGRAM_WORDS = 2048;
/** Start classes are sets of the four unit kinds (compiled-pack.ts). */
const MAX_START_KINDS = 0b1111;

type Json = Record<string, unknown>;

function fail(path: string, problem: string): never {
  throw new WarmTablesError(path, problem);
}

function object(value: unknown, path: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(path, 'must be an object');
  }
  return value as Json;
}

function array(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) fail(path, 'must be an array');
  return value;
}

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

function integer(value: unknown, path: string, min: number, max: number): number {
  if (!isIntegerIn(value, min, max)) fail(path, `must be an integer from ${min} to ${max}`);
  return value;
}

/** An integer column whose element paths are built only on failure (they are long). */
function integers(value: unknown, path: string, min: number, max: number): number[] {
  const list = array(value, path);
  for (let i = 0; i < list.length; i++) {
    if (!isIntegerIn(list[i], min, max)) fail(`${path}[${i}]`, `must be from ${min} to ${max}`);
  }
  return list as number[];
}

/** `[value, count, …]` decoded into exactly `length` values of [min, max]. */
function runLengthDecode<T extends Uint8Array | Uint32Array>(
  out: T,
  value: unknown,
  path: string,
  max: number,
): T {
  const runs = integers(value, path, 0, Math.max(max, out.length));
  if (runs.length % 2 !== 0) fail(path, 'must hold [value, count] pairs');
  let at = 0;
  for (let i = 0; i < runs.length; i += 2) {
    const v = runs[i] as number;
    const count = runs[i + 1] as number;
    if (v > max) fail(`${path}[${i}]`, `must be at most ${max}`);
    if (count < 1 || count > out.length - at) fail(`${path}[${i + 1}]`, 'overruns the table');
    out.fill(v, at, at + count);
    at += count;
  }
  if (at !== out.length) fail(path, `must describe ${out.length} values (got ${at})`);
  return out;
}

/** The tables must have been built from this very pack. */
function checkPack(value: unknown, pack: CompiledPack, trusted: boolean): void {
  const v = object(value, 'pack');
  if (v.name !== pack.name || v.version !== pack.version) {
    fail('pack', `built for another pack than ${pack.name}@${pack.version}`);
  }
  const ids = array(v.ruleIds, 'pack.ruleIds');
  if (ids.length !== pack.rules.length || pack.rules.some((r, i) => ids[i] !== r.id)) {
    fail('pack.ruleIds', 'are not the rules of the pack');
  }
  if (
    v.classCount !== pack.alphabet.classCount ||
    (!trusted && v.alphabet !== alphabetDigest(pack.alphabet))
  ) {
    fail('pack.alphabet', "is not the pack's alphabet");
  }
}

function startClassRows(value: unknown, pack: CompiledPack): (Uint8Array | null)[] {
  const rows = array(value, 'startClasses');
  if (rows.length !== pack.rules.length) fail('startClasses', 'must hold one entry per rule');
  return pack.rules.map((rule, i) => {
    const path = `startClasses[${i}]`;
    if (rule.keyword) {
      if (rows[i] !== null) fail(path, 'must be null for a keyword rule');
      return null;
    }
    if (rows[i] === null) return null;
    const row = new Uint8Array(pack.alphabet.classCount);
    return runLengthDecode(row, rows[i], path, MAX_START_KINDS);
  });
}

/**
 * Whether every string the automaton accepts holds a unit of a `trigger` class:
 * with every edge that reads only trigger classes removed, the final state is
 * unreachable (conditions taken as always true, which only adds paths). The
 * proof start-deferral.ts makes when it chooses the trigger, made again here.
 */
function triggerIsRequired(nfa: Nfa, classesOfSet: readonly Int32Array[], trigger: Uint8Array) {
  const passable = classesOfSet.map((classes) => classes.some((g) => trigger[g] === 0));
  const seen = new Uint8Array(nfa.stateCount);
  const stack = [nfa.start];
  seen[nfa.start] = 1;
  const visit = (s: number): void => {
    if (seen[s] === 0) {
      seen[s] = 1;
      stack.push(s);
    }
  };
  while (stack.length > 0) {
    const s = stack.pop() as number;
    if (s === nfa.final) return false;
    const set = nfa.setOf[s] as number;
    if (set >= 0 && passable[set] === true) visit(nfa.to[s] as number);
    for (let e = nfa.epsStart[s] as number; e < (nfa.epsStart[s + 1] as number); e++) {
      visit(nfa.epsTo[e] as number);
    }
    for (let e = nfa.condStart[s] as number; e < (nfa.condStart[s + 1] as number); e++) {
      visit(nfa.condTo[e] as number);
    }
  }
  return true;
}

/** An always-on rule's start deferral: the trigger from the data, checked; the breaker derived. */
function deferralOf(
  value: unknown,
  path: string,
  rule: CompiledRule,
  alphabet: Alphabet,
  trusted: boolean,
) {
  if (value === null) return null;
  const trigger = runLengthDecode(new Uint8Array(alphabet.classCount), value, path, 1);
  if (trusted) {
    // Reading rule.nfa decodes the automaton, which a deferred rule's load put off to
    // its first start (load-compiled-pack.ts deferAlwaysOn); the scanner reads the
    // breaker only then (scanner.ts deferralFloor), so it is derived then.
    let breaker: Uint8Array | undefined;
    const lazy: StartDeferral = {
      trigger,
      get breaker() {
        return (breaker ??= breakerOf(rule.nfa.sets, alphabet));
      },
    };
    return lazy;
  }
  const nfa = rule.nfa;
  const classesOfSet = nfa.sets.map((set) => classList(alphabet, set));
  if (!triggerIsRequired(nfa, classesOfSet, trigger)) {
    fail(path, `is not in every match of ${rule.id}`);
  }
  const deferral: StartDeferral = { trigger, breaker: breakerOf(nfa.sets, alphabet) };
  return deferral;
}

/** The classes no match reads (start-deferral.ts): a thread that reads one dies. */
function breakerOf(sets: readonly CharSet[], alphabet: Alphabet): Uint8Array {
  const breaker = new Uint8Array(alphabet.classCount).fill(1);
  for (const set of sets) for (const g of classList(alphabet, set)) breaker[g] = 0;
  return breaker;
}

function deferrals(value: unknown, pack: CompiledPack, trusted: boolean): (StartDeferral | null)[] {
  const rows = array(value, 'triggers');
  if (rows.length !== pack.rules.length) fail('triggers', 'must hold one entry per rule');
  return pack.rules.map((rule, i) => {
    if (rule.keyword && rows[i] !== null) fail(`triggers[${i}]`, 'must be null for a keyword rule');
    return rule.keyword
      ? null
      : deferralOf(rows[i], `triggers[${i}]`, rule, pack.alphabet, trusted);
  });
}

/** A trie's shared tables: the parts of a KeywordAutomaton every subset on it shares. */
interface Trie {
  symbols: number;
  symbolOf: Uint16Array;
  nodeCount: number;
  goto: Int32Array;
  depth: Int32Array;
  fail: Int32Array;
}

function symbolTable(value: unknown, path: string, symbols: number): Uint16Array {
  const pairs = integers(value, path, 0, 0xffff);
  if (pairs.length % 2 !== 0) fail(path, 'must hold [unit, symbol] pairs');
  const symbolOf = new Uint16Array(0x10000);
  let previous = -1;
  for (let i = 0; i < pairs.length; i += 2) {
    const unit = pairs[i] as number;
    const symbol = pairs[i + 1] as number;
    if (unit <= previous) fail(`${path}[${i}]`, 'units must ascend');
    if (symbol < 1 || symbol >= symbols) fail(`${path}[${i + 1}]`, `must be 1 to ${symbols - 1}`);
    symbolOf[unit] = symbol;
    previous = unit;
  }
  // Keywords are case-folded: an ASCII capital stands for its small letter.
  for (let unit = 0x41; unit <= 0x5a; unit++) {
    if (symbolOf[unit] !== symbolOf[unit + 32]) fail(path, 'must map capitals as small letters');
  }
  return symbolOf;
}

/**
 * The trie's goto rows and failure links, as the builder completes them
 * (keyword-automaton.ts `automatonParts`): in node order, a node's row is its
 * failure node's row (shallower, so complete) with its own children set.
 */
function trieOf(value: unknown, path: string): Trie {
  const v = object(value, path);
  const symbols = integer(v.symbols, `${path}.symbols`, 2, 0x10000);
  const symbolOf = symbolTable(v.symbolUnits, `${path}.symbolUnits`, symbols);
  const edges = integers(v.edges, `${path}.edges`, 0, MAX_TRIE_NODES);
  if (edges.length % 2 !== 0) fail(`${path}.edges`, 'must hold [parent, symbol] pairs');
  const n = edges.length / 2 + 1;
  if (n > MAX_TRIE_NODES || n * symbols > MAX_GOTO_CELLS) fail(path, 'is too large');
  const depth = new Int32Array(n);
  const childStart = new Int32Array(n + 1);
  for (let child = 1; child < n; child++) {
    const parent = edges[2 * child - 2] as number;
    const symbol = edges[2 * child - 1] as number;
    if (parent >= child) fail(`${path}.edges`, `node ${child} comes before its parent`);
    if (symbol < 1 || symbol >= symbols) fail(`${path}.edges`, `node ${child}: bad symbol`);
    depth[child] = (depth[parent] as number) + 1;
    if ((depth[child] as number) < (depth[child - 1] as number)) {
      fail(`${path}.edges`, `node ${child} is out of breadth-first order`);
    }
    childStart[parent + 1] = (childStart[parent + 1] as number) + 1;
  }
  for (let node = 0; node < n; node++) {
    childStart[node + 1] = (childStart[node + 1] as number) + (childStart[node] as number);
  }
  const children = new Int32Array(n - 1);
  const fill = childStart.slice(0, n);
  for (let child = 1; child < n; child++) {
    const parent = edges[2 * child - 2] as number;
    children[(fill[parent] as number)++] = child;
  }
  const goto = new Int32Array(n * symbols);
  const failOf = new Int32Array(n);
  const seen = new Int32Array(symbols).fill(-1);
  for (let node = 0; node < n; node++) {
    const f = failOf[node] as number;
    const row = node * symbols;
    if (node > 0) goto.copyWithin(row, f * symbols, f * symbols + symbols);
    for (let e = childStart[node] as number; e < (childStart[node + 1] as number); e++) {
      const child = children[e] as number;
      const sym = edges[2 * child - 1] as number;
      if (seen[sym] === node) fail(`${path}.edges`, `node ${node} has two children on one symbol`);
      seen[sym] = node;
      failOf[child] = node === 0 ? 0 : (goto[f * symbols + sym] as number);
      goto[row + sym] = child;
    }
  }
  return { symbols, symbolOf, nodeCount: n, goto, depth, fail: failOf };
}

/**
 * The automaton of `rules` on `trie`: what the builder gives for these rules'
 * keywords (or a view of a larger set's automaton gives, which is the same):
 * each keyword spelled from the root marks the rules it extends and, at its
 * end, its hit; outputs merge along failure links.
 */
/** The shared empty lists of `automatonOn` (never written to). */
const NONE: number[] = [];
const NO_HITS: KeywordHit[] = [];

/** Each rule's keywords case-folded, once per load (several subsets share most rules). */
type FoldedKeywords = (rule: CompiledRule) => readonly string[];

function foldedKeywords(): FoldedKeywords {
  const folded = new Map<CompiledRule, string[]>();
  return (rule) => {
    let keywords = folded.get(rule);
    if (keywords === undefined) {
      keywords = (rule.keywords ?? []).map(foldText);
      folded.set(rule, keywords);
    }
    return keywords;
  };
}

function automatonOn(
  trie: Trie,
  rules: readonly CompiledRule[],
  folded: FoldedKeywords,
  path: string,
): KeywordAutomaton {
  const { nodeCount: n, symbols: w, symbolOf, goto, depth } = trie;
  const own = new Array<KeywordHit[] | undefined>(n);
  // Lists are only read (scanner.ts): nodes with nothing to list share one empty list,
  // and a node with no hits of its own shares its failure node's (allocating one list
  // per node and automaton was most of a page's load of the tables).
  const extendingRules = new Array<number[]>(n).fill(NONE);
  const distinct = new Set<string>();
  let maxKeywordLength = 0;
  rules.forEach((rule, local) => {
    for (const kw of folded(rule)) {
      distinct.add(kw);
      maxKeywordLength = Math.max(maxKeywordLength, kw.length);
      let node = 0;
      for (let i = 0; i < kw.length; i++) {
        let extending = extendingRules[node] as number[];
        if (extending === NONE) extending = extendingRules[node] = [];
        if (extending[extending.length - 1] !== local) extending.push(local);
        const symbol = symbolOf[kw.charCodeAt(i)] as number;
        const next = symbol === 0 ? -1 : (goto[node * w + symbol] as number);
        if (next < 0 || depth[next] !== i + 1) fail(path, `the trie lacks a keyword of ${rule.id}`);
        node = next;
      }
      const hits = (own[node] ??= []);
      if (!hits.some((h) => h.rule === local)) hits.push({ rule: local, length: kw.length });
    }
  });
  if (distinct.size === 0) fail(path, 'the subset has no keyword rule');
  const outputs = new Array<KeywordHit[]>(n);
  const hasOutput = new Uint8Array(n);
  for (let node = 0; node < n; node++) {
    const mine = own[node];
    const inherited = node === 0 ? NO_HITS : (outputs[trie.fail[node] as number] as KeywordHit[]);
    const merged = mine === undefined ? inherited : [...mine, ...inherited];
    outputs[node] = merged;
    hasOutput[node] = merged.length > 0 ? 1 : 0;
  }
  return new KeywordAutomaton({
    symbolOf,
    symbols: w,
    hasOutput,
    goto,
    depth,
    fail: trie.fail,
    outputs,
    extendingRules,
    nodeCount: n,
    maxKeywordLength,
    keywords: [...distinct],
  });
}

function subsetOf(value: unknown, path: string, pack: CompiledPack): CompiledRule[] {
  const indices = integers(value, path, 0, pack.rules.length - 1);
  if (indices.length === 0) fail(path, 'must not be empty');
  for (let i = 1; i < indices.length; i++) {
    if ((indices[i] as number) <= (indices[i - 1] as number)) fail(path, 'must ascend');
  }
  return indices.map((i) => pack.rules[i] as CompiledRule);
}

/**
 * Each 4-bit value as the 32-bit word whose four bytes are its bits (0 or 1), in
 * this platform's byte order (written as bytes, read as a word), so a mixed word
 * is unpacked in 8 stores of 4 bytes, not 32 of one.
 */
const NIBBLE_BYTES = (() => {
  const bytes = new Uint8Array(64);
  for (let nibble = 0; nibble < 16; nibble++) {
    for (let bit = 0; bit < 4; bit++) bytes[nibble * 4 + bit] = (nibble >>> bit) & 1;
  }
  return new Uint32Array(bytes.buffer);
})();

/**
 * 2048 words of 32 bits as 65,536 bigram bytes (0 or 1): bit `b` of word `w` is
 * byte `32w + b` (the inverse of warm-tables.ts `packBigrams`).
 */
export function unpackBigrams(words: Uint32Array): Uint8Array {
  const table = new Uint8Array(words.length * 32);
  const quads = new Uint32Array(table.buffer);
  // Word by word: most words are all clear or all set (a bit at a time was most of a load).
  for (let w = 0; w < words.length; w++) {
    const word = words[w] as number;
    if (word === 0) continue;
    if (word === 0xffffffff) table.fill(1, w * 32, w * 32 + 32);
    else {
      for (let n = 0; n < 8; n++)
        quads[w * 8 + n] = NIBBLE_BYTES[(word >>> (4 * n)) & 15] as number;
    }
  }
  return table;
}

function bigramTable(value: unknown, path: string): Uint8Array | null {
  if (value === null) return null;
  return unpackBigrams(runLengthDecode(new Uint32Array(BIGRAM_WORDS), value, path, 0xffffffff));
}

/** One subset's automaton and bigram table, checked. */
export interface Seeded {
  key: string;
  automaton: KeywordAutomaton;
  bigrams: Uint8Array | null;
}

/**
 * The pack with its caches seeded from `data`; throws WarmTablesError when
 * anything is malformed or belongs to another pack. `pack` must be freshly
 * loaded (load-compiled-pack.ts) and not yet guarded with: its always-on
 * rules get their start classes from the data. Subsets the data lacks are
 * built as before, on first use.
 */
export function loadWarmTables(
  data: unknown,
  pack: CompiledPack,
  options: WarmLoadOptions = {},
): CompiledPack {
  return runToEnd(loadWarmTablesSteps(data, pack, options));
}

export interface WarmLoadOptions {
  /**
   * The tables are known to be exactly what this code's own build wrote for this
   * pack (the `csg` bundle checks a digest of the file recorded at build time,
   * src/cli/builtin-pack.ts; issue 19 §2): the re-proofs that only guard against
   * another producer (the alphabet digest, each start deferral's trigger on its
   * automaton) are skipped. Shapes, types and ranges are still read as they are
   * decoded, and every keyword is still spelled through its trie (that builds the
   * outputs). The page never sets it: its tables cross a channel.
   */
  trusted?: boolean;
}

/** `loadWarmTables` in steps (one trie or subset each), for a page's main thread. */
export function* loadWarmTablesSteps(
  data: unknown,
  pack: CompiledPack,
  options: WarmLoadOptions = {},
): Generator<void, CompiledPack, void> {
  const trusted = options.trusted === true;
  const v = object(data, 'tables');
  if (v.format !== WARM_TABLES_FORMAT) fail('format', `must be "${WARM_TABLES_FORMAT}"`);
  if (v.formatVersion !== WARM_TABLES_VERSION)
    fail('formatVersion', `must be ${WARM_TABLES_VERSION}`);
  checkPack(v.pack, pack, trusted);
  const starts = startClassRows(v.startClasses, pack);
  const waits = deferrals(v.triggers, pack, trusted);
  yield;
  const tries: Trie[] = [];
  for (const [i, trie] of array(v.tries, 'tries').entries()) {
    tries.push(trieOf(trie, `tries[${i}]`));
    yield;
  }
  const seeded: Seeded[] = [];
  const folded = foldedKeywords();
  for (const [i, entry] of array(v.automata, 'automata').entries()) {
    const path = `automata[${i}]`;
    const a = object(entry, path);
    const subset = subsetOf(a.subset, `${path}.subset`, pack);
    const trie = tries[integer(a.trie, `${path}.trie`, 0, tries.length - 1)] as Trie;
    seeded.push({
      key: subsetKey(subset),
      automaton: automatonOn(trie, subset, folded, path),
      bigrams: bigramTable(a.bigrams, `${path}.bigrams`),
    });
    yield;
  }
  return seedPackCaches(pack, starts, waits, seeded);
}

/**
 * Only once everything is checked: the pack's caches, seeded. Also for the
 * `csg` bundle's own built tables (built-tables.ts), checked by their digest.
 */
export function seedPackCaches(
  pack: CompiledPack,
  starts: readonly (Uint8Array | null)[],
  waits: readonly (StartDeferral | null)[],
  seeded: readonly Seeded[],
): CompiledPack {
  pack.rules.forEach((rule, i) => {
    const classes = starts[i];
    // The compiled rule computes its start classes and deferral on first read
    // (compiled-pack.ts); this replaces those getters with the values the background
    // computed from the same rule.
    if (classes instanceof Uint8Array) {
      Object.defineProperty(rule, 'startClasses', { value: classes, enumerable: true });
    }
    if (!rule.keyword) {
      Object.defineProperty(rule, 'deferral', { value: waits[i] ?? null, enumerable: true });
    }
  });
  const automata = new Map<string, KeywordAutomaton>();
  for (const { key, automaton, bigrams } of seeded) {
    automata.set(key, automaton);
    if (bigrams !== null) adoptBigramTable(automaton, bigrams);
  }
  return {
    ...pack,
    keywordAutomaton: (subset) => automata.get(subsetKey(subset)) ?? pack.keywordAutomaton(subset),
    *keywordAutomatonSteps(subset) {
      return automata.get(subsetKey(subset)) ?? (yield* pack.keywordAutomatonSteps(subset));
    },
  };
}
