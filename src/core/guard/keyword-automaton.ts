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

export function foldText(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) out += String.fromCharCode(foldUnit(text.charCodeAt(i)));
  return out;
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
    for (let unit = 0; unit < 0x10000; unit++) {
      const sym = symbolMap.get(foldUnit(unit));
      if (sym !== undefined) this.symbolOf[unit] = sym;
    }
    this.goto = new Int32Array(this.nodeCount * this.symbols);
    this.fail = new Int32Array(this.nodeCount);
    this.depth = Int32Array.from(depth);
    this.outputs = own.map((o) => [...o]);
    // Breadth-first: resolve failure links and complete the goto function.
    const queue: number[] = [];
    for (let sym = 1; sym < this.symbols; sym++) {
      const child = (children[0] as Map<number, number>).get(sym);
      if (child !== undefined) {
        this.goto[sym] = child;
        queue.push(child);
      }
    }
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head] as number;
      const fail = this.fail[node] as number;
      this.outputs[node] = [
        ...(this.outputs[node] as KeywordHit[]),
        ...(this.outputs[fail] as KeywordHit[]),
      ];
      for (let sym = 1; sym < this.symbols; sym++) {
        const child = (children[node] as Map<number, number>).get(sym);
        const viaFail = this.goto[fail * this.symbols + sym] as number;
        if (child !== undefined) {
          this.goto[node * this.symbols + sym] = child;
          this.fail[child] = viaFail;
          queue.push(child);
        } else {
          this.goto[node * this.symbols + sym] = viaFail;
        }
      }
    }
    this.extendingRules = extending.map((s) => [...s]);
    this.hasOutput = Uint8Array.from(this.outputs, (o) => (o.length > 0 ? 1 : 0));
  }

  /** For each folded keyword unit, every code unit that folds to it. */
  foldPreimage(): Map<number, number[]> {
    const preimage = new Map<number, number[]>();
    for (let unit = 0; unit < 0x10000; unit++) {
      if (this.symbolOf[unit] === 0) continue;
      const folded = foldUnit(unit);
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
