/**
 * The keyword prefilter: one Aho-Corasick automaton over the case-folded
 * keywords of all keyword rules (the gitleaks / trufflehog idea). It is a full
 * DFA (failure links resolved at build time), so a unit costs two array reads,
 * and overlapping keywords are reported through merged output lists.
 *
 * Keywords are literal prefixes of their rules' matches (checked when a pack is
 * compiled), so a keyword rule starts only where a keyword ends, and a partial
 * keyword at the end of the text is the only way it can be live there.
 */
import { runToEnd } from './run-to-end.ts';

/** Case folding shared by the prefilter and the keyword check. */
export function foldUnit(unit: number): number {
  if (unit >= 0x41 && unit <= 0x5a) return unit + 32;
  if (unit < 0x80) return unit;
  const lower = String.fromCharCode(unit).toLowerCase();
  return lower.length === 1 ? lower.charCodeAt(0) : unit;
}

let foldTable: Uint16Array | null = null;
/**
 * The units `foldTable` maps to another unit (1,180 of them), each as
 * `target * 0x10000 + unit`, ascending: by target, so the units folding to one
 * target are a run found by binary search. Built with the table.
 */
let movedByTarget: Uint32Array = new Uint32Array(0);

/**
 * `foldUnit` of every code unit, built once per process: an automaton needs
 * the symbol of every unit, and 65,536 toLowerCase calls per automaton were
 * most of building one, on the page's main thread. See `foldedUnitsSteps` for
 * how; a unit that lowers to several units keeps itself, as in `foldUnit`
 * (test/unit/guard/keyword-automaton.test.ts checks every unit).
 */
export function foldedUnits(): Uint16Array {
  if (foldTable === null) runToEnd(foldedUnitsSteps());
  return foldTable as Uint16Array;
}

/** Non-ASCII units lowered per step of `foldedUnitsSteps`. */
const FOLD_UNITS_PER_STEP = 0x2000;
/** Units lowered per call of toLowerCase in `foldPiece`. */
const FOLD_PIECE = 0x100;

/**
 * `foldedUnits`, built in steps (warm-up.ts): the non-ASCII units a block at a
 * time, each block a piece of `FOLD_PIECE` units at a time (`foldPiece`). The
 * table does not depend on the steps.
 */
export function* foldedUnitsSteps(): Generator<void, void, void> {
  if (foldTable !== null) return;
  const table = new Uint16Array(0x10000);
  const moved: number[] = [];
  for (let unit = 0; unit < 0x80; unit++) {
    table[unit] = foldUnit(unit);
    if (table[unit] !== unit) moved.push(unit);
  }
  for (let first = 0x80; first < 0x10000; first += FOLD_UNITS_PER_STEP) {
    const last = Math.min(first + FOLD_UNITS_PER_STEP, 0x10000);
    // Pieces end at multiples of FOLD_PIECE, so none spans two blocks of that size.
    for (let piece = first; piece < last;) {
      const end = Math.min(piece - (piece % FOLD_PIECE) + FOLD_PIECE, last);
      foldPiece(table, piece, end, moved);
      piece = end;
    }
    if (last < 0x10000) yield;
  }
  // Another caller may have finished the table meanwhile; both built the same one.
  if (foldTable === null) {
    foldTable = table;
    movedByTarget = Uint32Array.from(
      moved,
      (unit) => (table[unit] as number) * 0x10000 + unit,
    ).sort();
  }
}

/**
 * Folds units [first, last) into `table`, adding those that fold to another unit
 * to `moved`. Most of the BMP (CJK, Hangul, symbols) lowers to itself: a piece
 * that toLowerCase leaves as it is holds only such units, since the one mapping
 * of toLowerCase that depends on context (Final_Sigma) changes Σ either way, and a
 * piece never holds both halves of a surrogate pair (they lie in separate blocks
 * of 0x400, and no piece spans two blocks of `FOLD_PIECE`). Any other piece is lowered
 * unit by unit, each between spaces: Final_Sigma then sees what it sees for the
 * unit alone, and a unit that lowers to several units is seen to.
 */
function foldPiece(table: Uint16Array, first: number, last: number, moved: number[]): void {
  const units = new Array<number>(last - first);
  for (let unit = first; unit < last; unit++) units[unit - first] = unit;
  const piece = String.fromCharCode(...units);
  if (piece.toLowerCase() === piece) {
    for (let unit = first; unit < last; unit++) table[unit] = unit;
    return;
  }
  const spaced = new Array<number>(2 * (last - first));
  for (let unit = first; unit < last; unit++) {
    spaced[2 * (unit - first)] = 0x20;
    spaced[2 * (unit - first) + 1] = unit;
  }
  const lowered = String.fromCharCode(...spaced).toLowerCase();
  // `lowered` is " x x x…": each piece runs from after a space to the next space.
  let unit = first;
  let at = 1;
  while (unit < last) {
    let next = lowered.indexOf(' ', at);
    if (next < 0) next = lowered.length;
    const folded = next - at === 1 ? lowered.charCodeAt(at) : unit;
    table[unit] = folded;
    if (folded !== unit) moved.push(unit);
    unit++;
    at = next + 1;
  }
}

/** `unitsFoldingTo`'s answers so far (a few dozen keyword units per pack). */
const unfolded = new Map<number, Uint16Array>();

/**
 * Every code unit that folds to `folded` (itself included when it folds to
 * itself), in ascending order: `folded` or nothing, and the units the fold table
 * moves to it (`movedByTarget`). For each automaton's symbols and bigram table
 * (scanner.ts), which ask for their keywords' units only: before, each automaton
 * walked all 65,536 units, and later one inverse table of all of them was built on
 * the page's main thread.
 */
export function unitsFoldingTo(folded: number): Uint16Array {
  let units = unfolded.get(folded);
  if (units === undefined) {
    const table = foldedUnits();
    const found = table[folded] === folded ? [folded] : [];
    const moved = movedByTarget;
    const end = (folded + 1) * 0x10000;
    for (let i = firstAtLeast(moved, folded * 0x10000); i < moved.length; i++) {
      const key = moved[i] as number;
      if (key >= end) break;
      found.push(key & 0xffff);
    }
    units = Uint16Array.from(found).sort();
    unfolded.set(folded, units);
  }
  return units;
}

/** The first index of ascending `keys` whose key is at least `key` (keys.length if none). */
function firstAtLeast(keys: Uint32Array, key: number): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as number) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const ASCII_ONLY = /^[\0-\x7f]*$/;
/** Units folded per String.fromCharCode call, which takes them as arguments. */
const FOLD_TEXT_PIECE = 4096;

function foldPieces(text: string, fold: (unit: number) => number): string {
  const pieces: string[] = [];
  for (let from = 0; from < text.length; from += FOLD_TEXT_PIECE) {
    const to = Math.min(text.length, from + FOLD_TEXT_PIECE);
    const units = new Array<number>(to - from);
    for (let i = from; i < to; i++) units[i - from] = fold(text.charCodeAt(i));
    pieces.push(String.fromCharCode(...units));
  }
  return pieces.join('');
}

/** `foldText` without the fold table: `foldUnit` unit by unit (ASCII natively). */
export function foldByUnit(text: string): string {
  return ASCII_ONLY.test(text) ? text.toLowerCase() : foldPieces(text, foldUnit);
}

/**
 * `foldUnit` of each unit of `text`. ASCII by toLowerCase alone, natively (most
 * keywords and prompts); other text through the fold table once it is built, and
 * unit by unit before: a page's first request is folded before the page has built
 * the table (keyword-presence.ts), and building it there would cost ~12 ms.
 */
export function foldText(text: string): string {
  const table = foldTable;
  if (table === null || ASCII_ONLY.test(text)) return foldByUnit(text);
  return foldPieces(text, (unit) => table[unit] as number);
}

export interface KeywordHit {
  /** Index of the rule in the scanner's rule list. */
  rule: number;
  /** Keyword length in code units. */
  length: number;
}

export class KeywordAutomaton {
  /** Code unit → symbol (0 = a unit that occurs in no keyword). */
  readonly symbolOf: Uint16Array;
  readonly symbols: number;
  /** 1 where some keyword ends at the node. */
  readonly hasOutput: Uint8Array;
  /** goto[node * symbols + symbol] → node. */
  readonly goto: Int32Array;
  readonly depth: Int32Array;
  readonly fail: Int32Array;
  /** Keywords (with merged suffix outputs) that end at each node. */
  readonly outputs: KeywordHit[][];
  /** Rules that have a keyword strictly extending each node's string. */
  readonly extendingRules: number[][];
  readonly nodeCount: number;
  readonly maxKeywordLength: number;
  /** The distinct case-folded keywords. */
  readonly keywords: readonly string[];

  constructor(source: readonly (readonly string[])[] | KeywordAutomatonParts) {
    const parts = Array.isArray(source)
      ? runToEnd(automatonParts(source as readonly (readonly string[])[]))
      : (source as KeywordAutomatonParts);
    this.symbolOf = parts.symbolOf;
    this.symbols = parts.symbols;
    this.hasOutput = parts.hasOutput;
    this.goto = parts.goto;
    this.depth = parts.depth;
    this.fail = parts.fail;
    this.outputs = parts.outputs;
    this.extendingRules = parts.extendingRules;
    this.nodeCount = parts.nodeCount;
    this.maxKeywordLength = parts.maxKeywordLength;
    this.keywords = parts.keywords;
  }

  /**
   * The same automaton, built in steps: the caller resumes the generator from a
   * new task after each yield (warm-up.ts), so building the prefilter of a large
   * pack on a page's main thread is never one long task.
   */
  static *steps(
    keywordsByRule: readonly (readonly string[])[],
  ): Generator<void, KeywordAutomaton, void> {
    return new KeywordAutomaton(yield* automatonParts(keywordsByRule));
  }

  /**
   * This automaton as the prefilter of a subset of its rules, sharing its
   * transitions: `localOf[rule]` is each of its rules' index in the subset (-1
   * when not in it), `keywordsByRule` the subset's keywords. Only the subset's
   * hits are reported (under their subset index), and a partial keyword is
   * live only through a rule of the subset, so a scanner over the subset finds
   * and holds what it would with the subset's own automaton; it just stops at
   * the other rules' keywords now and then. Building one automaton for a large
   * rule set and viewing it for a smaller one saves building the second on the
   * page's main thread (compiled-pack.ts, issue 4).
   */
  restrictedTo(
    localOf: Int32Array,
    keywordsByRule: readonly (readonly string[])[],
  ): KeywordAutomaton {
    const n = this.nodeCount;
    const outputs = new Array<KeywordHit[]>(n);
    const hasOutput = new Uint8Array(n);
    const extendingRules = new Array<number[]>(n);
    const local = (rule: number) => localOf[rule] ?? -1;
    for (let node = 0; node < n; node++) {
      const hits: KeywordHit[] = [];
      for (const hit of this.outputs[node] as KeywordHit[]) {
        const rule = local(hit.rule);
        if (rule >= 0) hits.push({ rule, length: hit.length });
      }
      outputs[node] = hits;
      hasOutput[node] = hits.length > 0 ? 1 : 0;
      const extending: number[] = [];
      for (const r of this.extendingRules[node] as number[]) {
        const rule = local(r);
        if (rule >= 0) extending.push(rule);
      }
      extendingRules[node] = extending;
    }
    const keywords = [...new Set(keywordsByRule.flat().map(foldText))];
    return new KeywordAutomaton({
      symbolOf: this.symbolOf,
      symbols: this.symbols,
      hasOutput,
      goto: this.goto,
      depth: this.depth,
      fail: this.fail,
      outputs,
      extendingRules,
      nodeCount: n,
      maxKeywordLength: Math.max(0, ...keywords.map((k) => k.length)),
      keywords,
    });
  }

  next(node: number, unit: number): number {
    const sym = this.symbolOf[unit] as number;
    return sym === 0 ? 0 : (this.goto[node * this.symbols + sym] as number);
  }
}

/** Keyword rules added to the trie between two yields of `automatonParts`. */
const RULES_PER_STEP = 16;
/** Nodes whose goto rows are completed between two yields (rows are `symbols` wide). */
const NODES_PER_STEP = 256;

/** The fields of a KeywordAutomaton. */
interface KeywordAutomatonParts {
  symbolOf: Uint16Array;
  symbols: number;
  hasOutput: Uint8Array;
  goto: Int32Array;
  depth: Int32Array;
  fail: Int32Array;
  outputs: KeywordHit[][];
  extendingRules: number[][];
  nodeCount: number;
  maxKeywordLength: number;
  keywords: readonly string[];
}

/**
 * Builds the automaton's fields, yielding between bounded pieces of work; the
 * result does not depend on how (or whether) the caller pauses between them.
 */
function* automatonParts(
  keywordsByRule: readonly (readonly string[])[],
): Generator<void, KeywordAutomatonParts, void> {
  // The trie, flat: one map from (node, folded unit) to child, edges in creation order,
  // and per-node lists (no Map or Set per node: building thousands of them was most of
  // building an automaton on the page's main thread).
  const childOf = new Map<number, number>();
  const edgeParent: number[] = [];
  const edgeUnit: number[] = [];
  const edgeChild: number[] = [];
  const depth: number[] = [0];
  const own: (KeywordHit[] | undefined)[] = [undefined];
  const extending: number[][] = [[]];
  const units = new Set<number>();
  let maxLen = 0;
  const distinct = new Set<string>();
  for (const [rule, keywords] of keywordsByRule.entries()) {
    for (const raw of keywords) {
      const kw = foldText(raw);
      distinct.add(kw);
      maxLen = Math.max(maxLen, kw.length);
      let node = 0;
      for (let i = 0; i < kw.length; i++) {
        // Rules come in order, so a repeat of this rule is the list's last entry.
        const rules = extending[node] as number[];
        if (rules[rules.length - 1] !== rule) rules.push(rule);
        const unit = kw.charCodeAt(i);
        units.add(unit);
        const key = node * 0x10000 + unit;
        let child = childOf.get(key);
        if (child === undefined) {
          child = depth.length;
          childOf.set(key, child);
          edgeParent.push(node);
          edgeUnit.push(unit);
          edgeChild.push(child);
          depth.push((depth[node] as number) + 1);
          own.push(undefined);
          extending.push([]);
        }
        node = child;
      }
      const hits = (own[node] ??= []);
      if (!hits.some((h) => h.rule === rule)) hits.push({ rule, length: kw.length });
    }
    if (rule % RULES_PER_STEP === RULES_PER_STEP - 1) yield;
  }
  const keywords = [...distinct];
  const n = depth.length;
  yield;
  // Symbols: the distinct folded keyword units, numbered from 1.
  const symbolOfFolded = new Uint16Array(0x10000);
  let symbols = 1;
  for (const unit of units) symbolOfFolded[unit] = symbols++;
  // Every unit folding to a keyword unit gets that unit's symbol, all others 0: from the
  // fold table's inverse (`unitsFoldingTo`), not a walk over all 65,536 units per automaton.
  yield* foldedUnitsSteps();
  const symbolOf = new Uint16Array(0x10000);
  for (const unit of units) {
    const symbol = symbolOfFolded[unit] as number;
    for (const original of unitsFoldingTo(unit)) symbolOf[original] = symbol;
  }
  // Nodes numbered breadth-first (by depth, then creation): the shallow nodes ordinary
  // text visits all the time share the first rows of `goto` (in insertion order they were
  // spread over megabytes). A node's children are listed by its new number.
  const atDepth = new Int32Array(maxLen + 2);
  // atDepth[d]: the first number of depth d (counting sort, then running sums).
  for (let old = 0; old < n; old++) {
    const slot = (depth[old] as number) + 1;
    atDepth[slot] = (atDepth[slot] as number) + 1;
  }
  for (let d = 1; d < atDepth.length; d++) {
    atDepth[d] = (atDepth[d] as number) + (atDepth[d - 1] as number);
  }
  const renumbered = new Int32Array(n);
  const order = new Int32Array(n);
  for (let old = 0; old < n; old++) {
    const id = atDepth[depth[old] as number] as number;
    atDepth[depth[old] as number] = id + 1;
    renumbered[old] = id;
    order[id] = old;
  }
  const edges = edgeChild.length;
  const childStart = new Int32Array(n + 1);
  for (let e = 0; e < edges; e++) {
    const parent = renumbered[edgeParent[e] as number] as number;
    childStart[parent + 1] = (childStart[parent + 1] as number) + 1;
  }
  for (let id = 0; id < n; id++) {
    childStart[id + 1] = (childStart[id + 1] as number) + (childStart[id] as number);
  }
  const fill = childStart.slice(0, n);
  const childSym = new Int32Array(edges);
  const childId = new Int32Array(edges);
  for (let e = 0; e < edges; e++) {
    const parent = renumbered[edgeParent[e] as number] as number;
    const at = fill[parent] as number;
    fill[parent] = at + 1;
    childSym[at] = symbolOfFolded[edgeUnit[e] as number] as number;
    childId[at] = renumbered[edgeChild[e] as number] as number;
  }
  const width = symbols;
  yield;
  const parts: KeywordAutomatonParts = {
    symbolOf,
    symbols,
    hasOutput: new Uint8Array(n),
    goto: new Int32Array(n * width),
    depth: new Int32Array(n),
    fail: new Int32Array(n),
    outputs: new Array<KeywordHit[]>(n),
    extendingRules: new Array<number[]>(n),
    nodeCount: n,
    maxKeywordLength: maxLen,
    keywords,
  };
  const { goto: next, fail: failOf, outputs: outputsOf } = parts;
  // Resolve failure links and complete the goto function in that order: a node's row is
  // its failure node's row (shallower, so already complete) with its own children set.
  for (let node = 0; node < n; node++) {
    const old = order[node] as number;
    parts.depth[node] = depth[old] as number;
    parts.extendingRules[node] = extending[old] as number[];
    const fail = failOf[node] as number;
    const row = node * width;
    const mine = own[old] ?? [];
    const outputs = node === 0 ? mine : [...mine, ...(outputsOf[fail] as KeywordHit[])];
    outputsOf[node] = outputs;
    parts.hasOutput[node] = outputs.length > 0 ? 1 : 0;
    if (node > 0) next.copyWithin(row, fail * width, fail * width + width);
    for (let e = childStart[node] as number; e < (childStart[node + 1] as number); e++) {
      const sym = childSym[e] as number;
      const child = childId[e] as number;
      failOf[child] = node === 0 ? 0 : (next[fail * width + sym] as number);
      next[row + sym] = child;
    }
    if (node % NODES_PER_STEP === NODES_PER_STEP - 1) yield;
  }
  return parts;
}
