/**
 * A compiled pack as plain JSON-able data: per rule its spec (less the pattern
 * source and the examples, which only compiling and checking need), its NFA in
 * run-length-encoded columns, and the analysis results the loader re-checks.
 * `loadCompiledPack` (load-compiled-pack.ts) turns it back into a CompiledPack
 * without the regex parser; see there for the intended use.
 *
 * NFA columns are run-length encoded as `[value, count, value, count, …]`, and
 * targets are stored as differences (a unit step's target from its state, an
 * edge's target from the previous edge's): a bounded repetition is a chain
 * whose columns are long runs of one value (`to - s = 1`, every skip edge to
 * the same end), so a `{1,8000}` class costs a few numbers, not thousands.
 */
import type { Nfa } from '../regex/nfa.ts';
import type { CompiledPack, CompiledRule } from './compiled-pack.ts';
import type { RuleSpec } from './rule.ts';

export const SERIALISED_PACK_FORMAT = 'csg-compiled-pack';
/** Bumped whenever the layout or the NFA construction's meaning changes. */
export const SERIALISED_PACK_VERSION = 1;

/** A rule spec without the fields only compiling and checking read. */
export type SerialisedSpec = Omit<RuleSpec, 'pattern' | 'examples'>;

export interface SerialisedNfa {
  states: number;
  start: number;
  final: number;
  /** Distinct unit sets as `[lo0, hi0, lo1, hi1, …]` (sorted, disjoint, non-adjacent). */
  sets: number[][];
  /** Per state: index into `sets`, or -1 (RLE). */
  setOf: number[];
  /** Per state: `to - s` for a consuming state, 0 otherwise (RLE). */
  toDelta: number[];
  /** Per state: number of epsilon edges (RLE). */
  epsCount: number[];
  /** Per epsilon edge, grouped by source: target minus the previous edge's target (RLE). */
  epsDelta: number[];
  /** Per state: number of conditional edges (RLE). */
  condCount: number[];
  /** Per conditional edge: target minus the previous edge's target (RLE). */
  condDelta: number[];
  /** Per conditional edge: index into CONDITIONS (RLE). */
  condWhen: number[];
}

export interface SerialisedRule {
  spec: SerialisedSpec;
  /** Longest match the automaton allows; null when unbounded. */
  structuralMaxLength: number | null;
  maxLength: number;
  nfa: SerialisedNfa;
}

export interface SerialisedPack {
  format: typeof SERIALISED_PACK_FORMAT;
  formatVersion: number;
  name: string;
  version: string;
  rules: SerialisedRule[];
}

/** `[value, count, …]` for a sequence of integers. */
export function runLengthEncode(values: ArrayLike<number>): number[] {
  const out: number[] = [];
  for (let i = 0; i < values.length;) {
    const v = values[i] as number;
    let j = i + 1;
    while (j < values.length && values[j] === v) j++;
    out.push(v, j - i);
    i = j;
  }
  return out;
}

function edgeDeltas(targets: Int32Array): number[] {
  const deltas = new Int32Array(targets.length);
  let previous = 0;
  for (let e = 0; e < targets.length; e++) {
    deltas[e] = (targets[e] as number) - previous;
    previous = targets[e] as number;
  }
  return runLengthEncode(deltas);
}

function rowCounts(start: Int32Array): number[] {
  const counts = new Int32Array(start.length - 1);
  for (let s = 0; s < counts.length; s++) {
    counts[s] = (start[s + 1] as number) - (start[s] as number);
  }
  return runLengthEncode(counts);
}

export function serialiseNfa(nfa: Nfa): SerialisedNfa {
  const n = nfa.stateCount;
  const toDelta = new Int32Array(n);
  for (let s = 0; s < n; s++) {
    toDelta[s] = (nfa.setOf[s] as number) >= 0 ? (nfa.to[s] as number) - s : 0;
  }
  return {
    states: n,
    start: nfa.start,
    final: nfa.final,
    sets: nfa.sets.map((set) => [...set]),
    setOf: runLengthEncode(nfa.setOf),
    toDelta: runLengthEncode(toDelta),
    epsCount: rowCounts(nfa.epsStart),
    epsDelta: edgeDeltas(nfa.epsTo),
    condCount: rowCounts(nfa.condStart),
    condDelta: edgeDeltas(nfa.condTo),
    condWhen: runLengthEncode(nfa.condWhen),
  };
}

/** A deep copy of the spec's runtime fields (never the pattern or the examples). */
function serialiseSpec(spec: RuleSpec): SerialisedSpec {
  const out: SerialisedSpec = {
    id: spec.id,
    kind: spec.kind,
    description: spec.description,
    action: spec.action,
  };
  if (spec.flags !== undefined) out.flags = spec.flags;
  if (spec.keywords !== undefined) out.keywords = [...spec.keywords];
  if (spec.maxLength !== undefined) out.maxLength = spec.maxLength;
  if (spec.scope !== undefined) out.scope = spec.scope;
  if (spec.validator !== undefined) out.validator = { ...spec.validator };
  if (spec.allow !== undefined) out.allow = [...spec.allow];
  if (spec.replacement !== undefined) out.replacement = spec.replacement;
  if (spec.raises !== undefined) out.raises = { ...spec.raises };
  if (spec.escalation !== undefined) out.escalation = { ...spec.escalation };
  if (spec.generic !== undefined) out.generic = spec.generic;
  if (spec.value !== undefined) out.value = spec.value;
  if (spec.continuation !== undefined) out.continuation = spec.continuation;
  return out;
}

function serialiseRule(rule: CompiledRule): SerialisedRule {
  return {
    spec: serialiseSpec(rule.spec),
    structuralMaxLength: rule.structuralMaxLength === Infinity ? null : rule.structuralMaxLength,
    maxLength: rule.maxLength,
    nfa: serialiseNfa(rule.nfa),
  };
}

/**
 * The pack as plain data (JSON.stringify-able, structured-clone-able). The
 * compile options (allowed image hosts) are not part of it: they are given
 * again to `loadCompiledPack`, as they are to `compilePack`.
 */
export function serialiseCompiledPack(pack: CompiledPack): SerialisedPack {
  return {
    format: SERIALISED_PACK_FORMAT,
    formatVersion: SERIALISED_PACK_VERSION,
    name: pack.name,
    version: pack.version,
    rules: pack.rules.map(serialiseRule),
  };
}
