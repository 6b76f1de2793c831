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

/** Case folding shared by the prefilter and the keyword check. */
export function foldUnit(unit: number): number {
  if (unit >= 0x41 && unit <= 0x5a) return unit + 32;
  if (unit < 0x80) return unit;
  const lower = String.fromCharCode(unit).toLowerCase();
  return lower.length === 1 ? lower.charCodeAt(0) : unit;
}

let foldTable: Uint16Array | null = null;

/**
 * `foldUnit` of every code unit, built once per process: an automaton needs
 * the symbol of every unit, and 65,536 toLowerCase calls per automaton were
 * most of building one, on the page's main thread. The non-ASCII units are
 * lowered in one call, each between spaces: the only context-dependent
 * mapping of toLowerCase (Final_Sigma) then sees what it sees for the unit
 * alone, and no surrogates pair up. A unit that lowers to several units keeps
 * itself, as in `foldUnit` (test/unit/guard/keyword-automaton.test.ts checks
 * every unit).
 */
export function foldedUnits(): Uint16Array {
  if (foldTable === null) {
    const table = new Uint16Array(0x10000);
    for (let unit = 0; unit < 0x80; unit++) table[unit] = foldUnit(unit);
    const spaced = new Array<number>(2 * (0x10000 - 0x80));
    for (let unit = 0x80; unit < 0x10000; unit++) {
      spaced[2 * (unit - 0x80)] = 0x20;
      spaced[2 * (unit - 0x80) + 1] = unit;
    }
    let lowered = '';
    for (let i = 0; i < spaced.length; i += 0x2000) {
      lowered += String.fromCharCode(...spaced.slice(i, i + 0x2000));
    }
    lowered = lowered.toLowerCase();
    // `lowered` is " x x x…": each piece runs from after a space to the next space.
    let unit = 0x80;
    let at = 1;
    while (unit < 0x10000) {
      let next = lowered.indexOf(' ', at);
      if (next < 0) next = lowered.length;
      table[unit] = next - at === 1 ? lowered.charCodeAt(at) : unit;
      unit++;
      at = next + 1;
    }
    foldTable = table;
  }
  return foldTable;
}

export function foldText(text: string): string {
  const table = foldedUnits();
  const units = new Array<number>(text.length);
  for (let i = 0; i < text.length; i++) units[i] = table[text.charCodeAt(i)] as number;
  return String.fromCharCode(...units);
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

  constructor(keywordsByRule: readonly (readonly string[])[]) {
    const symbolMap = new Map<number, number>();
    const children: Map<number, number>[] = [new Map()];
    const depth: number[] = [0];
    const own: KeywordHit[][] = [[]];
    const extending: Set<number>[] = [new Set()];
    let maxLen = 0;
    const distinct = new Set<string>();
    keywordsByRule.forEach((keywords, rule) => {
      for (const raw of keywords) {
        const kw = foldText(raw);
        distinct.add(kw);
        maxLen = Math.max(maxLen, kw.length);
        let node = 0;
        for (let i = 0; i < kw.length; i++) {
          (extending[node] as Set<number>).add(rule);
          const unit = kw.charCodeAt(i);
          let sym = symbolMap.get(unit);
          if (sym === undefined) {
            sym = symbolMap.size + 1;
            symbolMap.set(unit, sym);
          }
          const kids = children[node] as Map<number, number>;
          let child = kids.get(sym);
          if (child === undefined) {
            child = children.length;
            kids.set(sym, child);
            children.push(new Map());
            depth.push((depth[node] as number) + 1);
            own.push([]);
            extending.push(new Set());
          }
          node = child;
        }
        const hits = own[node] as KeywordHit[];
        if (!hits.some((h) => h.rule === rule)) hits.push({ rule, length: kw.length });
      }
    });
    this.keywords = [...distinct];
    this.symbols = symbolMap.size + 1;
    this.nodeCount = children.length;
    this.maxKeywordLength = maxLen;
    this.symbolOf = new Uint16Array(0x10000);
    const folded = foldedUnits();
    const symbolOfFolded = new Uint16Array(0x10000);
    for (const [unit, sym] of symbolMap) symbolOfFolded[unit] = sym;
    for (let unit = 0; unit < 0x10000; unit++) {
      this.symbolOf[unit] = symbolOfFolded[folded[unit] as number] as number;
    }
    // Nodes numbered breadth-first: the shallow nodes ordinary text visits all the time
    // share the first rows of `goto` (in insertion order they were spread over megabytes).
    const order = [0];
    for (let head = 0; head < order.length; head++) {
      for (const child of (children[order[head] as number] as Map<number, number>).values()) {
        order.push(child);
      }
    }
    const renumbered = new Int32Array(order.length);
    order.forEach((old, id) => {
      renumbered[old] = id;
    });
    const width = this.symbols;
    this.goto = new Int32Array(this.nodeCount * width);
    this.fail = new Int32Array(this.nodeCount);
    this.depth = Int32Array.from(order, (old) => depth[old] as number);
    this.outputs = order.map((old) => [...(own[old] as KeywordHit[])]);
    // Resolve failure links and complete the goto function in that order: a node's row is
    // its failure node's row (shallower, so already complete) with its own children set.
    for (let node = 0; node < this.nodeCount; node++) {
      const fail = this.fail[node] as number;
      const row = node * width;
      if (node > 0) {
        this.outputs[node] = [
          ...(this.outputs[node] as KeywordHit[]),
          ...(this.outputs[fail] as KeywordHit[]),
        ];
        this.goto.copyWithin(row, fail * width, fail * width + width);
      }
      for (const [sym, old] of children[order[node] as number] as Map<number, number>) {
        const child = renumbered[old] as number;
        this.fail[child] = node === 0 ? 0 : (this.goto[fail * width + sym] as number);
        this.goto[row + sym] = child;
      }
    }
    this.extendingRules = order.map((old) => [...(extending[old] as Set<number>)]);
    this.hasOutput = Uint8Array.from(this.outputs, (o) => (o.length > 0 ? 1 : 0));
  }

  /** For each folded keyword unit, every code unit that folds to it. */
  foldPreimage(): Map<number, number[]> {
    const preimage = new Map<number, number[]>();
    const table = foldedUnits();
    for (let unit = 0; unit < 0x10000; unit++) {
      if (this.symbolOf[unit] === 0) continue;
      const folded = table[unit] as number;
      const list = preimage.get(folded) ?? [];
      list.push(unit);
      preimage.set(folded, list);
    }
    return preimage;
  }

  next(node: number, unit: number): number {
    const sym = this.symbolOf[unit] as number;
    return sym === 0 ? 0 : (this.goto[node * this.symbols + sym] as number);
  }
}
