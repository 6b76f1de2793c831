/**
 * The words of the in-page notices, from `_locales` (English, Simplified
 * Chinese) through a `Translate` function. Rule and kind names in plain words
 * (issue 4): rules by their translated names (src/ui/rule-names.ts, shared with
 * the popup), kinds by a phrase that fits a sentence ("a secret").
 */
import type { RuleKind } from '../core/rules/rule.ts';
import type { PageMatchEvent } from '../protocol/guard-reports.ts';
import type { Translate } from '../ui/i18n.ts';
import { readableId, ruleName } from '../ui/rule-names.ts';

/** `secret` → "a secret" (key `notice_kind_secret`); a readable kind when untranslated. */
export function kindPhrase(kind: RuleKind, translate: Translate): string {
  const key = `notice_kind_${kind}`;
  const phrase = translate(key);
  return phrase === key || phrase === '' ? readableId(kind) : phrase;
}

/** "Chat Stream Guard redacted a secret (AWS access key) from the answer." and the like. */
export function matchNoticeText(
  event: Pick<PageMatchEvent, 'rule' | 'kind' | 'action'>,
  translate: Translate,
): string {
  const key = event.action === 'block' ? 'notice_blocked' : 'notice_redacted';
  return translate(key, [kindPhrase(event.kind, translate), ruleName(event.rule, translate)]);
}

export function failureNoticeText(translate: Translate): string {
  return translate('notice_failed');
}

/** A chat answer that could not be decoded (binary): stopped, never passed on unguarded. */
export function undecodableNoticeText(translate: Translate): string {
  return translate('notice_undecodable');
}
