/**
 * Rebuilds a CompiledPack from a SerialisedPack (serialised-pack.ts) without
 * the regex parser, the pack validator or the keyword proof: its import graph
 * reaches none of them (test/unit/rules/compiled-pack-imports.test.ts).
 *
 * Intended use. Compiling a pack parses every pattern and proves every
 * keyword list; the page's MAIN world should pay for neither (first-token
 * latency, and regexpp alone is a quarter of that bundle). So the extension
 * compiles packs in its own contexts (background / ISOLATED world), where
 * `compilePack` reports problems to the person, calls `serialiseCompiledPack`
 * and hands the plain data to the MAIN world over the private page channel
 * (structured clone or JSON). The MAIN world calls `loadCompiledPack(data,
 * options)` with the same compile options, once per pack version, and keeps
 * the result for every stream. The CLI and tests keep calling `compilePack`.
 *
 * The data crosses a channel, so it is checked, not trusted: shapes, types,
 * enum values, every index and range, set normalisation and size bounds. The
 * parts that can be recomputed cheaply are recomputed and must agree with the
 * data (reachability and the longest match, in linear passes); the alphabet,
 * the DFAs, start classes and keyword automata are rebuilt as compilePack
 * builds them. What cannot be re-proved without the compiler is that keywords
 * prefix every match: the loader trusts the producer on that, as it trusts it
 * on the pattern itself. Any problem throws CompiledPackError naming the
 * place. A keyword rule's automaton is checked the first time it is needed,
 * not at load (`ruleAutomaton` says why); everything else before the pack is
 * returned.
 */
import { runToEnd } from '../guard/run-to-end.ts';
import { MAX_UNIT, type CharSet, internSet } from '../regex/char-set.ts';
import { CONDITIONS, MAX_NFA_STATES, Nfa } from '../regex/nfa.ts';
import { distancesToFinal, maxMatchLength } from '../regex/nfa-analysis.ts';
import {
  type CompileOptions,
  type CompiledPack,
  type RuleAnalysis,
  type RuleAutomaton,
  assembleCompiledPackSteps,
} from './compiled-pack.ts';
import {
  RULE_ACTIONS,
  RULE_KINDS,
  RULE_SCOPES,
  type RuleSpec,
  VALIDATOR_NAMES,
  type ValidatorSpec,
} from './rule.ts';
import {
  SERIALISED_PACK_FORMAT,
  SERIALISED_PACK_VERSION,
  type SerialisedSpec,
} from './serialised-pack.ts';

export class CompiledPackError extends Error {
  override name = 'CompiledPackError';
  constructor(
    /** Where in the data, e.g. `rules[3].nfa.epsDelta`. */
    readonly path: string,
    problem: string,
  ) {
    super(`invalid compiled pack at ${path}: ${problem}`);
  }
}

/** Bounds on what one load may allocate (the built-in packs use a fraction). */
const MAX_RULES = 10_000;
const MAX_TOTAL_STATES = 4_000_000;
const MAX_EDGES_PER_STATE = 8;

type Json = Record<string, unknown>;

function fail(path: string, problem: string): never {
  throw new CompiledPackError(path, problem);
}

function object(value: unknown, path: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(path, 'must be an object');
  }
  return value as Json;
}

function string(value: unknown, path: string): string {
  if (typeof value !== 'string') fail(path, 'must be a string');
  return value;
}

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

function integer(value: unknown, path: string, min: number, max: number): number {
  if (!isIntegerIn(value, min, max)) fail(path, `must be an integer from ${min} to ${max}`);
  return value;
}

/**
 * `integer` for the elements of the big columns: the element's path is built
 * only when it fails (building one per element was most of a load).
 */
function element(value: unknown, path: string, index: number, min: number, max: number): number {
  if (!isIntegerIn(value, min, max)) {
    fail(`${path}[${index}]`, `must be an integer from ${min} to ${max}`);
  }
  return value;
}

function array(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) fail(path, 'must be an array');
  return value;
}

function stringList(value: unknown, path: string): string[] {
  const list = [...array(value, path)];
  list.forEach((v, i) => {
    if (typeof v !== 'string') fail(`${path}[${i}]`, 'must be a string');
  });
  return list as string[];
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], path: string): T {
  if (!allowed.includes(value as T)) fail(path, `must be one of ${allowed.join(', ')}`);
  return value as T;
}

function validatorSpec(value: unknown, path: string): ValidatorSpec {
  const v = object(value, path);
  const out: ValidatorSpec = { name: oneOf(v.name, VALIDATOR_NAMES, `${path}.name`) };
  if (v.minEntropy !== undefined) {
    if (typeof v.minEntropy !== 'number' || !Number.isFinite(v.minEntropy)) {
      fail(`${path}.minEntropy`, 'must be a finite number');
    }
    out.minEntropy = v.minEntropy;
  }
  if (v.part !== undefined) {
    out.part = string(v.part, `${path}.part`);
    try {
      new RegExp(out.part);
    } catch {
      fail(`${path}.part`, 'must be a valid regular expression');
    }
  }
  return out;
}

/** The runtime spec of a rule; pattern and examples are not carried (see serialised-pack.ts). */
function ruleSpec(value: unknown, path: string): RuleSpec {
  const v = object(value, path);
  const spec: SerialisedSpec = {
    id: string(v.id, `${path}.id`),
    kind: oneOf(v.kind, RULE_KINDS, `${path}.kind`),
    description: string(v.description, `${path}.description`),
    action: oneOf(v.action, RULE_ACTIONS, `${path}.action`),
  };
  if (spec.id.length === 0) fail(`${path}.id`, 'must not be empty');
  if (v.flags !== undefined) spec.flags = string(v.flags, `${path}.flags`);
  if (v.keywords !== undefined) {
    spec.keywords = stringList(v.keywords, `${path}.keywords`);
    if (spec.keywords.length === 0 || spec.keywords.some((k) => k.length === 0)) {
      fail(`${path}.keywords`, 'must be non-empty strings');
    }
  }
  if (v.maxLength !== undefined) {
    spec.maxLength = integer(v.maxLength, `${path}.maxLength`, 1, Number.MAX_SAFE_INTEGER);
  }
  if (v.scope !== undefined) spec.scope = oneOf(v.scope, RULE_SCOPES, `${path}.scope`);
  if (v.validator !== undefined) spec.validator = validatorSpec(v.validator, `${path}.validator`);
  if (v.allow !== undefined) spec.allow = stringList(v.allow, `${path}.allow`);
  if (v.replacement !== undefined) spec.replacement = string(v.replacement, `${path}.replacement`);
  if (v.raises !== undefined) {
    const r = object(v.raises, `${path}.raises`);
    spec.raises = {
      flag: string(r.flag, `${path}.raises.flag`),
      turns: integer(r.turns, `${path}.raises.turns`, 0, Number.MAX_SAFE_INTEGER),
    };
  }
  if (v.escalation !== undefined) {
    const e = object(v.escalation, `${path}.escalation`);
    spec.escalation = {
      whenFlag: string(e.whenFlag, `${path}.escalation.whenFlag`),
      action: oneOf(e.action, RULE_ACTIONS, `${path}.escalation.action`),
    };
  }
  if (v.generic !== undefined) {
    if (typeof v.generic !== 'boolean') fail(`${path}.generic`, 'must be a boolean');
    spec.generic = v.generic;
  }
  if (v.value !== undefined) spec.value = string(v.value, `${path}.value`);
  if (v.continuation !== undefined) {
    spec.continuation = string(v.continuation, `${path}.continuation`);
  }
  return { ...spec, pattern: '', examples: { match: [], noMatch: [] } };
}

/** Decodes `[value, count, …]` into exactly `length` integers, each in [min, max]. */
function runLengthDecode(
  value: unknown,
  path: string,
  length: number,
  min: number,
  max: number,
): Int32Array {
  const runs = array(value, path);
  if (runs.length % 2 !== 0) fail(path, 'must hold [value, count] pairs');
  const out = new Int32Array(length);
  let at = 0;
  for (let i = 0; i < runs.length; i += 2) {
    const v = element(runs[i], path, i, min, max);
    const count = element(runs[i + 1], path, i + 1, 1, length - at);
    out.fill(v, at, at + count);
    at += count;
  }
  if (at !== length) fail(path, `must describe ${length} values (got ${at})`);
  return out;
}

function charSet(value: unknown, path: string): CharSet {
  const ranges = array(value, path);
  if (ranges.length === 0 || ranges.length % 2 !== 0) fail(path, 'must hold [lo, hi] pairs');
  let previousHi = -2;
  for (let i = 0; i < ranges.length; i += 2) {
    const lo = element(ranges[i], path, i, previousHi + 2, MAX_UNIT);
    previousHi = element(ranges[i + 1], path, i + 1, lo, MAX_UNIT);
  }
  return internSet(ranges as number[]);
}

/** Edge rows from per-state counts: the `start` array of compressed rows. */
function rowStarts(counts: Int32Array, path: string): Int32Array {
  const start = new Int32Array(counts.length + 1);
  for (let s = 0; s < counts.length; s++)
    start[s + 1] = (start[s] as number) + (counts[s] as number);
  if ((start[counts.length] as number) > MAX_EDGES_PER_STATE * Math.max(counts.length, 1) + 64) {
    fail(path, 'has too many edges');
  }
  return start;
}

/** Targets from differences to the previous edge's target, each checked to be a state. */
function edgeTargets(deltas: Int32Array, n: number, path: string): Int32Array {
  const targets = new Int32Array(deltas.length);
  let previous = 0;
  for (let e = 0; e < deltas.length; e++) {
    const t = previous + (deltas[e] as number);
    if (t < 0 || t >= n) fail(`${path}[edge ${e}]`, `targets state ${t}, outside 0..${n - 1}`);
    targets[e] = t;
    previous = t;
  }
  return targets;
}

/** What is checked of a rule's automaton at load: its size, its ends and its sets. */
interface NfaOutline {
  states: number;
  start: number;
  final: number;
  sets: CharSet[];
}

function nfaOutline(v: Json, path: string, budget: { states: number }): NfaOutline {
  const states = integer(v.states, `${path}.states`, 1, MAX_NFA_STATES);
  budget.states -= states;
  if (budget.states < 0) fail(`${path}.states`, 'the pack has too many states in all');
  return {
    states,
    start: integer(v.start, `${path}.start`, 0, states - 1),
    final: integer(v.final, `${path}.final`, 0, states - 1),
    sets: array(v.sets, `${path}.sets`).map((s, i) => charSet(s, `${path}.sets[${i}]`)),
  };
}

function nfaOf(v: Json, path: string, outline: NfaOutline): Nfa {
  const { states: n, start, final, sets } = outline;
  const setOf = runLengthDecode(v.setOf, `${path}.setOf`, n, -1, sets.length - 1);
  const toDelta = runLengthDecode(v.toDelta, `${path}.toDelta`, n, -n, n);
  const to = new Int32Array(n);
  for (let s = 0; s < n; s++) {
    if ((setOf[s] as number) < 0) {
      if (toDelta[s] !== 0) fail(`${path}.toDelta`, `state ${s} consumes nothing but has a target`);
      to[s] = -1;
    } else {
      const t = s + (toDelta[s] as number);
      if (t < 0 || t >= n) fail(`${path}.toDelta`, `state ${s} targets ${t}, outside 0..${n - 1}`);
      to[s] = t;
    }
  }
  const maxRow = MAX_EDGES_PER_STATE * n + 64;
  const epsStart = rowStarts(
    runLengthDecode(v.epsCount, `${path}.epsCount`, n, 0, maxRow),
    `${path}.epsCount`,
  );
  const epsDeltas = runLengthDecode(v.epsDelta, `${path}.epsDelta`, epsStart[n] as number, -n, n);
  const condStart = rowStarts(
    runLengthDecode(v.condCount, `${path}.condCount`, n, 0, maxRow),
    `${path}.condCount`,
  );
  const condEdges = condStart[n] as number;
  const condDeltas = runLengthDecode(v.condDelta, `${path}.condDelta`, condEdges, -n, n);
  const condWhen = Uint8Array.from(
    runLengthDecode(v.condWhen, `${path}.condWhen`, condEdges, 0, CONDITIONS.length - 1),
  );
  return new Nfa({
    start,
    final,
    sets,
    setOf,
    to,
    epsStart,
    epsTo: edgeTargets(epsDeltas, n, `${path}.epsDelta`),
    condStart,
    condTo: edgeTargets(condDeltas, n, `${path}.condDelta`),
    condWhen,
  });
}

/**
 * The automaton decoded, and its distances and longest match recomputed, which
 * must agree with what the data declared: a pack whose declared bounds disagree
 * with its automaton would hold too little (or forever).
 */
function analyse(v: Json, path: string, outline: NfaOutline, declared: number): RuleAnalysis {
  const nfa = nfaOf(v, `${path}.nfa`, outline);
  const dist = distancesToFinal(nfa);
  if (dist[nfa.start] === Infinity) fail(`${path}.nfa`, 'the automaton can never match');
  const structuralMaxLength = maxMatchLength(nfa, dist);
  if (declared !== structuralMaxLength) {
    fail(`${path}.structuralMaxLength`, `the automaton's longest match is ${structuralMaxLength}`);
  }
  return { nfa, dist };
}

/** Any failure while decoding, as the CompiledPackError it is for the caller. */
function asPackError(error: unknown, path: string): CompiledPackError {
  if (error instanceof CompiledPackError) return error;
  return new CompiledPackError(path, error instanceof Error ? error.message : String(error));
}

/**
 * A rule, checked as far as the pack needs before its first scan: the spec,
 * the automaton's size and sets (the pack's alphabet is built from them) and
 * the declared lengths the hold is bounded by. The rest of a keyword rule's
 * automaton is decoded and checked the first time a scanner needs it (a
 * keyword of the rule turns up): most keyword rules never run on a given page,
 * and decoding all of them was most of loading the built-in packs there
 * (issue 4, the first request waits for the load). Then a malformed automaton
 * throws CompiledPackError inside the guard, which fails that stream or
 * request closed (stream-guard.ts), as a refused pack does; the same error
 * every time it is asked for. Always-on rules (no keywords) run from the first
 * unit of every stream, so theirs are checked here, now. Exported for the `csg`
 * bundle's built tables (built-tables.ts), which decode one rule's data only when
 * its automaton is first needed.
 */
export function ruleAutomaton(
  value: unknown,
  path: string,
  budget: { states: number },
  deferAll: boolean,
): { automaton: RuleAutomaton; cost: number } {
  const v = object(value, path);
  const spec = ruleSpec(v.spec, `${path}.spec`);
  const nfaData = object(v.nfa, `${path}.nfa`);
  const outline = nfaOutline(nfaData, `${path}.nfa`, budget);
  const declared =
    v.structuralMaxLength === null
      ? Infinity
      : integer(v.structuralMaxLength, `${path}.structuralMaxLength`, 1, Number.MAX_SAFE_INTEGER);
  const maxLength = Math.min(spec.maxLength ?? Infinity, declared);
  if (!Number.isFinite(maxLength) || maxLength <= 0) {
    fail(`${path}.maxLength`, 'the rule has no finite positive maximum length');
  }
  if (v.maxLength !== maxLength) fail(`${path}.maxLength`, `must be ${maxLength}`);
  let analysed: RuleAnalysis | undefined;
  let refused: CompiledPackError | undefined;
  const analysis = (): RuleAnalysis => {
    if (analysed !== undefined) return analysed;
    if (refused !== undefined) throw refused;
    try {
      analysed = analyse(nfaData, path, outline, declared);
    } catch (error) {
      refused = asPackError(error, path);
      throw refused;
    }
    return analysed;
  };
  const now = spec.keywords === undefined && !deferAll;
  if (now) analysis();
  return {
    automaton: { spec, sets: outline.sets, analysis, structuralMaxLength: declared, maxLength },
    cost: now ? outline.states : outline.sets.length + 1,
  };
}

export interface LoadOptions {
  /**
   * Check an always-on rule's automaton on first use too, like a keyword rule's,
   * instead of at load. For data as trusted as the code that loads it (the `csg`
   * bundle's own built-in pack, src/cli/builtin-pack.ts) whose warm tables give
   * the start classes: a short run then decodes only the rules its text starts
   * (issue 19 §2). A malformed automaton still throws CompiledPackError, inside
   * the scan that first needs it. The page never sets it: its pack crosses a
   * channel and is refused whole at load.
   */
  deferAlwaysOn?: boolean;
}

/**
 * Rebuilds a CompiledPack from serialised data; throws CompiledPackError on
 * anything malformed. `options` are the compile options, as for compilePack.
 */
export function loadCompiledPack(
  data: unknown,
  options: CompileOptions = {},
  load: LoadOptions = {},
): CompiledPack {
  return runToEnd(loadCompiledPackSteps(data, options, load));
}

/** Rule states checked between two yields of `loadCompiledPackSteps` (a few ms of work). */
const STATES_PER_STEP = 500;

/**
 * `loadCompiledPack` in steps, for a caller on a page's main thread: checking
 * every rule of the built-in packs is one long task, so this yields after
 * every STATES_PER_STEP rule states and once before assembling; the caller
 * resumes it from a later task (a timer, `scheduler.yield()`), and the
 * generator's return value is the pack. The same checks run in the same
 * order. The caller must not change `data` while stepping, nor while the
 * pack is in use: it is read across the steps, and a keyword rule's automaton
 * is read from it on first use (`ruleAutomaton`).
 */
export function* loadCompiledPackSteps(
  data: unknown,
  options: CompileOptions = {},
  load: LoadOptions = {},
): Generator<void, CompiledPack, void> {
  try {
    const v = object(data, 'pack');
    if (v.format !== SERIALISED_PACK_FORMAT)
      fail('pack.format', `must be "${SERIALISED_PACK_FORMAT}"`);
    if (v.formatVersion !== SERIALISED_PACK_VERSION) {
      fail('pack.formatVersion', `must be ${SERIALISED_PACK_VERSION} (recompile the pack)`);
    }
    const name = string(v.name, 'pack.name');
    const version = string(v.version, 'pack.version');
    const rules = array(v.rules, 'pack.rules');
    if (rules.length === 0 || rules.length > MAX_RULES) {
      fail('pack.rules', `must hold 1 to ${MAX_RULES} rules`);
    }
    const budget = { states: MAX_TOTAL_STATES };
    const automata: RuleAutomaton[] = [];
    let sinceYield = 0;
    for (let i = 0; i < rules.length; i++) {
      const { automaton, cost } = ruleAutomaton(
        rules[i],
        `pack.rules[${i}]`,
        budget,
        load.deferAlwaysOn === true,
      );
      automata.push(automaton);
      sinceYield += cost;
      if (sinceYield >= STATES_PER_STEP) {
        sinceYield = 0;
        yield;
      }
    }
    const ids = new Set<string>();
    automata.forEach((a, i) => {
      if (ids.has(a.spec.id)) fail(`pack.rules[${i}].spec.id`, `duplicates "${a.spec.id}"`);
      ids.add(a.spec.id);
    });
    yield;
    return yield* assembleCompiledPackSteps(name, version, automata, options);
  } catch (error) {
    // Whatever slipped past the checks (a bug, exhausted memory) is still a refused pack.
    throw asPackError(error, 'pack');
  }
}
