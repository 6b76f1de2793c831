/**
 * Validator registry: runs a rule's `validator` on a candidate match.
 *
 * A candidate counts only when its validator accepts it (`ok: true`). For
 * `exfil-url`, `ok` means "risky" and `host` is what the replacement's `{host}`
 * names. Validators are pure and deterministic; a malformed `part` (which
 * `validatePack` rejects up front) throws, and the engine fails closed on a throw.
 */
import type { ValidatorSpec } from '../rule.ts';
import { cnResidentIdValid } from './cn-resident-id.ts';
import { entropyAtLeast } from './entropy.ts';
import { exfilUrlVerdict } from './exfil-url.ts';
import { ibanValid } from './iban.ts';
import { luhnValid } from './luhn.ts';
import { issuedCardNumber } from './payment-card-issuer.ts';
import { repeatedGroupCard } from './card-test-number.ts';
import { notPlaceholder } from './not-placeholder.ts';
import { emailIsPersonal } from './email-address.ts';
import { exfilHtmlImgVerdict } from './exfil-html-img.ts';
import { exfilLinkVerdict } from './exfil-link.ts';
import { tagRunIsSmuggling } from './tag-smuggling.ts';
import { usSsnValid } from './us-ssn.ts';

export { cnResidentIdCheckChar, cnResidentIdValid } from './cn-resident-id.ts';
export { entropyAtLeast, shannonEntropy } from './entropy.ts';
export { exfilUrlVerdict, hostIsAllowed, type ExfilUrlVerdict } from './exfil-url.ts';
export { IBAN_LENGTHS, ibanMod97, ibanValid } from './iban.ts';
export { luhnValid } from './luhn.ts';
export { issuedCardNumber } from './payment-card-issuer.ts';
export { repeatedGroupCard } from './card-test-number.ts';
export {
  looksLikePlaceholder,
  nameSaysNotSecret,
  notPlaceholder,
  wordsOnly,
} from './not-placeholder.ts';
export { isTimeBasedUuid } from './time-based-uuid.ts';
export { emailIsPersonal } from './email-address.ts';
export { exfilHtmlImgVerdict } from './exfil-html-img.ts';
export { exfilLinkVerdict } from './exfil-link.ts';
export { urlCarriesData } from './url-carries-data.ts';
export { tagRunIsSmuggling } from './tag-smuggling.ts';
export { usSsnValid } from './us-ssn.ts';

export interface ValidatorContext {
  /** Hosts (and their subdomains) Markdown images may load from; used by `exfil-url`. */
  readonly allowedImageHosts: readonly string[];
  /**
   * Up to 32 units of the text just before the candidate (the engine's lookbehind,
   * input-text.ts `textBefore`); '' at the stream start or where a caller has none.
   */
  readonly before?: string;
}

/**
 * The identifier a candidate's name continues (`PUBLIC_` before `KEY=…`, `publishable`
 * before `Key: …`): a rule starts at its keyword, so the words before it are read here
 * (issue 17 §4: a name that says the value is public does not make a generic secret).
 */
function nameBefore(before: string | undefined): string {
  if (before === undefined || before === '') return '';
  return /[A-Za-z0-9_.-]*$/.exec(before)?.[0] ?? '';
}

export interface ValidatorResult {
  /** True when the candidate is a real match (for `exfil-url`: the image is risky). */
  ok: boolean;
  /** `exfil-url` only: the host to name in the replacement (`{host}`). */
  host?: string;
}

/** Compiled `part` expressions, keyed by source (a pack has few; no `g`/`y`, so no `lastIndex` state). */
const partCache = new Map<string, RegExp>();

function compilePart(source: string): RegExp {
  let re = partCache.get(source);
  if (re === undefined) {
    re = new RegExp(source);
    partCache.set(source, re);
  }
  return re;
}

/**
 * The subject (see `validatorSubject`) and, for a part that names its value
 * (a generic rule's), the name the value is assigned to (`''` when the part
 * has no `(?<name>…)` group).
 */
function subjectAndName(
  spec: ValidatorSpec,
  candidate: string,
): { subject: string; name?: string } | undefined {
  if (spec.part === undefined) return { subject: candidate };
  const m = compilePart(spec.part).exec(candidate);
  if (m === null) return undefined;
  if (m.groups !== undefined && 'value' in m.groups) {
    return { subject: m.groups['value'] ?? '', name: m.groups['name'] ?? '' };
  }
  return { subject: m.length > 1 ? (m[1] ?? '') : m[0] };
}

/**
 * The text a validator checks: with `part`, the first capturing group of the
 * first match of `part` in the candidate (or the whole match when `part` has no
 * group); `undefined` when `part` does not match. A part that names its value
 * `(?<value>…)` is a generic rule's (an assignment whose value has no provider
 * format): the named group is the subject, and `not-placeholder` also judges
 * the value's shape (words only) and the name it is assigned to (`(?<name>…)`:
 * `key_id`, `publishable_key` are not secrets). `part` is compiled without
 * flags: it runs on a candidate, never on the stream, so any JS syntax
 * (lookaround included) is allowed there.
 */
export function validatorSubject(spec: ValidatorSpec, candidate: string): string | undefined {
  return subjectAndName(spec, candidate)?.subject;
}

export function runValidator(
  spec: ValidatorSpec,
  candidate: string,
  ctx: ValidatorContext,
): ValidatorResult {
  const found = subjectAndName(spec, candidate);
  if (found === undefined) return { ok: false };
  const { subject } = found;
  // A name that opens the candidate may have begun before it (the keyword is where the rule starts).
  const name =
    found.name !== undefined && found.name !== '' && candidate.startsWith(found.name)
      ? nameBefore(ctx.before) + found.name
      : found.name;
  switch (spec.name) {
    case 'luhn':
      // A card number: the Luhn check, an issuer's prefix and length, and not a
      // documented test number or a table row of one repeated group (issue 17 §4).
      return {
        ok: luhnValid(subject) && issuedCardNumber(subject) && !repeatedGroupCard(subject),
      };
    case 'iban':
      return { ok: ibanValid(subject) };
    case 'cn-resident-id':
      return { ok: cnResidentIdValid(subject) };
    case 'entropy': {
      if (spec.minEntropy === undefined) {
        throw new Error('validator "entropy" needs minEntropy');
      }
      return { ok: entropyAtLeast(subject, spec.minEntropy) };
    }
    case 'exfil-url': {
      const verdict = exfilUrlVerdict(subject, ctx.allowedImageHosts);
      return { ok: verdict.risky, host: verdict.host };
    }
    case 'not-placeholder':
      return { ok: notPlaceholder(subject, spec.minEntropy, name) };
    case 'exfil-link': {
      const verdict = exfilLinkVerdict(subject, ctx.allowedImageHosts);
      return { ok: verdict.risky, host: verdict.host };
    }
    case 'exfil-image': {
      const verdict = exfilLinkVerdict(subject, ctx.allowedImageHosts, 'image');
      return { ok: verdict.risky, host: verdict.host };
    }
    case 'exfil-html-img': {
      const verdict = exfilHtmlImgVerdict(subject, ctx.allowedImageHosts);
      return { ok: verdict.risky, host: verdict.host };
    }
    case 'us-ssn':
      return { ok: usSsnValid(subject) };
    case 'email':
      return { ok: emailIsPersonal(subject) };
    case 'tag-smuggling':
      return { ok: tagRunIsSmuggling(subject) };
    default: {
      const unknown: never = spec.name;
      throw new Error(`unknown validator ${JSON.stringify(unknown)}`);
    }
  }
}
