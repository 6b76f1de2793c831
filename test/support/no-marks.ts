/**
 * The background's answer when nothing in an outgoing request was pasted or marked
 * reference-only: what the page-side send tests answer every `outgoing-lookup` with.
 */
import type { GuardAnswer, GuardReport } from '../../src/protocol/guard-reports.ts';

export const noMarks = (m: GuardReport): GuardAnswer[] =>
  m.type === 'outgoing-lookup'
    ? [
        {
          v: 1,
          type: 'outgoing-lookup-result',
          requestId: m.requestId,
          pasted: [],
          referenceOnly: [],
        },
      ]
    : [];
