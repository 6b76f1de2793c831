/**
 * One case of "a secret is redacted whole" (DESIGN.md §3.10, issue 17 §3): a
 * value generated from a rule's own pattern, put in a context, disguised by a
 * transformation, streamed in chunks through the guard over every built-in
 * pack, as the extension runs them; then no 8-unit fragment of the secret as a
 * person sees it may be visible in the output as a person sees it.
 *
 * Used by test/property/secret-redacted-whole.test.ts; kept apart so a case can
 * be replayed and described on its own.
 */
import fc from 'fast-check';
import { scanChunks, scanText } from '../../src/core/guard/scan-text.ts';
import { combineKindPolicy } from '../../src/core/guard/kind-policy.ts';
import type { GuardEvent } from '../../src/core/guard/guard-event.ts';
import { builtinPackJson, compileGuardPack } from '../../src/core/rules/builtin-packs.ts';
import { type CompiledPack, compilePack } from '../../src/core/rules/compile-pack.ts';
import {
  DEFAULT_REPLACEMENT,
  type RuleAction,
  type RuleKind,
  type RuleSpec,
} from '../../src/core/rules/rule.ts';
import { DEFAULT_INCOMING_POLICY } from '../../src/background/default-settings.ts';
import { classSampler, patternStringsOf, Rng } from './pattern-strings.ts';
import {
  CONTEXTS,
  FRAGMENT,
  SETTING_NAMES,
  TRANSFORMATION_KINDS,
  type TransformationKind,
  around,
  excerpt,
  leakedFragments,
  seenText,
  transform,
} from './secret-contexts.ts';
import { cut, cutsArbitrary } from './text-arbitraries.ts';

/** The extension's default policy for answers (a floor under each rule's own action). */
export const POLICY: Partial<Record<RuleKind, RuleAction>> = { ...DEFAULT_INCOMING_POLICY };

const mergedRules: readonly RuleSpec[] = builtinPackJson().rules;

function effectiveAction(rule: RuleSpec): RuleAction {
  return combineKindPolicy(rule.action, POLICY[rule.kind]);
}

/** Every secret and PII rule that changes text under the default policy. */
export const TARGET_RULES: readonly RuleSpec[] = mergedRules.filter(
  (r) =>
    (r.kind === 'secret' || r.kind === 'pii') &&
    (effectiveAction(r) === 'redact' || effectiveAction(r) === 'block'),
);

let fullPack: CompiledPack | undefined;

/** Every built-in pack merged and compiled, as the extension runs them. */
export function builtinPack(): CompiledPack {
  fullPack ??= compileGuardPack();
  return fullPack;
}

const onePacks = new Map<string, CompiledPack>();

/** `rule` alone in a pack. */
function onePack(rule: RuleSpec): CompiledPack {
  let pack = onePacks.get(rule.id);
  if (pack === undefined) {
    pack = compilePack({ name: `only-${rule.id}`, version: '1', rules: [rule] });
    onePacks.set(rule.id, pack);
  }
  return pack;
}

/** True when `rule`, alone, redacts (or blocks) something of `m` scanned bare. */
export function redactsAlone(rule: RuleSpec, m: string): boolean {
  return scanText(onePack(rule), m, { policy: POLICY }).events.some(
    (e) => e.type === 'match' && e.rule === rule.id && e.action !== 'flag',
  );
}

/**
 * The secret of a match `m`: the first group of the rule's `value` expression
 * (the rest is the name and operator that stay visible), else all of `m`.
 */
export function secretSpan(rule: RuleSpec, m: string): { start: number; end: number } {
  if (rule.value !== undefined) {
    const found = new RegExp(rule.value, 'd').exec(m);
    const span = found?.indices?.[1];
    if (span !== undefined) return { start: span[0], end: span[1] };
  }
  return { start: 0, end: m.length };
}

/**
 * A name and an operator at the start of a match: `aws_secret_access_key = `,
 * `"key": `, `dropbox" ?=`, `passport: ` (not `SG.ab=c` or `jdbc:postgresql`: a
 * one-character operator inside a value has no space or quote beside it).
 */
const LEADING_NAME =
  /^["'`]?[A-Za-z_][\w.-]*["'`]{0,4}[ \t]*(?::{1,3}=|\?=|=>|\|\||[:=,](?=[ \t"'`])|(?<=[ \t"'`])[:=,])/;

/**
 * Whether `m` carries its own name or operator, so it goes into a context as a
 * whole (`password = "…"` on a line of its own) rather than under a name of
 * ours. A rule with `value` says so itself (text before the value); for rules
 * without it, the text before their validator's `part` or a leading `name =`.
 */
export function carriesOwnName(rule: RuleSpec, m: string): boolean {
  if (rule.value !== undefined) return secretSpan(rule, m).start > 0;
  const part = rule.validator?.part;
  if (part !== undefined) {
    const found = new RegExp(part, 'd').exec(m);
    const start = found?.indices?.[1]?.[0];
    if (start !== undefined && start > 0) {
      return /[=:\s,|>]/.test(m.slice(0, start).replace(/:\/\//g, ''));
    }
  }
  return LEADING_NAME.test(m);
}

function luhnRepaired(m: string): string {
  const digits = [...m].flatMap((c, i) => (c >= '0' && c <= '9' ? [i] : []));
  const last = digits[digits.length - 1];
  if (last === undefined) return m;
  let sum = 0;
  digits.slice(0, -1).forEach((at, k) => {
    let d = Number(m[at]);
    // Doubled: every second digit counting leftwards from the check digit.
    if ((digits.length - 1 - k) % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  });
  return m.slice(0, last) + String((10 - (sum % 10)) % 10) + m.slice(last + 1);
}

/** A country whose IBANs have each length (ISO 13616 registry). */
const IBAN_COUNTRY_BY_LENGTH: Readonly<Record<number, string>> = {
  15: 'NO',
  16: 'BE',
  18: 'NL',
  19: 'MK',
  20: 'AT',
  21: 'CH',
  22: 'DE',
  23: 'AE',
  24: 'ES',
  25: 'PT',
  26: 'IS',
  27: 'FR',
  28: 'PL',
  29: 'BR',
  30: 'JO',
  31: 'MT',
  32: 'LC',
  33: 'RU',
};

function ibanRepaired(m: string): string {
  const compact = m.replace(/ /g, '').toUpperCase();
  const country = IBAN_COUNTRY_BY_LENGTH[compact.length];
  if (country === undefined) return m;
  const body = compact.slice(4) + country + '00';
  let rem = 0;
  for (const c of body) {
    const v = c >= '0' && c <= '9' ? Number(c) : c.charCodeAt(0) - 55;
    rem = (rem * (v > 9 ? 100 : 10) + v) % 97;
  }
  return country + String(98 - rem).padStart(2, '0') + m.slice(4);
}

function cnResidentIdRepaired(m: string): string {
  if (!/^[0-9]{17}[0-9Xx]$/.test(m)) return m;
  // A region that exists (Beijing), a day every month has, then the check character.
  const first17 =
    '11' +
    m.slice(2, 12) +
    String(Math.min(Number(m.slice(12, 14)), 28)).padStart(2, '0') +
    m.slice(14, 17);
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(first17[i]) * (weights[i] as number);
  return first17 + ('10X98765432'[sum % 11] as string);
}

/**
 * `m` with its check digits made right, for the rules whose validator checks a
 * checksum (cards, IBANs, resident IDs): a random string would almost never pass,
 * and the rule would go untested. Other rules' samples are left as they are.
 */
export function withValidChecksum(rule: RuleSpec, m: string): string {
  const repair =
    rule.validator?.name === 'luhn'
      ? luhnRepaired
      : rule.validator?.name === 'iban'
        ? ibanRepaired
        : rule.validator?.name === 'cn-resident-id'
          ? cnResidentIdRepaired
          : undefined;
  if (repair === undefined) return m;
  const repaired = repair(m);
  return patternStringsOf(rule).matches(repaired) ? repaired : m;
}

/** Everything one case is drawn from (fast-check draws these; see the property test). */
export interface CaseDraw {
  rule: number;
  seed: number;
  /** Continuation units appended to the value past the rule's bound (rules with `continuation`). */
  overrun: number;
  context: number;
  name: number;
  transformation: TransformationKind;
  transformSeed: number;
  cuts: number[];
}

const index = (length: number) => fc.noBias(fc.integer({ min: 0, max: length - 1 }));

/**
 * One draw per run: a rule (uniformly: fast-check's integers lean towards their
 * bounds), a sample seed, sometimes an overrun, a context, a name, a
 * transformation and a chunking. Seeds are not shrunk (a smaller seed is not a
 * simpler sample); the rest shrinks towards the first rule, context and name,
 * no transformation and one chunk.
 */
export const caseDrawArbitrary: fc.Arbitrary<CaseDraw> = fc.record({
  rule: index(TARGET_RULES.length),
  seed: fc.noShrink(fc.integer()),
  overrun: fc.oneof(
    { weight: 4, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 80 }) },
  ),
  context: index(CONTEXTS.length),
  name: index(SETTING_NAMES.length),
  transformation: fc.constantFrom(...TRANSFORMATION_KINDS),
  transformSeed: fc.noShrink(fc.integer()),
  cuts: cutsArbitrary,
});

export interface CaseSample {
  rule: RuleSpec;
  /** The generated match (with any overrun). */
  m: string;
  secret: string;
  /** The text around the secret, and the secret as written (transformed). */
  before: string;
  after: string;
  written: string;
  text: string;
  context: string;
  name: string;
  transformation: string;
  overrun: number;
  chunks: string[];
}

/**
 * The case a draw stands for, or `undefined` when it is not one (the rule alone
 * does not redact the sample, a validator's choice; or the secret is shorter
 * than FRAGMENT units).
 */
export function caseOf(draw: CaseDraw): CaseSample | undefined {
  const rule = TARGET_RULES[draw.rule] as RuleSpec;
  let m = patternStringsOf(rule).sample(draw.seed);
  const { start } = secretSpan(rule, m);
  let { end } = secretSpan(rule, m);
  let overrun = 0;
  if (draw.overrun > 0 && rule.continuation !== undefined && end === m.length) {
    const sampler = classSampler(rule.continuation);
    const rng = new Rng(draw.seed ^ 0x5bd1e995);
    let tail = '';
    for (let i = 0; i < draw.overrun; i++) tail += sampler.draw(rng, true);
    m += tail;
    end = m.length;
    overrun = tail.length;
  }
  m = withValidChecksum(rule, m);
  if (!redactsAlone(rule, m)) return undefined;
  const secret = m.slice(start, end);
  if (seenText(secret).length < FRAGMENT) return undefined;
  const whole = carriesOwnName(rule, m);
  let context = CONTEXTS[draw.context % CONTEXTS.length] as (typeof CONTEXTS)[number];
  for (let i = 1; context.fits?.(m) === false; i++) {
    context = CONTEXTS[(draw.context + i) % CONTEXTS.length] as (typeof CONTEXTS)[number];
  }
  const name = SETTING_NAMES[draw.name % SETTING_NAMES.length] as (typeof SETTING_NAMES)[number];
  const [ctxBefore, ctxAfter] = around(context, name, whole);
  const before = ctxBefore + m.slice(0, start);
  const after = m.slice(end) + ctxAfter;
  const t = transform(draw.transformation, secret, draw.transformSeed);
  const text = before + t.text + after;
  return {
    rule,
    m,
    secret,
    before,
    after,
    written: t.text,
    text,
    context: `${context.id}${whole ? ' (whole match)' : ''}`,
    name: whole ? '(its own)' : name.env,
    transformation: t.description,
    overrun,
    chunks: cut(text, draw.cuts),
  };
}

/** Placeholders the guard writes (`[redacted:…]`, `[link blocked: …]`), from the packs' templates. */
const PLACEHOLDER = new RegExp(
  [
    ...new Set(
      mergedRules
        .filter((r) => r.action !== 'flag' && r.action !== 'off')
        .map((r) => r.replacement ?? DEFAULT_REPLACEMENT)
        .filter((t) => t.length > 0),
    ),
  ]
    .map((t) =>
      t
        .split(/(\{id\}|\{host\})/)
        .map((piece) =>
          piece === '{id}' || piece === '{host}'
            ? '[^\\]\\n]*'
            : piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
        )
        .join(''),
    )
    .join('|'),
  'g',
);

/** `output` as a person reads it, with the guard's placeholders taken out (a rule id is not a leak). */
export function seenOutput(output: string): string {
  return seenText(output.replace(PLACEHOLDER, '\u0000'));
}

export interface CaseOutcome {
  output: string;
  events: GuardEvent[];
  blocked: boolean;
  /** Why the case fails, readable; undefined when it holds. */
  failure?: string;
  /** A short class of the failure: `leak`, `error`, `unexplained block`. */
  failureKind?: string;
  leaks: { fragment: string; at: number }[];
}

function describeEvents(events: readonly GuardEvent[]): string {
  return events
    .map((e) =>
      e.type === 'match'
        ? `${e.rule} ${e.action} [${e.start},${e.end})`
        : `error ${e.rule ?? ''}: ${e.message}`,
    )
    .join('; ');
}

/** Where `fragment` shows in `raw` (or, disguised, about where it is in the seen text). */
function rawIndex(raw: string, seen: string, fragment: string): number {
  const at = raw.indexOf(fragment);
  return at >= 0 ? at : seen.indexOf(fragment);
}

/** Streams the case through the built-in pack and judges the output. */
export function runCase(c: CaseSample): CaseOutcome {
  const result = scanChunks(builtinPack(), c.chunks, { policy: POLICY });
  const seenSecret = seenText(c.secret);
  const leaks = leakedFragments(seenSecret, seenOutput(result.output), [
    seenText(c.before),
    seenText(c.after),
  ]);
  const errors = result.events.filter((e) => e.type === 'error');
  const blockedByRule = result.events.some((e) => e.type === 'match' && e.action === 'block');
  let failureKind: string | undefined;
  if (errors.length > 0) failureKind = 'error';
  else if (result.blocked && !blockedByRule) failureKind = 'unexplained block';
  else if (leaks.length > 0) failureKind = 'leak';
  const outcome: CaseOutcome = {
    output: result.output,
    events: result.events,
    blocked: result.blocked,
    leaks,
  };
  if (failureKind === undefined) return outcome;
  const first = leaks[0];
  const seenOut = seenOutput(result.output);
  const lines = [
    `rule ${c.rule.id}: ${failureKind} in context ${c.context}, name ${c.name}, transformation ${c.transformation}` +
      (c.overrun > 0 ? `, ${c.overrun} units past the bound` : '') +
      `, ${c.chunks.length} chunk(s)`,
    ...(first === undefined
      ? []
      : [
          `  ${leaks.length} of ${Math.max(0, seenSecret.length - FRAGMENT + 1)} fragments of the secret (as seen) are visible; first ${JSON.stringify(first.fragment)} at ${first.at}`,
        ]),
    `  secret (as seen): ${excerpt(seenSecret, first?.at ?? -1)}`,
    `  text:             ${excerpt(c.text, c.before.length + (first?.at ?? 0))}`,
    `  output:           ${excerpt(result.output, first === undefined ? -1 : rawIndex(result.output, seenOut, first.fragment))}`,
    `  events:           ${describeEvents(result.events) || '(none)'}`,
  ];
  return { ...outcome, failure: lines.join('\n'), failureKind };
}
