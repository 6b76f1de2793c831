/**
 * The two guards a page runs, by the person's per-kind policies: one over
 * answers, one over what is sent. The page builds its guards with these
 * (src/content/page-guard-config.ts) and the background warms the pack for
 * exactly these (src/background/page-config.ts, warm-tables.ts): the tables it
 * hands over are the ones the page's guards ask for only if both agree, so
 * both take them from here.
 */
import { outgoingScanOptions } from '../outgoing/outgoing-dlp.ts';
import type { OutgoingPolicy } from '../outgoing/outgoing-policy.ts';
import type { RuleAction, RuleKind } from '../rules/rule.ts';
import type { GuardOptions } from './stream-guard.ts';

/** Answers: the rules' actions raised to the person's floor per kind; matched text attached. */
export function answerGuardOptions(incoming: Partial<Record<RuleKind, RuleAction>>): GuardOptions {
  return { attachMatchedText: true, policy: { ...incoming } };
}

/** Sends: the outgoing policy as set (outgoing-dlp.ts). */
export function sendGuardOptions(outgoing: Partial<OutgoingPolicy>): GuardOptions {
  return outgoingScanOptions(outgoing);
}
