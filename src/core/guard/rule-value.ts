/**
 * What a text-changing rule redacts of its match (DESIGN.md §3.10, issue 17
 * §2): its `value` (a regex whose first group is the value, so the name and
 * operator stay and a person reads `API_KEY=[redacted:…]`), and what still
 * continues that value past the rule's length bound (`continuation`).
 */
import type { CompiledRule } from '../rules/compile-pack.ts';

const valueRegexes = new WeakMap<CompiledRule, RegExp | null>();
const continuationTests = new WeakMap<CompiledRule, ((unit: number) => boolean) | null>();

/**
 * [from, to) of the value inside `text` (the match as its rule read it), or
 * null when the rule has no `value` or it finds none (then the whole match is
 * the value: redacting more is the safe side).
 */
export function valueRange(rule: CompiledRule, text: string): [number, number] | null {
  let re = valueRegexes.get(rule);
  if (re === undefined) {
    re = rule.spec.value === undefined ? null : new RegExp(rule.spec.value, 'd');
    valueRegexes.set(rule, re);
  }
  if (re === null) return null;
  const m = re.exec(text);
  const span = m?.indices?.[1];
  if (span === undefined || span[1] <= span[0]) return null;
  return [span[0], span[1]];
}

/** The rule's continuation class as a test on one code unit, or null. */
export function continuationOf(rule: CompiledRule): ((unit: number) => boolean) | null {
  let test = continuationTests.get(rule);
  if (test === undefined) {
    const source = rule.spec.continuation;
    if (source === undefined) {
      test = null;
    } else {
      const re = new RegExp(`^${source}$`);
      test = (unit) => re.test(String.fromCharCode(unit));
    }
    continuationTests.set(rule, test);
  }
  return test;
}
