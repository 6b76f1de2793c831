/**
 * What history projection changed in a request copy (project-history.ts
 * `ProjectionChange`), as guard events for the popup and the audit log (issue
 * 5 §3: "the popup and audit log show what was changed"). Projection exists to
 * keep contaminated history from being replayed (seed 001), so its changes are
 * reported under the `injection` kind, as `redact` (text left out of the copy):
 * - `reference-only`: a message the person marked, left out (or emptied);
 * - a source-label rule id: a label stripped from an assistant message;
 * - `source-label-chain`: a chain of labelled comments cut after its first.
 *
 * The matched text goes to the background only to be digested (never stored):
 * the removed span when its offsets are in the message's text, otherwise the
 * message's text; cut to the background's limit (a digest of the prefix).
 *
 * No DOM, no extension APIs.
 */
import type { ProjectionChange } from '../core/outgoing/project-history.ts';
import type { PageGuardEvent } from '../protocol/guard-reports.ts';

/** The rule ids projection reports under, besides the label rules' own ids. */
export const PROJECTION_RULES = {
  referenceOnly: 'reference-only',
  labelOnly: 'source-label-only',
  labelChain: 'source-label-chain',
} as const;

/** The background's bound on matched text (message-shape.ts). */
const MATCHED_LIMIT = 65_536;

function ruleOf(change: ProjectionChange): string {
  if (change.action === 'drop' || change.action === 'empty') {
    if (change.reason === 'reference-only') return PROJECTION_RULES.referenceOnly;
    return change.reason === 'label-only'
      ? PROJECTION_RULES.labelOnly
      : PROJECTION_RULES.labelChain;
  }
  return change.action === 'strip-label' ? change.rule : PROJECTION_RULES.labelChain;
}

function spanOf(
  change: ProjectionChange,
  text: string,
): { start: number; end: number; matched: string } {
  const points = [...text];
  if ('start' in change && change.part === null && change.end <= points.length) {
    return {
      start: change.start,
      end: change.end,
      matched: points.slice(change.start, change.end).join(''),
    };
  }
  return { start: 0, end: points.length, matched: text };
}

export function projectionEvents(
  changes: readonly ProjectionChange[],
  history: readonly string[],
  pack: string,
): PageGuardEvent[] {
  return changes.flatMap((change): PageGuardEvent[] => {
    const text = history[change.message] ?? '';
    const { start, end, matched } = spanOf(change, text);
    if (matched === '') return [];
    return [
      {
        type: 'match',
        rule: ruleOf(change),
        kind: 'injection',
        action: 'redact',
        start,
        end,
        pack,
        matched: matched.slice(0, MATCHED_LIMIT),
      },
    ];
  });
}
