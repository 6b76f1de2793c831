/**
 * A warmed pack's built structures as one binary file (issue 19 §2): the
 * alphabet's class table, each always-on rule's start classes and start
 * deferral, and each keyword automaton's goto rows, depths, failure links,
 * merged outputs and extending rules, with its scanner's bigram table. The
 * `csg` bundle (scripts/build-cli.js) writes it beside the serialised pack and
 * reads it back as typed-array views of the file's bytes, so a short run
 * builds none of them: building them from the warm tables (load-warm-tables.ts)
 * and the alphabet from the rules' sets was most of `echo hi | csg scan`.
 *
 * Nothing here is re-proved: the file is used only while its bytes have the
 * digest the build recorded (src/cli/builtin-pack.ts, data-digest.ts beside this file), that is,
 * only as this build's own producer wrote it; any other file goes the warm
 * tables' fully checked path. `decodeBuiltTables` still checks the layout
 * (magic, version, every section inside the file, every length what its table
 * needs), so a file that slipped past the digest is refused, not misread out of
 * bounds. The page reads it too (issue 19 §4): the background encodes it once per
 * browser session and the page uses it only while its bytes have the digest the
 * background sent with them (src/content/load-built-tables.ts).
 *
 * Layout: "CSGB", format version (u32 LE), header length (u32 LE), the header
 * as UTF-8 JSON (`BuiltHeader`: what each table is and where its section lies),
 * then the sections, each at a multiple of 8 bytes from the start.
 */
import { KeywordAutomaton, type KeywordHit } from '../guard/keyword-automaton.ts';
import { runToEnd } from '../guard/run-to-end.ts';
import { cachedBigramTable } from '../guard/scanner.ts';
import type { Alphabet } from '../regex/alphabet.ts';
import { type CharSet, MAX_UNIT, internSet } from '../regex/char-set.ts';
import { CONDITIONS, MAX_NFA_STATES, Nfa } from '../regex/nfa.ts';
import { distancesToFinal } from '../regex/nfa-analysis.ts';
import {
  type CompileOptions,
  type CompiledPack,
  type CompiledRule,
  type RuleAnalysis,
  type RuleAutomaton,
  assembleCompiledPackSteps,
} from './compiled-pack.ts';
import { CompiledPackError, ruleAutomaton } from './load-compiled-pack.ts';
import { type Seeded, seedPackCaches, unpackBigrams } from './load-warm-tables.ts';
import type { SerialisedPack, SerialisedSpec } from './serialised-pack.ts';
import type { StartDeferral } from './start-deferral.ts';
import { packBigrams, subsetKey } from './warm-tables.ts';

export const BUILT_TABLES_MAGIC = 'CSGB';
/**
 * Bumped whenever the layout or the meaning of a table changes. 2: the always-on rules'
 * automata and distances as sections (`BuiltNfa`), no longer as JSON in the rules' data.
 */
export const BUILT_TABLES_VERSION = 2;

type SectionType = 'u8' | 'u16' | 'i32';
/** `[type, byte offset, element count]`. */
type Section = [SectionType, number, number];

/** A rule as the pack needs it at load; the rest of its data is decoded on first use. */
interface BuiltSpec {
  spec: SerialisedSpec;
  /** null when unbounded. */
  structuralMaxLength: number | null;
  maxLength: number;
  /**
   * The serialised rule (serialised-pack.ts) as ASCII JSON: bytes [from, to) of `ruleText`.
   * Empty for an always-on rule: its automaton is in the head (`BuiltRule.nfa`).
   */
  text: [number, number];
}

/**
 * An always-on rule's automaton (nfa.ts `NfaArrays`) and its distances to the final
 * state (nfa-analysis.ts `distancesToFinal`), as sections (issue 19 §4): every page runs
 * these rules from its first unit, and decoding them from JSON (run lengths, then the
 * distances and longest match recomputed) was 20-35 ms of each page's set-up in
 * Chromium traces (docs/page-setup.md). As views of the file they cost a range check.
 */
interface BuiltNfa {
  start: number;
  final: number;
  /** The sets' `[lo, hi, …]` ranges one after another; set k is `ranges[setStart[k]..setStart[k + 1]]`. */
  ranges: number;
  setStart: number;
  setOf: number;
  to: number;
  epsStart: number;
  epsTo: number;
  condStart: number;
  condTo: number;
  condWhen: number;
  /** Per state, the fewest units to the final state, or -1 for none (Infinity). */
  dist: number;
}

interface BuiltRule {
  /** Section of the start classes (one per alphabet class), or -1 for none. */
  starts: number;
  /** Sections of the start deferral's trigger and breaker, or -1 when the rule does not wait. */
  trigger: number;
  breaker: number;
  nfa: BuiltNfa;
}

interface BuiltTrie {
  symbols: number;
  nodeCount: number;
  /** `[unit, symbol, …]` for every unit of a non-zero symbol (the table is 128 kB). */
  symbolUnits: number;
  /**
   * Per node: its trie parent and the symbol of the edge from it (-1 and 0 for the
   * root). The goto rows are rebuilt from them and the failure links (`gotoRows`):
   * stored, they were 2.4 MB of a 4 MB file that every start reads and digests.
   */
  parent: number;
  edge: number;
  depth: number;
  fail: number;
}

interface BuiltAutomaton {
  /** Pack indices of the subset's rules, in the order the guard asks for them. */
  subset: number[];
  trie: number;
  maxKeywordLength: number;
  keywords: string[];
  hasOutput: number;
  /** Per node: index of its output list; lists as rows of (rule, length) pairs. */
  outputOf: number;
  outputStart: number;
  hitRule: number;
  hitLength: number;
  /** Per node: index of its extending-rules list; lists as rows of rule numbers. */
  extendingOf: number;
  extendingStart: number;
  extendingRule: number;
  /** Section of the bigram table as 2048 words (warm-tables.ts `packBigrams`), or -1. */
  bigrams: number;
}

export interface BuiltHeader {
  pack: { name: string; version: string; rules: number; classCount: number };
  sections: Section[];
  /** `classOf` as the class of each interval (the table is 128 kB; the intervals are few). */
  alphabet: { intervalClass: number; representative: number; kind: number; intervalStart: number };
  /**
   * Section of every serialised rule's JSON, one after another (`BuiltSpec.text`): the
   * last section, starting where the head ends (`builtTablesHead`), and checked by its own
   * digest, `ruleTextDigest`, only when a rule is first decoded.
   */
  ruleText: number;
  ruleTextDigest: string;
  specs: BuiltSpec[];
  /** Per rule: null for a keyword rule. */
  rules: (BuiltRule | null)[];
  tries: BuiltTrie[];
  automata: BuiltAutomaton[];
}

export class BuiltTablesError extends Error {
  override name = 'BuiltTablesError';
}

type View = Uint8Array | Uint16Array | Int32Array;

/** Collects the sections while encoding. */
class SectionWriter {
  readonly sections: Section[] = [];
  readonly parts: View[] = [];
  private size = 0;

  add(view: View): number {
    const type: SectionType =
      view instanceof Uint8Array ? 'u8' : view instanceof Uint16Array ? 'u16' : 'i32';
    this.size = Math.ceil(this.size / 8) * 8;
    this.sections.push([type, this.size, view.length]);
    this.parts.push(view);
    this.size += view.byteLength;
    return this.sections.length - 1;
  }
}

/** The trie under a built automaton: a goto step that goes one deeper is a trie edge. */
function trieEdges(automaton: KeywordAutomaton): { parent: Int32Array; edge: Int32Array } {
  const { nodeCount: n, symbols: w, goto, depth } = automaton;
  const parent = new Int32Array(n).fill(-1);
  const edge = new Int32Array(n);
  for (let node = 0; node < n; node++) {
    for (let sym = 1; sym < w; sym++) {
      const child = goto[node * w + sym] as number;
      if (child !== 0 && depth[child] === (depth[node] as number) + 1) {
        parent[child] = node;
        edge[child] = sym;
      }
    }
  }
  return { parent, edge };
}

/**
 * The goto rows as the builder completes them (keyword-automaton.ts, and
 * load-warm-tables.ts `trieOf` likewise): in node order, a node's row is its
 * failure node's row (a shallower node's, so complete) with its own children set.
 */
function gotoRows(
  trie: BuiltTrie,
  parent: Int32Array,
  edge: Int32Array,
  fail: Int32Array,
): Int32Array {
  const { nodeCount: n, symbols: w } = trie;
  const childStart = new Int32Array(n + 1);
  for (let child = 1; child < n; child++) {
    const p = parent[child] as number;
    const sym = edge[child] as number;
    const f = fail[child] as number;
    if (p < 0 || p >= child || sym < 1 || sym >= w || f < 0 || f >= child) {
      throw new BuiltTablesError(`trie node ${child} is out of order`);
    }
    childStart[p + 1] = (childStart[p + 1] as number) + 1;
  }
  for (let node = 0; node < n; node++) {
    childStart[node + 1] = (childStart[node + 1] as number) + (childStart[node] as number);
  }
  const children = new Int32Array(Math.max(n - 1, 0));
  const next = childStart.slice(0, n);
  for (let child = 1; child < n; child++) {
    children[(next[parent[child] as number] as number)++] = child;
  }
  const goto = new Int32Array(n * w);
  for (let node = 0; node < n; node++) {
    const row = node * w;
    if (node > 0) {
      const from = (fail[node] as number) * w;
      goto.copyWithin(row, from, from + w);
    }
    for (let e = childStart[node] as number; e < (childStart[node + 1] as number); e++) {
      const child = children[e] as number;
      goto[row + (edge[child] as number)] = child;
    }
  }
  return goto;
}

const BIGRAM_WORDS = 2048;

/** `nfa` and its distances as sections (`BuiltNfa`). */
function encodeNfa(w: SectionWriter, nfa: Nfa): BuiltNfa {
  const ranges: number[] = [];
  const setStart = [0];
  for (const set of nfa.sets) {
    ranges.push(...set);
    setStart.push(ranges.length);
  }
  return {
    start: nfa.start,
    final: nfa.final,
    ranges: w.add(Int32Array.from(ranges)),
    setStart: w.add(Int32Array.from(setStart)),
    setOf: w.add(nfa.setOf),
    to: w.add(nfa.to),
    epsStart: w.add(nfa.epsStart),
    epsTo: w.add(nfa.epsTo),
    condStart: w.add(nfa.condStart),
    condTo: w.add(nfa.condTo),
    condWhen: w.add(nfa.condWhen),
    dist: w.add(Int32Array.from(distancesToFinal(nfa), (d) => (d === Infinity ? -1 : d))),
  };
}

/** The units of a non-zero symbol with their symbols, as `[unit, symbol, …]`. */
function symbolUnits(symbolOf: Uint16Array): Int32Array {
  const pairs: number[] = [];
  symbolOf.forEach((symbol, unit) => {
    if (symbol !== 0) pairs.push(unit, symbol);
  });
  return Int32Array.from(pairs);
}

function symbolTable(pairs: View): Uint16Array {
  const symbolOf = new Uint16Array(0x10000);
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    symbolOf[pairs[i] as number] = pairs[i + 1] as number;
  }
  return symbolOf;
}

/** Code unit → class, from each interval's class (alphabet.ts `buildAlphabet` fills it so). */
function classTable(intervalStart: Int32Array, intervalClass: Int32Array): Uint16Array {
  const classOf = new Uint16Array(0x10000);
  for (let i = 0; i < intervalStart.length; i++) {
    const end = i + 1 < intervalStart.length ? (intervalStart[i + 1] as number) : 0x10000;
    classOf.fill(intervalClass[i] as number, intervalStart[i] as number, end);
  }
  return classOf;
}

/** Lists as one index per node into distinct rows (equal lists share a row). */
function rowsOf<T>(
  lists: readonly (readonly T[])[],
  key: (list: readonly T[]) => string,
): { of: Int32Array; start: Int32Array; items: T[] } {
  const row = new Map<string, number>();
  const start = [0];
  const items: T[] = [];
  const of = new Int32Array(lists.length);
  lists.forEach((list, node) => {
    const k = key(list);
    let r = row.get(k);
    if (r === undefined) {
      r = start.length - 1;
      row.set(k, r);
      items.push(...list);
      start.push(items.length);
    }
    of[node] = r;
  });
  return { of, start: Int32Array.from(start), items };
}

/** JSON with every non-ASCII unit escaped, so it can be read back without a UTF-8 decoder. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** ASCII bytes as a string (TextDecoder's first use alone cost ~10 ms of a start). */
function asciiText(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 0x2000) {
    out += String.fromCharCode(...bytes.subarray(i, i + 0x2000));
  }
  return out;
}

function asciiBytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

/**
 * The built structures of `pack`, loaded from `serialised`, as one file.
 * `pack` must be warmed for the subsets listed (warm-tables.ts
 * `serialiseWarmTables` warms the pack it is given): their automata, bigram
 * tables, start classes and deferrals are read from its caches.
 */
export function encodeBuiltTables(
  serialised: SerialisedPack,
  pack: CompiledPack,
  subsets: readonly (readonly number[])[],
  digest: (bytes: Uint8Array) => string,
): Uint8Array {
  const w = new SectionWriter();
  const { alphabet } = pack;
  let ruleText = '';
  const specs = serialised.rules.map((rule): BuiltSpec => {
    const from = ruleText.length;
    // An always-on rule's automaton goes in the head as sections (`encodeNfa`).
    if (rule.spec.keywords !== undefined) ruleText += asciiJson(rule);
    return {
      spec: rule.spec,
      structuralMaxLength: rule.structuralMaxLength,
      maxLength: rule.maxLength,
      text: [from, ruleText.length],
    };
  });
  const header: BuiltHeader = {
    pack: {
      name: pack.name,
      version: pack.version,
      rules: pack.rules.length,
      classCount: alphabet.classCount,
    },
    sections: w.sections,
    alphabet: {
      intervalClass: w.add(
        Int32Array.from(alphabet.intervalStart, (start) => alphabet.classOf[start] as number),
      ),
      representative: w.add(alphabet.representative),
      kind: w.add(alphabet.kind),
      intervalStart: w.add(alphabet.intervalStart),
    },
    ruleText: -1,
    ruleTextDigest: '',
    specs,
    rules: pack.rules.map((rule) => {
      if (rule.keyword) return null;
      const deferral = rule.deferral ?? null;
      return {
        starts: rule.startClasses === null ? -1 : w.add(rule.startClasses),
        trigger: deferral === null ? -1 : w.add(deferral.trigger),
        breaker: deferral === null ? -1 : w.add(deferral.breaker),
        nfa: encodeNfa(w, rule.nfa),
      };
    }),
    tries: [],
    automata: [],
  };
  const trieOf = new Map<Int32Array, number>();
  for (const indices of subsets) {
    const subset = indices.map((i) => pack.rules[i] as CompiledRule);
    const automaton = pack.keywordAutomaton(subset);
    if (automaton === null) continue;
    let trie = trieOf.get(automaton.goto);
    if (trie === undefined) {
      trie = header.tries.length;
      trieOf.set(automaton.goto, trie);
      const { parent, edge } = trieEdges(automaton);
      header.tries.push({
        symbols: automaton.symbols,
        nodeCount: automaton.nodeCount,
        symbolUnits: w.add(symbolUnits(automaton.symbolOf)),
        parent: w.add(parent),
        edge: w.add(edge),
        depth: w.add(automaton.depth),
        fail: w.add(automaton.fail),
      });
    }
    const outputs = rowsOf(automaton.outputs, (hits) =>
      hits.map((h) => `${h.rule}:${h.length}`).join(),
    );
    const extending = rowsOf(automaton.extendingRules, (rules) => rules.join());
    const bigrams = cachedBigramTable(automaton);
    header.automata.push({
      subset: [...indices],
      trie,
      maxKeywordLength: automaton.maxKeywordLength,
      keywords: [...automaton.keywords],
      hasOutput: w.add(automaton.hasOutput),
      outputOf: w.add(outputs.of),
      outputStart: w.add(outputs.start),
      hitRule: w.add(Int32Array.from(outputs.items, (h) => h.rule)),
      hitLength: w.add(Int32Array.from(outputs.items, (h) => h.length)),
      extendingOf: w.add(extending.of),
      extendingStart: w.add(extending.start),
      extendingRule: w.add(Int32Array.from(extending.items)),
      bigrams: bigrams === undefined ? -1 : w.add(new Int32Array(packBigrams(bigrams).buffer)),
    });
  }
  const ruleBytes = asciiBytes(ruleText);
  header.ruleText = w.add(ruleBytes);
  header.ruleTextDigest = digest(ruleBytes);
  const headerBytes = asciiBytes(asciiJson(header));
  const base = Math.ceil((FIXED + headerBytes.length) / 8) * 8;
  const last = w.sections[w.sections.length - 1] as Section;
  const out = new Uint8Array(base + last[1] + last[2]);
  out.set(asciiBytes(BUILT_TABLES_MAGIC), 0);
  const words = new DataView(out.buffer);
  words.setUint32(4, BUILT_TABLES_VERSION, true);
  words.setUint32(8, headerBytes.length, true);
  words.setUint32(12, base + last[1], true);
  out.set(headerBytes, FIXED);
  w.parts.forEach((view, i) => {
    const at = base + (w.sections[i] as Section)[1];
    out.set(new Uint8Array(view.buffer, view.byteOffset, view.byteLength), at);
  });
  return out;
}

/** Magic, format version, header length, head length (all u32 little-endian). */
const FIXED = 16;

/**
 * The file's head: everything but the rules' serialised data (the last section).
 * The `csg` bundle compares its digest at every start; the rest is checked by the
 * digest the head records, when a rule is first decoded. Undefined when the
 * recorded head length does not fit the file.
 */
export function builtTablesHead(file: Uint8Array): Uint8Array | undefined {
  if (file.length < FIXED) return undefined;
  const headLength = new DataView(file.buffer, file.byteOffset, file.byteLength).getUint32(
    12,
    true,
  );
  return headLength >= FIXED && headLength <= file.length
    ? file.subarray(0, headLength)
    : undefined;
}

function bytesPer(type: SectionType): number {
  return type === 'u8' ? 1 : type === 'u16' ? 2 : 4;
}

/** The file's tables as views of its bytes, its layout checked. */
export interface BuiltTables {
  header: BuiltHeader;
  alphabet: Alphabet;
  section(index: number, type: SectionType, length: number): View;
  /** ASCII bytes as a string (the caller's fastest way; `asciiText` by default). */
  text(ascii: Uint8Array): string;
  /** Each trie's goto rows once rebuilt: automata on one trie share them, as built. */
  gotos: Int32Array[];
  /** Every rule's serialised data (`BuiltHeader.ruleText`). */
  ruleText: Uint8Array;
  /** Whether `ruleText` has the digest the head records (computed once, on first use). */
  ruleTextIntact(): boolean;
}

/** Little-endian typed arrays: the views read the file's bytes as this platform orders them. */
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/**
 * The file's header and its sections as views (no copy unless the bytes are
 * misaligned in memory). Throws BuiltTablesError when the layout is wrong.
 */
export function decodeBuiltTables(
  file: Uint8Array,
  options: {
    digest: (bytes: Uint8Array) => string;
    text?: (ascii: Uint8Array) => string;
    /**
     * The caller compared a digest of every byte of `file` already (the page,
     * src/content/load-built-tables.ts): the rules' data is not digested again.
     */
    wholeFileChecked?: boolean;
  },
): BuiltTables {
  const text = options.text ?? asciiText;
  if (!LITTLE_ENDIAN) throw new BuiltTablesError('a big-endian platform reads another layout');
  const bytes = file.byteOffset % 8 === 0 ? file : file.slice();
  const magic = text(bytes.subarray(0, 4));
  if (bytes.length < FIXED || magic !== BUILT_TABLES_MAGIC)
    throw new BuiltTablesError('not built tables');
  const words = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (words.getUint32(4, true) !== BUILT_TABLES_VERSION) {
    throw new BuiltTablesError(`format version is not ${BUILT_TABLES_VERSION}`);
  }
  const headerLength = words.getUint32(8, true);
  if (FIXED + headerLength > bytes.length) {
    throw new BuiltTablesError('the header overruns the file');
  }
  let header: BuiltHeader;
  try {
    header = JSON.parse(text(bytes.subarray(FIXED, FIXED + headerLength))) as BuiltHeader;
  } catch {
    throw new BuiltTablesError('the header is not JSON');
  }
  const base = Math.ceil((FIXED + headerLength) / 8) * 8;
  const section = (index: number, type: SectionType, length: number): View => {
    const entry = header.sections[index];
    if (entry === undefined || entry[0] !== type || entry[2] !== length) {
      throw new BuiltTablesError(`section ${index} is not ${length} of ${type}`);
    }
    const at = base + entry[1];
    if (at % 8 !== 0 || at + length * bytesPer(type) > bytes.length) {
      throw new BuiltTablesError(`section ${index} lies outside the file`);
    }
    const offset = bytes.byteOffset + at;
    if (type === 'u8') return new Uint8Array(bytes.buffer, offset, length);
    if (type === 'u16') return new Uint16Array(bytes.buffer, offset, length);
    return new Int32Array(bytes.buffer, offset, length);
  };
  const { classCount } = header.pack;
  const a = header.alphabet;
  const intervals = header.sections[a.intervalStart]?.[2] ?? -1;
  const intervalStart = section(a.intervalStart, 'i32', intervals) as Int32Array;
  const alphabet: Alphabet = {
    classOf: classTable(intervalStart, section(a.intervalClass, 'i32', intervals) as Int32Array),
    classCount,
    representative: section(a.representative, 'u16', classCount) as Uint16Array,
    kind: section(a.kind, 'u8', classCount) as Uint8Array,
    intervalStart,
  };
  // The rules' data is the last section and starts where the head ends, so the head's
  // digest and the rules' digest together cover every byte of the file.
  const rules = header.sections[header.ruleText];
  const headLength = words.getUint32(12, true);
  if (
    header.ruleText !== header.sections.length - 1 ||
    rules === undefined ||
    base + rules[1] !== headLength ||
    headLength + rules[2] !== bytes.length
  ) {
    throw new BuiltTablesError("the rules' data is not where the head ends");
  }
  const ruleText = section(header.ruleText, 'u8', rules[2]) as Uint8Array;
  let intact: boolean | undefined = options.wholeFileChecked === true ? true : undefined;
  const ruleTextIntact = () => (intact ??= options.digest(ruleText) === header.ruleTextDigest);
  return { header, alphabet, section, text, gotos: [], ruleText, ruleTextIntact };
}

/** Rows `start[r]..start[r + 1]` of `items`, each made once, by `make`. */
function rows<T>(start: Int32Array, make: (from: number, to: number) => T): T[] {
  const out = new Array<T>(start.length - 1);
  for (let r = 0; r + 1 < start.length; r++) {
    out[r] = make(start[r] as number, start[r + 1] as number);
  }
  return out;
}

/** Rows that start at 0, never go backwards and end at `items`. */
function checkRows(start: Int32Array, items: number, what: string): void {
  if (start[0] !== 0 || start[start.length - 1] !== items) {
    throw new BuiltTablesError(`${what} rows do not span their items`);
  }
  for (let r = 1; r < start.length; r++) {
    if ((start[r] as number) < (start[r - 1] as number)) {
      throw new BuiltTablesError(`${what} rows go backwards`);
    }
  }
}

/** Every element of `column` in [min, max]. */
function checkRange(column: View, min: number, max: number, what: string): void {
  for (let k = 0; k < column.length; k++) {
    const v = column[k] as number;
    if (v < min || v > max) throw new BuiltTablesError(`${what} ${v} is outside ${min}..${max}`);
  }
}

/** Each set's ranges: ascending, disjoint, not adjacent, within the code units (char-set.ts). */
function setsOf(ranges: Int32Array, setStart: Int32Array): CharSet[] {
  checkRows(setStart, ranges.length, 'the sets');
  return rows(setStart, (from, to) => {
    if (to === from || (to - from) % 2 !== 0) throw new BuiltTablesError('a set is not ranges');
    let previousHi = -2;
    for (let k = from; k < to; k += 2) {
      const lo = ranges[k] as number;
      const hi = ranges[k + 1] as number;
      if (lo < previousHi + 2 || hi < lo || hi > MAX_UNIT) {
        throw new BuiltTablesError('a set is not ascending disjoint ranges');
      }
      previousHi = hi;
    }
    return internSet(Array.from(ranges.subarray(from, to)));
  });
}

/**
 * An always-on rule's automaton and distances, as views of the file, every index
 * checked to lie in its table (so nothing reads out of bounds). Not re-proved: that
 * the distances and the declared longest match are the automaton's. The bytes have
 * the digest their producer recorded (the page: the background's, which analysed
 * the compiled pack), as every other table here.
 */
function decodeNfa(tables: BuiltTables, built: BuiltNfa): RuleAnalysis {
  const { header, section } = tables;
  const length = (index: number): number => header.sections[index]?.[2] ?? -1;
  const i32 = (index: number, count: number) => section(index, 'i32', count) as Int32Array;
  const n = length(built.setOf);
  if (n < 1 || n > MAX_NFA_STATES) throw new BuiltTablesError(`an automaton of ${n} states`);
  const sets = setsOf(
    i32(built.ranges, length(built.ranges)),
    i32(built.setStart, length(built.setStart)),
  );
  const { start, final } = built;
  if (!Number.isInteger(start) || !Number.isInteger(final)) {
    throw new BuiltTablesError('an automaton without integer ends');
  }
  checkRange(Int32Array.of(start, final), 0, n - 1, 'an end state');
  const setOf = i32(built.setOf, n);
  checkRange(setOf, -1, sets.length - 1, 'a set');
  const to = i32(built.to, n);
  for (let s = 0; s < n; s++) {
    const t = to[s] as number;
    if ((setOf[s] as number) < 0 ? t !== -1 : t < 0 || t >= n) {
      throw new BuiltTablesError(`state ${s} targets ${t}`);
    }
  }
  const epsStart = i32(built.epsStart, n + 1);
  const epsTo = i32(built.epsTo, length(built.epsTo));
  checkRows(epsStart, epsTo.length, 'the free edges');
  checkRange(epsTo, 0, n - 1, 'a free edge target');
  const condStart = i32(built.condStart, n + 1);
  const condTo = i32(built.condTo, length(built.condTo));
  checkRows(condStart, condTo.length, 'the conditional edges');
  checkRange(condTo, 0, n - 1, 'a conditional edge target');
  const condWhen = section(built.condWhen, 'u8', condTo.length) as Uint8Array;
  checkRange(condWhen, 0, CONDITIONS.length - 1, 'a condition');
  const distances = i32(built.dist, n);
  checkRange(distances, -1, MAX_NFA_STATES, 'a distance');
  if (distances[start] === -1) throw new BuiltTablesError('the automaton can never match');
  const dist = new Float64Array(n);
  for (let s = 0; s < n; s++) {
    const d = distances[s] as number;
    dist[s] = d < 0 ? Infinity : d;
  }
  const nfa = new Nfa({
    start,
    final,
    sets,
    setOf,
    to,
    epsStart,
    epsTo,
    condStart,
    condTo,
    condWhen,
  });
  return { nfa, dist };
}

function automatonOf(tables: BuiltTables, entry: BuiltAutomaton, rules: number): KeywordAutomaton {
  const { section, header } = tables;
  const trie = header.tries[entry.trie];
  if (trie === undefined) throw new BuiltTablesError(`no trie ${entry.trie}`);
  const n = trie.nodeCount;
  const length = (index: number): number => header.sections[index]?.[2] ?? -1;
  const outputStart = section(entry.outputStart, 'i32', length(entry.outputStart)) as Int32Array;
  const hits = length(entry.hitRule);
  const hitRule = section(entry.hitRule, 'i32', hits);
  const hitLength = section(entry.hitLength, 'i32', hits);
  const outputLists = rows(outputStart, (from, to) => {
    const list: KeywordHit[] = [];
    for (let k = from; k < to; k++) {
      list.push({ rule: hitRule[k] as number, length: hitLength[k] as number });
    }
    return list;
  });
  const extendingStart = section(
    entry.extendingStart,
    'i32',
    length(entry.extendingStart),
  ) as Int32Array;
  const extendingRule = section(entry.extendingRule, 'i32', length(entry.extendingRule));
  // Plain loops, not Array.from over views: this code runs once per start, unoptimised,
  // where each of those calls cost more than the copying itself.
  const extendingLists = rows(extendingStart, (from, to) => {
    const list = new Array<number>(to - from);
    for (let k = from; k < to; k++) list[k - from] = extendingRule[k] as number;
    return list;
  });
  const listed = <T>(of: View, lists: T[], what: string): T[] => {
    const out = new Array<T>(of.length);
    for (let node = 0; node < of.length; node++) {
      const list = lists[of[node] as number];
      if (list === undefined) throw new BuiltTablesError(`${what} names no list ${of[node]}`);
      out[node] = list;
    }
    return out;
  };
  checkRows(outputStart, hits, 'output');
  checkRows(extendingStart, extendingRule.length, 'extending');
  for (const column of [hitRule, extendingRule]) {
    for (let k = 0; k < column.length; k++) {
      if ((column[k] as number) >= rules) {
        throw new BuiltTablesError('a list names a rule outside its subset');
      }
    }
  }
  const fail = section(trie.fail, 'i32', n) as Int32Array;
  const goto = (tables.gotos[entry.trie] ??= gotoRows(
    trie,
    section(trie.parent, 'i32', n) as Int32Array,
    section(trie.edge, 'i32', n) as Int32Array,
    fail,
  ));
  return new KeywordAutomaton({
    symbolOf: symbolTable(section(trie.symbolUnits, 'i32', length(trie.symbolUnits))),
    symbols: trie.symbols,
    hasOutput: section(entry.hasOutput, 'u8', n) as Uint8Array,
    goto,
    depth: section(trie.depth, 'i32', n) as Int32Array,
    fail,
    outputs: listed(section(entry.outputOf, 'i32', n), outputLists, 'an output'),
    extendingRules: listed(section(entry.extendingOf, 'i32', n), extendingLists, 'an extending'),
    nodeCount: n,
    maxKeywordLength: entry.maxKeywordLength,
    keywords: entry.keywords,
  });
}

/** `make`'s value, made on first call; its failure, as a CompiledPackError, on every call. */
function once<T>(make: () => T, path: string): () => T {
  let made: { value: T } | undefined;
  let refused: CompiledPackError | undefined;
  return () => {
    if (made !== undefined) return made.value;
    if (refused !== undefined) throw refused;
    try {
      made = { value: make() };
    } catch (error) {
      refused =
        error instanceof CompiledPackError
          ? error
          : new CompiledPackError(path, error instanceof Error ? error.message : String(error));
      throw refused;
    }
    return made.value;
  };
}

/**
 * One rule at load: its spec and lengths. Its automaton is decoded and checked
 * only when first needed, as a loaded pack defers a keyword rule's: most rules
 * never run in a short scan. A keyword rule's from its serialised data
 * (load-compiled-pack.ts `ruleAutomaton`), an always-on rule's from its sections
 * (`decodeNfa`). A failure then is a CompiledPackError, every time.
 */
function builtRuleAutomaton(tables: BuiltTables, i: number): RuleAutomaton {
  const { header } = tables;
  const entry = header.specs[i] as BuiltSpec;
  const built = header.rules[i];
  const path = `pack.rules[${i}]`;
  let analysis: () => RuleAnalysis;
  let sets: () => readonly CharSet[];
  if (built !== null && built !== undefined) {
    if (typeof built.nfa !== 'object' || built.nfa === null) {
      throw new BuiltTablesError(`always-on rule ${i} has no automaton`);
    }
    const nfa = built.nfa;
    analysis = once(() => decodeNfa(tables, nfa), path);
    sets = () => analysis().nfa.sets;
  } else {
    const decoded = once((): RuleAutomaton => {
      if (!tables.ruleTextIntact()) {
        throw new CompiledPackError('pack.rules', "the rules' data is not as built");
      }
      const json = JSON.parse(tables.text(tables.ruleText.subarray(entry.text[0], entry.text[1])));
      return ruleAutomaton(json, path, { states: Infinity }, true).automaton;
    }, path);
    analysis = () => decoded().analysis();
    sets = () => decoded().sets;
  }
  return {
    spec: { ...entry.spec, pattern: '', examples: { match: [], noMatch: [] } },
    // Only the alphabet is built from the sets, and it comes built.
    get sets(): readonly CharSet[] {
      return sets();
    },
    analysis,
    structuralMaxLength: entry.structuralMaxLength ?? Infinity,
    maxLength: entry.maxLength,
  };
}

/**
 * The pack the tables were built from: its rules from their specs, their data
 * decoded on first use (`builtRuleAutomaton`), its alphabet and caches from the
 * tables. Throws BuiltTablesError when the tables are not laid out right.
 */
export function loadBuiltTables(tables: BuiltTables, options: CompileOptions = {}): CompiledPack {
  const { header } = tables;
  const { name, version } = header.pack;
  if (header.specs.length !== header.pack.rules || header.specs.length === 0) {
    throw new BuiltTablesError('the tables hold no rule specs for the pack');
  }
  const automata = header.specs.map((_, i) => builtRuleAutomaton(tables, i));
  // `options` as the pack was compiled with (the page's allowedImageHosts; none for the CLI).
  const pack = runToEnd(
    assembleCompiledPackSteps(name, version, automata, options, tables.alphabet),
  );
  return seedBuiltTables(tables, pack);
}

/**
 * `pack`, loaded with `tables.alphabet` (load-compiled-pack.ts `alphabet`), with
 * its caches seeded from the tables as load-warm-tables.ts seeds them from warm
 * tables. Throws BuiltTablesError when the tables are not laid out for this pack.
 */
export function seedBuiltTables(tables: BuiltTables, pack: CompiledPack): CompiledPack {
  const { header, section } = tables;
  const { classCount } = header.pack;
  if (
    header.pack.name !== pack.name ||
    header.pack.version !== pack.version ||
    header.pack.rules !== pack.rules.length ||
    header.rules.length !== pack.rules.length ||
    pack.alphabet !== tables.alphabet
  ) {
    throw new BuiltTablesError(`not built for ${pack.name}@${pack.version} as loaded`);
  }
  const starts: (Uint8Array | null)[] = [];
  const waits: (StartDeferral | null)[] = [];
  pack.rules.forEach((rule, i) => {
    const built = header.rules[i];
    if ((built === null) !== rule.keyword) {
      throw new BuiltTablesError(`rule ${i} is not the pack's kind of rule`);
    }
    const classes = (index: number) =>
      index < 0 ? null : (section(index, 'u8', classCount) as Uint8Array);
    starts.push(built == null ? null : classes(built.starts));
    const trigger = built == null ? null : classes(built.trigger);
    const breaker = built == null ? null : classes(built.breaker);
    waits.push(trigger === null || breaker === null ? null : { trigger, breaker });
  });
  const seeded: Seeded[] = header.automata.map((entry) => {
    if (entry.subset.some((i) => !Number.isInteger(i) || i < 0 || i >= pack.rules.length)) {
      throw new BuiltTablesError('a subset names a rule outside the pack');
    }
    const subset = entry.subset.map((i) => pack.rules[i] as CompiledRule);
    return {
      key: subsetKey(subset),
      automaton: automatonOf(tables, entry, subset.length),
      bigrams:
        entry.bigrams < 0
          ? null
          : unpackBigrams(
              new Uint32Array(section(entry.bigrams, 'i32', BIGRAM_WORDS).slice().buffer),
            ),
    };
  });
  return seedPackCaches(pack, starts, waits, seeded);
}
