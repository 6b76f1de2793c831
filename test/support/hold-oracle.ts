/**
 * The minimal-hold oracle (issue 2, issue 17): brute force, straight on each
 * rule's NFA, sharing nothing with the engine's lazy DFA, threads, keyword
 * automata, rendered view or span merging.
 *
 * The text is first rendered as a person sees it, by a whole-text renderer of
 * its own (DESIGN.md §3.10): character references decoded; invisible code
 * points, `*`, backticks and `<!--` hidden from every match; comment content
 * hidden from a match that began before the comment. A suffix that is still
 * undecided (an `&` or `<` whose next units are not here yet) must be held.
 *
 * `least(text)`: the length of the longest suffix that is still a live prefix
 * of some text-changing rule's match (the theoretical minimum hold).
 * `bound(text)`: what union semantics may hold on top of that: complete
 * matches that overlap the live suffix (they are redacted together with what
 * it may still become), chained leftwards. Validators and value parts are not
 * applied, so this is an upper bound.
 */
import { NAMED_REFERENCES } from '../../src/core/guard/named-references.ts';
import type { CompiledPack, CompiledRule } from '../../src/core/rules/compile-pack.ts';
import { unitKind } from '../../src/core/regex/alphabet.ts';
import { has } from '../../src/core/regex/char-set.ts';
import { type Nfa, type NfaState, UnitKind, conditionHolds } from '../../src/core/regex/nfa.ts';
import { distancesToFinal } from '../../src/core/regex/nfa-analysis.ts';

/** How far hidden units may stretch a match read as seen (DESIGN.md §3.10: four times its length). */
const STRETCH = 4;

const SEEN_KINDS = new Set(['secret', 'pii', 'custom']);

function hiddenCodeUnit(u: number): boolean {
  return (
    u === 0x2a ||
    u === 0x60 ||
    u === 0xad ||
    u === 0x34f ||
    u === 0x61c ||
    u === 0x115f ||
    u === 0x1160 ||
    u === 0x17b4 ||
    u === 0x17b5 ||
    (u >= 0x180b && u <= 0x180f) ||
    (u >= 0x200b && u <= 0x200f) ||
    (u >= 0x202a && u <= 0x202e) ||
    (u >= 0x2060 && u <= 0x206f) ||
    u === 0x3164 ||
    (u >= 0xfe00 && u <= 0xfe0f) ||
    u === 0xfeff ||
    u === 0xffa0 ||
    (u >= 0xfff0 && u <= 0xfff8) ||
    (u >= 0xdb40 && u <= 0xdb43)
  );
}

export interface Rendered {
  units: number[];
  /** Raw offset where each view unit begins. */
  rawStart: number[];
  /** Hidden from every match. */
  hidden: boolean[];
  /** For comment content: the view index where its run began; -1 elsewhere. */
  contentFrom: number[];
  /** Raw offset from which the input is still undecided. */
  pendingFrom: number;
}

const REFERENCE = /^&(?:#[xX]([0-9A-Fa-f]{1,6});|#([0-9]{1,7});|([A-Za-z][A-Za-z0-9]{0,31});)/;
const REFERENCE_PREFIX = /^&(?:#(?:[xX][0-9A-Fa-f]{0,6}|[0-9]{0,7})|[A-Za-z][A-Za-z0-9]{0,31})?$/;

/** The text so far as a person sees it (more may follow). */
export function render(text: string): Rendered {
  const r: Rendered = { units: [], rawStart: [], hidden: [], contentFrom: [], pendingFrom: 0 };
  let inComment = false;
  let dashes = 0;
  let runFrom = -1;
  let i = 0;
  const push = (u: number, raw: number, hidden: boolean, content: number) => {
    const prev = r.units.length - 1;
    const afterHiddenHigh =
      prev >= 0 && (r.units[prev] as number) >= 0xdb40 && (r.units[prev] as number) <= 0xdb43;
    r.units.push(u);
    r.rawStart.push(raw);
    r.hidden.push(hidden || (u >= 0xdc00 && u <= 0xdfff && afterHiddenHigh && content < 0));
    r.contentFrom.push(content);
  };
  while (i < text.length) {
    const u = text.charCodeAt(i);
    if (inComment) {
      if (runFrom < 0) runFrom = r.units.length;
      push(u, i, false, runFrom);
      if (u === 0x3e && dashes >= 2) {
        inComment = false;
        runFrom = -1;
      }
      dashes = u === 0x2d ? dashes + 1 : 0;
      i++;
      continue;
    }
    if (u === 0x26) {
      const rest = text.slice(i, i + 12);
      const m = REFERENCE.exec(rest);
      let decoded: string | undefined;
      if (m !== null) {
        if (m[3] !== undefined) decoded = NAMED_REFERENCES.get(m[3]);
        else {
          const cp = m[1] !== undefined ? parseInt(m[1], 16) : parseInt(m[2] as string, 10);
          const ok = cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
          decoded = String.fromCodePoint(ok ? cp : 0xfffd);
        }
      }
      if (m !== null && decoded !== undefined) {
        for (const c of decoded) {
          for (let k = 0; k < c.length; k++) {
            const d = c.charCodeAt(k);
            push(d, i, hiddenCodeUnit(d), -1);
          }
        }
        i += m[0].length;
        continue;
      }
      if (m === null && rest.length < 12 && REFERENCE_PREFIX.test(rest)) {
        r.pendingFrom = i;
        return r;
      }
    } else if (u === 0x3c) {
      if (text.startsWith('<!--', i)) {
        for (let k = 0; k < 4; k++) push(text.charCodeAt(i + k), i + k, true, -1);
        inComment = true;
        dashes = 2;
        i += 4;
        continue;
      }
      const rest = text.slice(i);
      if (rest.length < 4 && '<!--'.startsWith(rest)) {
        r.pendingFrom = i;
        return r;
      }
    }
    push(u, i, hiddenCodeUnit(u), -1);
    i++;
  }
  r.pendingFrom = text.length;
  return r;
}

function closure(
  nfa: Nfa,
  dist: Float64Array,
  seeds: number[],
  prev: UnitKind,
  next: UnitKind | null,
): Set<number> {
  const seen = new Set<number>();
  const stack = [...seeds];
  while (stack.length > 0) {
    const s = stack.pop() as number;
    if (seen.has(s) || dist[s] === Infinity) continue;
    seen.add(s);
    const st = nfa.states[s] as NfaState;
    stack.push(...st.eps);
    // With the next unit unknown, any condition may still hold.
    for (const c of st.cond)
      if (next === null || conditionHolds(c.when, prev, next)) stack.push(c.to);
  }
  return seen;
}

const KINDS = [UnitKind.Edge, UnitKind.Word, UnitKind.LineTerminator, UnitKind.Other];

interface OracleRule {
  rule: CompiledRule;
  dist: Float64Array;
  seen: boolean;
}

/** The view indices a match starting at `k` reads, in order (rendered-view semantics). */
function readIndices(v: Rendered, k: number, seen: boolean): number[] {
  const out: number[] = [];
  for (let q = k; q < v.units.length; q++) {
    if (seen) {
      if (v.hidden[q]) continue;
      const from = v.contentFrom[q] as number;
      if (from >= 0 && k < from) continue;
    }
    out.push(q);
  }
  return out;
}

/** Kind of what a person sees before a match read from `k`. */
function kindBefore(v: Rendered, k: number, seen: boolean): UnitKind {
  let q = k - 1;
  if (seen && (v.contentFrom[k] ?? -1) < 0) {
    while (q >= 0 && (v.hidden[q] || (v.contentFrom[q] as number) >= 0)) q--;
  }
  return q < 0 ? UnitKind.Edge : unitKind(v.units[q] as number);
}

type Step = (core: number[], prev: UnitKind, unit: number) => number[];

function stepper(nfa: Nfa, dist: Float64Array): Step {
  return (core, prev, unit) => {
    const next: number[] = [];
    for (const s of closure(nfa, dist, core, prev, unitKind(unit))) {
      const st = nfa.states[s] as NfaState;
      if (st.set && has(st.set, unit) && dist[st.to] !== Infinity) next.push(st.to);
    }
    return next;
  };
}

/**
 * Live: the match read from `k` is a prefix of a match that is not decided
 * yet: one more unit can still extend it within the rule's bounds, or whether
 * it matches still depends on the next unit (`\b`, `$`).
 */
function isLive(o: OracleRule, v: Rendered, units: readonly number[], k: number): boolean {
  const { rule, dist, seen } = o;
  const nfa = rule.nfa;
  if (seen && v.hidden[k]) return false;
  const step = stepper(nfa, dist);
  const minDist = (core: number[]) => Math.min(...core.map((s) => dist[s] as number));
  const read = readIndices(v, k, seen);
  if (read.length === 0) return false;
  const extent = v.units.length - k;
  if (extent > (seen ? rule.maxLength * STRETCH : rule.maxLength)) return false;
  let core = [nfa.start];
  let prev = kindBefore(v, k, seen);
  for (const q of read) {
    const unit = v.units[q] as number;
    core = step(core, prev, unit);
    if (core.length === 0) return false;
    prev = unitKind(unit);
  }
  const consumed = read.length;
  if (consumed + minDist(core) > rule.maxLength) return false;
  const extendable = units.some((unit) => {
    const next = step(core, prev, unit);
    return next.length > 0 && consumed + 1 + minDist(next) <= rule.maxLength;
  });
  if (extendable) return true;
  const accepts = KINDS.map((kind) => closure(nfa, dist, core, prev, kind).has(nfa.final));
  return accepts.some((a) => a !== accepts[0]);
}

/** View ends (exclusive) of the complete matches read from `k` (any next unit). */
function completeEnds(o: OracleRule, v: Rendered, k: number): number[] {
  const { rule, dist, seen } = o;
  const nfa = rule.nfa;
  if (seen && v.hidden[k]) return [];
  const step = stepper(nfa, dist);
  const ends: number[] = [];
  let core = [nfa.start];
  let prev = kindBefore(v, k, seen);
  let consumed = 0;
  for (const q of readIndices(v, k, seen)) {
    const unit = v.units[q] as number;
    core = step(core, prev, unit);
    if (core.length === 0) break;
    prev = unitKind(unit);
    consumed++;
    if (consumed > rule.maxLength) break;
    if (KINDS.some((kind) => closure(nfa, dist, core, prev, kind).has(nfa.final))) ends.push(q + 1);
  }
  return ends;
}

export interface HoldOracle {
  /** Units of `text` that must be held (the minimum). */
  least(text: string): number;
  /** Units of `text` that union semantics may hold (an upper bound). */
  bound(text: string): number;
}

export function makeHoldOracle(
  pack: CompiledPack,
  changing: (rule: CompiledRule) => boolean,
): HoldOracle {
  const rules: OracleRule[] = pack.rules.filter(changing).map((rule) => ({
    rule,
    dist: distancesToFinal(rule.nfa),
    seen: SEEN_KINDS.has(rule.kind),
  }));
  // One unit of each alphabet class stands for every unit of that class.
  const units = Array.from(pack.alphabet.representative);
  const reach = Math.max(
    0,
    ...rules.map(({ rule, seen }) => (seen ? rule.maxLength * STRETCH : rule.maxLength)),
  );
  /** Earliest view index from which some rule's match is live (units.length: none). */
  const earliestLive = (v: Rendered): number => {
    for (let k = Math.max(0, v.units.length - reach); k < v.units.length; k++) {
      if (rules.some((o) => isLive(o, v, units, k))) return k;
    }
    return v.units.length;
  };
  const rawOf = (v: Rendered, k: number): number =>
    k < v.units.length ? (v.rawStart[k] as number) : v.pendingFrom;
  return {
    least(text) {
      const v = render(text);
      return text.length - Math.min(rawOf(v, earliestLive(v)), v.pendingFrom);
    },
    bound(text) {
      const v = render(text);
      let cur = earliestLive(v);
      for (;;) {
        let next = cur;
        for (let i = Math.max(0, cur - reach); i < cur; i++) {
          if (rules.some((o) => completeEnds(o, v, i).some((end) => end > cur))) {
            next = i;
            break;
          }
        }
        if (next === cur) break;
        cur = next;
      }
      return text.length - Math.min(rawOf(v, cur), v.pendingFrom);
    },
  };
}
