import { t } from '../i18n.ts';

export interface SiteToggleProps {
  enabled: boolean;
  /** While a change is being applied or when the background cannot be reached. */
  disabled: boolean;
  onToggle: () => void;
}

/** The on/off switch of the current site: a real button with the switch role. */
export function SiteToggle({ enabled, disabled, onToggle }: SiteToggleProps) {
  return (
    <button
      type="button"
      role="switch"
      class="csg-switch"
      aria-checked={enabled}
      disabled={disabled}
      data-testid="site-toggle"
      onClick={onToggle}
    >
      {t(enabled ? 'popup_toggle_on' : 'popup_toggle_off')}
    </button>
  );
}
