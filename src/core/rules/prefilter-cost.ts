/**
 * What a rule without keywords costs the scanner (issue 6: "a pack that makes
 * the keyword prefilter useless is reported by check with the expected cost").
 *
 * A keyword rule only starts where the Aho-Corasick prefilter sees one of its
 * keywords, so ordinary text costs it nothing. A rule without keywords starts a
 * thread wherever its first unit can occur; if that is almost anywhere (a
 * leading `[a-z]`, `.`, `\w`), every character of every stream pays for it.
 * The cost is measured deterministically on a fixed sample of ordinary text
 * (prose, code, a URL, numbers; English and Chinese): the share of positions
 * where the rule's automaton survives its first unit, and the automaton steps
 * spent per input character (each thread runs until its automaton dies or it
 * reaches the rule's maximum length).
 */
import { DEAD } from '../regex/lazy-dfa.ts';
import { UnitKind } from '../regex/nfa.ts';
import { unitKind } from '../regex/alphabet.ts';
import type { CompiledPack, CompiledRule } from './compile-pack.ts';
import { PREFILTER_SAMPLE } from './ordinary-text-sample.ts';

/**
 * The warning threshold of `csg rules check` (check-pack.ts): a rule without
 * keywords whose automaton survives its first unit at this share of the sample's
 * positions or more (30%: roughly "any letter") gets a warning, never an error.
 * Below it a rule starts on rarer units (digits, `@`, `[`, capitals after a word
 * boundary) and costs little next to the rest of the scan. The built-in packs
 * stay below it (test/unit/rules/prefilter-cost.test.ts), and the threshold is
 * printed in the warning.
 */
export const USELESS_PREFILTER_START_SHARE = 0.3;

export interface PrefilterCost {
  /** Share of sample positions where the rule's automaton survives its first unit. */
  startShare: number;
  /** Automaton steps per input character spent on this rule. */
  stepsPerChar: number;
}

function prevKind(text: string, i: number): UnitKind {
  return i === 0 ? UnitKind.Edge : unitKind(text.charCodeAt(i - 1));
}

export function prefilterCost(pack: CompiledPack, rule: CompiledRule): PrefilterCost {
  const { classOf } = pack.alphabet;
  let starts = 0;
  let steps = 0;
  for (let i = 0; i < PREFILTER_SAMPLE.length; i++) {
    let state = rule.dfa.start(prevKind(PREFILTER_SAMPLE, i));
    for (let j = i; state !== DEAD && j < PREFILTER_SAMPLE.length && j - i < rule.maxLength; j++) {
      // `step` returns the next state shifted left, the low bit saying "accepts here".
      state = rule.dfa.step(state, classOf[PREFILTER_SAMPLE.charCodeAt(j)] as number) >> 1;
      steps++;
      if (j === i && state !== DEAD) starts++;
    }
  }
  return {
    startShare: starts / PREFILTER_SAMPLE.length,
    stepsPerChar: steps / PREFILTER_SAMPLE.length,
  };
}
