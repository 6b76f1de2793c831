/**
 * Whether a keyword of some active keyword rule occurs in a text, case-folded
 * as the keyword automaton folds (`foldText`). When none does, no keyword rule
 * can match there: a keyword rule's thread starts only where one of its
 * keywords occurs (keyword-automaton.ts, scanner.ts). A whole-text scan with
 * `alwaysOnOnly` then finds exactly what the full rule set finds, and needs no
 * keyword automaton, so a page's first request can be scanned while the pack's
 * automata are still being built in steps (page-guard-config.ts, issue 4).
 *
 * It reads each text once per keyword: meant for short texts (see
 * `outgoingKeywordFree`, outgoing-dlp.ts).
 */
import type { CompiledPack, CompiledRule } from '../rules/compiled-pack.ts';
import { foldText } from './keyword-automaton.ts';
import { type GuardOptions, activeRules } from './stream-guard.ts';

/** Each keyword rule's keywords, folded once per rule. */
const foldedKeywords = new WeakMap<CompiledRule, readonly string[]>();

function keywordsOf(rule: CompiledRule): readonly string[] {
  let folded = foldedKeywords.get(rule);
  if (folded === undefined) {
    folded = (rule.keywords ?? []).map(foldText);
    foldedKeywords.set(rule, folded);
  }
  return folded;
}

/** True when some keyword of a keyword rule active under `options` occurs in one of `texts`. */
export function keywordOccursIn(
  pack: CompiledPack,
  options: GuardOptions,
  texts: readonly string[],
): boolean {
  const folded = texts.map(foldText);
  for (const [rule] of activeRules(pack, { ...options, alwaysOnOnly: false })) {
    if (!rule.keyword) continue;
    for (const keyword of keywordsOf(rule)) {
      if (folded.some((text) => text.includes(keyword))) return true;
    }
  }
  return false;
}
