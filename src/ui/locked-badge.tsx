import { t } from './i18n.ts';

/**
 * Issue 21 §1: beside a control the organisation's policy sets (the control itself
 * is disabled). `id` lets the control name it in `aria-describedby`.
 */
export function LockedBadge({ id }: { id?: string }) {
  return (
    <span class="csg-locked" id={id} data-testid="locked">
      {t('managed_locked')}
    </span>
  );
}
