/**
 * A warmed pack's built structures as one binary file (issue 19 §2): the
 * alphabet's class table, each always-on rule's start classes and start
 * deferral, and each keyword automaton's goto rows, depths, failure links,
 * merged outputs and extending rules, with its scanner's bigram table (and,
 * for the `csg` bundle, its unit misses), and every rule's automaton
 * (built-nfa-bank.ts, decoded when the rule first runs). The
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
 * Layout: "CSGB", format version (u32 LE), header length (u32 LE), head length
 * (u32 LE), the header as UTF-8 JSON (`BuiltHeader`: what each table is and where
 * its section lies), then the sections, each at a multiple of 8 bytes from the
 * start: the head's, then the tail's (the rules' automata, `BuiltHeader.tail`).
 */
import { KeywordAutomaton, type KeywordHit } from '../guard/keyword-automaton.ts';
import { runToEnd } from '../guard/run-to-end.ts';
import { cachedBigramTable, cachedUnitMisses, offerUnitMisses } from '../guard/scanner.ts';
import type { Alphabet } from '../regex/alphabet.ts';
import type { CharSet } from '../regex/char-set.ts';
import {
  type BankColumns,
  type BuiltNfaBank,
  type Column,
  decodeBankNfa,
  encodeNfaBank,
} from './built-nfa-bank.ts';
import {
  type BuiltMissTable,
  type BuiltUnitMisses,
  decodeMissTable,
  encodeUnitMisses,
  missColumnsPair,
} from './built-unit-misses.ts';
import {
  type CompileOptions,
  type CompiledPack,
  type CompiledRule,
  type RuleAutomaton,
  assembleCompiledPackSteps,
} from './compiled-pack.ts';
import { CompiledPackError } from './load-compiled-pack.ts';
import { type Seeded, seedPackCaches, unpackBigrams } from './load-warm-tables.ts';
import type { SerialisedPack, SerialisedSpec } from './serialised-pack.ts';
import type { StartDeferral } from './start-deferral.ts';
import { packBigrams, subsetKey } from './warm-tables.ts';

export const BUILT_TABLES_MAGIC = 'CSGB';
/**
 * Bumped whenever the layout or the meaning of a table changes. 2: the always-on rules'
 * automata and distances as sections, no longer as JSON in the rules' data. 3: every
 * rule's automaton in the shared columns of built-nfa-bank.ts (no rule's JSON, no
 * distances: they are computed at decode), and optionally each automaton's unit misses.
 * 4: the bigram tables and misses by the fold that keeps invisible start units apart
 * (bigram-fold.ts, issue 19 §3).
 */
export const BUILT_TABLES_VERSION = 4;

type SectionType = 'u8' | 'u16' | 'i32';
/** `[type, byte offset, element count]`. */
type Section = [SectionType, number, number];

/** A rule as the pack needs it at load; the rest of its data is decoded on first use. */
interface BuiltSpec {
  spec: SerialisedSpec;
  /** null when unbounded. */
  structuralMaxLength: number | null;
  maxLength: number;
}

interface BuiltRule {
  /** Section of the start classes (one per alphabet class), or -1 for none. */
  starts: number;
  /** Sections of the start deferral's trigger and breaker, or -1 when the rule does not wait. */
  trigger: number;
  breaker: number;
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
  /** The scanner's third- and fourth-unit misses (built-unit-misses.ts), when carried. */
  misses: BuiltUnitMisses | null;
}

export interface BuiltHeader {
  pack: { name: string; version: string; rules: number; classCount: number };
  sections: Section[];
  /** `classOf` as the class of each interval (the table is 128 kB; the intervals are few). */
  alphabet: { intervalClass: number; representative: number; kind: number; intervalStart: number };
  /**
   * The first section of the tail: every rule's automaton (`nfas`), from where the head
   * ends (`builtTablesHead`) to the end of the file, checked by its own digest,
   * `tailDigest`, only when a rule is first decoded (a short run decodes none).
   */
  tail: number;
  tailDigest: string;
  nfas: BuiltNfaBank;
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

  /** The sections at their offsets, zeros between. */
  layout(): Uint8Array {
    const out = new Uint8Array(this.size);
    this.parts.forEach((view, i) => {
      const at = (this.sections[i] as Section)[1];
      out.set(new Uint8Array(view.buffer, view.byteOffset, view.byteLength), at);
    });
    return out;
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
  options: EncodeOptions = {},
): Uint8Array {
  const w = new SectionWriter();
  const { alphabet } = pack;
  const specs = serialised.rules.map((rule): BuiltSpec => ({
    spec: rule.spec,
    structuralMaxLength: rule.structuralMaxLength,
    maxLength: rule.maxLength,
  }));
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
    tail: -1,
    tailDigest: '',
    // Filled in last: the automata are the tail (`BuiltHeader.tail`).
    nfas: {
      index: -1,
      setOf: -1,
      epsCount: -1,
      epsTo: -1,
      jumps: -1,
      conds: -1,
      setIds: -1,
      setStart: -1,
      ranges: -1,
    },
    specs,
    rules: pack.rules.map((rule) => {
      if (rule.keyword) return null;
      const deferral = rule.deferral ?? null;
      return {
        starts: rule.startClasses === null ? -1 : w.add(rule.startClasses),
        trigger: deferral === null ? -1 : w.add(deferral.trigger),
        breaker: deferral === null ? -1 : w.add(deferral.breaker),
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
    const misses = options.misses === true ? cachedUnitMisses(automaton) : undefined;
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
      misses: misses === undefined ? null : encodeUnitMisses(misses, (column) => w.add(column)),
    });
  }
  header.tail = w.sections.length;
  header.nfas = encodeNfaBank(
    pack.rules.map((rule) => rule.nfa),
    (column) => w.add(column),
  );
  // The tail's bytes do not depend on where the sections begin (the header's length):
  // laid out once to be digested, then copied into the file.
  const sectionsBytes = w.layout();
  const tailFrom = (w.sections[header.tail] as Section)[1];
  const tail = sectionsBytes.subarray(tailFrom);
  header.tailDigest = digest(tail);
  const headerBytes = asciiBytes(asciiJson(header));
  const base = Math.ceil((FIXED + headerBytes.length) / 8) * 8;
  const out = new Uint8Array(base + sectionsBytes.length);
  out.set(asciiBytes(BUILT_TABLES_MAGIC), 0);
  const words = new DataView(out.buffer);
  words.setUint32(4, BUILT_TABLES_VERSION, true);
  words.setUint32(8, headerBytes.length, true);
  words.setUint32(12, base + tailFrom, true);
  out.set(headerBytes, FIXED);
  out.set(sectionsBytes, base);
  return out;
}

/** What the file carries beyond what every reader needs. */
export interface EncodeOptions {
  /**
   * Each automaton's third- and fourth-unit misses, when built. The `csg` bundle's file and
   * the page's carry them: a scan of a file, a history load or a page's first 8 K units of
   * answers built them otherwise (13–60 ms of a traced history load, issue 19 §5), and they
   * add ~10 KB to a file of ~1 MB. A loader offers them to the scanner, which decodes them
   * only when it would have built them (`offerUnitMisses`).
   */
  misses?: boolean;
}

/** Magic, format version, header length, head length (all u32 little-endian). */
const FIXED = 16;

/**
 * The file's head: everything but the tail, the rules' automata (`BuiltHeader.tail`).
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

/** A trie's goto rows and code unit → symbol table, rebuilt from the file. */
export interface TrieTables {
  goto: Int32Array;
  symbolOf: Uint16Array;
}

/** The file's tables as views of its bytes, its layout checked. */
export interface BuiltTables {
  header: BuiltHeader;
  alphabet: Alphabet;
  section(index: number, type: SectionType, length: number): View;
  /** ASCII bytes as a string (the caller's fastest way; `asciiText` by default). */
  text(ascii: Uint8Array): string;
  /** Each trie's goto rows and symbol table once rebuilt: automata on one trie share them. */
  gotos: TrieTables[];
  /**
   * The rules' automata (`BuiltHeader.nfas`) as views, once the tail has the digest the
   * head records (computed once, on first use); throws CompiledPackError when it has not.
   */
  bank(): BankColumns;
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
  // The tail starts where the head ends and ends the file, so the head's digest and the
  // tail's together cover every byte; no head section may lie in the tail.
  const headLength = words.getUint32(12, true);
  const { tail } = header;
  const first = header.sections[tail];
  const last = header.sections[header.sections.length - 1];
  if (
    !Number.isInteger(tail) ||
    first === undefined ||
    last === undefined ||
    base + first[1] !== headLength ||
    base + last[1] + last[2] * bytesPer(last[0]) !== bytes.length ||
    header.sections.some(
      ([type, at, length], i) => i < tail && base + at + length * bytesPer(type) > headLength,
    )
  ) {
    throw new BuiltTablesError("the rules' automata are not where the head ends");
  }
  let intact: boolean | undefined = options.wholeFileChecked === true ? true : undefined;
  let columns: BankColumns | undefined;
  const bank = (): BankColumns => {
    intact ??= options.digest(bytes.subarray(headLength)) === header.tailDigest;
    if (!intact) throw new CompiledPackError('pack.rules', "the rules' automata are not as built");
    columns ??= bankColumns(header, section);
    return columns;
  };
  return { header, alphabet, section, text, gotos: [], bank };
}

/** A column of the bank: a section of any of the three types, whole. */
function bankColumns(
  header: BuiltHeader,
  section: (index: number, type: SectionType, length: number) => View,
): BankColumns {
  const column = (index: number): Column => {
    const entry = header.sections[index];
    if (entry === undefined) throw new BuiltTablesError(`no section ${index}`);
    return section(index, entry[0], entry[2]);
  };
  const { nfas } = header;
  const index = column(nfas.index);
  if (!(index instanceof Int32Array)) throw new BuiltTablesError('the automata index is not i32');
  return {
    index,
    setOf: column(nfas.setOf),
    epsCount: column(nfas.epsCount),
    epsTo: column(nfas.epsTo),
    jumps: column(nfas.jumps),
    conds: column(nfas.conds),
    setIds: column(nfas.setIds),
    setStart: column(nfas.setStart),
    ranges: column(nfas.ranges),
  };
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

/**
 * Trie `index`'s goto rows and symbol table, rebuilt once: the automata on one trie
 * share them, as built (neither is written after it is built).
 */
function trieGoto(tables: BuiltTables, index: number): TrieTables {
  const known = tables.gotos[index];
  if (known !== undefined) return known;
  const { section, header } = tables;
  const trie = header.tries[index];
  if (trie === undefined) throw new BuiltTablesError(`no trie ${index}`);
  const n = trie.nodeCount;
  const symbols = header.sections[trie.symbolUnits]?.[2] ?? -1;
  const built = {
    goto: gotoRows(
      trie,
      section(trie.parent, 'i32', n) as Int32Array,
      section(trie.edge, 'i32', n) as Int32Array,
      section(trie.fail, 'i32', n) as Int32Array,
    ),
    symbolOf: symbolTable(section(trie.symbolUnits, 'i32', symbols)),
  };
  tables.gotos[index] = built;
  return built;
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
  const { goto, symbolOf } = trieGoto(tables, entry.trie);
  return new KeywordAutomaton({
    symbolOf,
    symbols: trie.symbols,
    hasOutput: section(entry.hasOutput, 'u8', n) as Uint8Array,
    goto,
    depth: section(trie.depth, 'i32', n) as Int32Array,
    fail: section(trie.fail, 'i32', n) as Int32Array,
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
 * One rule at load: its spec and lengths. Its automaton is decoded from the
 * bank (built-nfa-bank.ts) and checked only when first needed: most rules never
 * run in a short scan, and a page decodes its always-on rules in paced steps
 * after set-up (src/content/load-built-tables.ts). A failure then is a
 * CompiledPackError, every time, which fails that scan closed.
 */
function builtRuleAutomaton(tables: BuiltTables, i: number): RuleAutomaton {
  const entry = tables.header.specs[i] as BuiltSpec;
  const analysis = once(() => decodeBankNfa(tables.bank(), i), `pack.rules[${i}]`);
  return {
    spec: { ...entry.spec, pattern: '', examples: { match: [], noMatch: [] } },
    // Only the alphabet is built from the sets, and it comes built.
    get sets(): readonly CharSet[] {
      return analysis().nfa.sets;
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
  return runToEnd(loadBuiltTablesSteps(tables, options));
}

/**
 * `loadBuiltTables` in steps, for a page that paces them across tasks (issue 19 §4:
 * one step of it all was a guard long task, docs/page-setup.md): the pack's
 * assembly in its steps, then `seedBuiltTablesSteps`. What it returns does not
 * depend on how the steps are spread.
 */
export function* loadBuiltTablesSteps(
  tables: BuiltTables,
  options: CompileOptions = {},
): Generator<void, CompiledPack, void> {
  const { header } = tables;
  const { name, version } = header.pack;
  if (header.specs.length !== header.pack.rules || header.specs.length === 0) {
    throw new BuiltTablesError('the tables hold no rule specs for the pack');
  }
  const automata = header.specs.map((_, i) => builtRuleAutomaton(tables, i));
  // `options` as the pack was compiled with (the page's allowedImageHosts; none for the CLI).
  const pack = yield* assembleCompiledPackSteps(name, version, automata, options, tables.alphabet);
  yield;
  return yield* seedBuiltTablesSteps(tables, pack);
}

/**
 * `pack`, loaded with `tables.alphabet` (load-compiled-pack.ts `alphabet`), with
 * its caches seeded from the tables as load-warm-tables.ts seeds them from warm
 * tables. Throws BuiltTablesError when the tables are not laid out for this pack.
 */
export function seedBuiltTables(tables: BuiltTables, pack: CompiledPack): CompiledPack {
  return runToEnd(seedBuiltTablesSteps(tables, pack));
}

/** Each rule's start classes and start deferral from the tables (null for a keyword rule). */
function startTables(tables: BuiltTables, pack: CompiledPack) {
  const { header, section } = tables;
  const { classCount } = header.pack;
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
  return { starts, waits };
}

/**
 * `seedBuiltTables` in steps: one per trie's goto rows (the largest trie's took
 * 9 ms of a traced page load), one per automaton, one for its bigram table and
 * miss tables, so that no step is long on a page's main thread.
 */
export function* seedBuiltTablesSteps(
  tables: BuiltTables,
  pack: CompiledPack,
): Generator<void, CompiledPack, void> {
  const { header, section } = tables;
  if (
    header.pack.name !== pack.name ||
    header.pack.version !== pack.version ||
    header.pack.rules !== pack.rules.length ||
    header.rules.length !== pack.rules.length ||
    pack.alphabet !== tables.alphabet
  ) {
    throw new BuiltTablesError(`not built for ${pack.name}@${pack.version} as loaded`);
  }
  const { starts, waits } = startTables(tables, pack);
  const seeded: Seeded[] = [];
  for (const entry of header.automata) {
    if (entry.subset.some((i) => !Number.isInteger(i) || i < 0 || i >= pack.rules.length)) {
      throw new BuiltTablesError('a subset names a rule outside the pack');
    }
    const subset = entry.subset.map((i) => pack.rules[i] as CompiledRule);
    if (tables.gotos[entry.trie] === undefined) {
      yield;
      trieGoto(tables, entry.trie);
    }
    yield;
    const automaton = automatonOf(tables, entry, subset.length);
    yield;
    if (entry.misses !== null && entry.misses !== undefined) {
      // Checked now, decoded when a scanner first needs them (scanner.ts `offerUnitMisses`).
      const third = missColumns(tables, entry.misses.third);
      const fourth = missColumns(tables, entry.misses.fourth);
      offerUnitMisses(automaton, () => ({
        third: decodeMissTable(third.at, third.value),
        fourth: decodeMissTable(fourth.at, fourth.value),
      }));
    }
    seeded.push({
      key: subsetKey(subset),
      automaton,
      bigrams:
        entry.bigrams < 0
          ? null
          : unpackBigrams(
              new Uint32Array(section(entry.bigrams, 'i32', BIGRAM_WORDS).slice().buffer),
            ),
    });
  }
  return seedPackCaches(pack, starts, waits, seeded);
}

/**
 * One miss table's columns (built-unit-misses.ts), checked: both inside the file, of their
 * types and of one length, so that decoding them later cannot fail.
 */
function missColumns(
  tables: BuiltTables,
  built: BuiltMissTable,
): { at: Uint16Array; value: Int32Array } {
  const { header, section } = tables;
  const length = header.sections[built.at]?.[2] ?? -1;
  const at = section(built.at, 'u16', length) as Uint16Array;
  const value = section(built.value, 'i32', length) as Int32Array;
  if (!missColumnsPair(at, value)) throw new BuiltTablesError('the miss entries do not pair up');
  return { at, value };
}
