import { t } from '../i18n.ts';
import { LockedBadge } from '../locked-badge.tsx';

export interface SiteToggleProps {
  enabled: boolean;
  /** While a change is being applied or when the background cannot be reached. */
  disabled: boolean;
  /** Issue 21 §1: the organisation's policy decides; the switch is shown but disabled. */
  locked: boolean;
  onToggle: () => void;
}

/** The on/off switch of the current site: a real button with the switch role. */
export function SiteToggle({ enabled, disabled, locked, onToggle }: SiteToggleProps) {
  return (
    <>
      <button
        type="button"
        role="switch"
        class="csg-switch"
        aria-checked={enabled}
        disabled={disabled || locked}
        aria-describedby={locked ? 'csg-site-locked' : undefined}
        data-testid="site-toggle"
        onClick={onToggle}
      >
        {t(enabled ? 'popup_toggle_on' : 'popup_toggle_off')}
      </button>
      {locked ? <LockedBadge id="csg-site-locked" /> : null}
    </>
  );
}
