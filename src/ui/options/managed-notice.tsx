import { t } from '../i18n.ts';
import type { ManagedLocks } from '../managed-locks.ts';
import { Notice } from '../notice.tsx';

/** The message key naming why a managed value was ignored (`managed_problem_not_a_list`, …). */
export function problemKey(problem: string): string {
  return `managed_problem_${problem.replaceAll('-', '_')}`;
}

/**
 * Issue 21 §1: says that the organisation manages settings here, and lists the
 * values of its policy that were ignored (where and why, never the value), each
 * leaving the person's own setting in force.
 */
export function ManagedNotice({ locks }: { locks: ManagedLocks }) {
  return (
    <>
      {locks.any ? (
        <Notice tone="info" testId="managed-notice">
          {t('options_managed_notice')}
        </Notice>
      ) : null}
      {locks.issues.length > 0 ? (
        <div class="csg-notice csg-notice-error" role="alert" data-testid="managed-issues">
          <p>{t('options_managed_issues')}</p>
          <ul>
            {locks.issues.map((issue) => (
              <li key={`${issue.field}:${issue.problem}`} data-field={issue.field}>
                {t('options_managed_issue', [issue.field, t(problemKey(issue.problem))])}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </>
  );
}
