import { t } from '../i18n.ts';
import { RewriteRefusedNote } from './rewrite-refused-note.tsx';

/** What the guard does on the current site, as the popup's status line shows it. */
export type SiteState = 'active' | 'inactive' | 'no-permission' | 'unsupported' | 'unreachable';

export interface SiteStatusProps {
  host: string | undefined;
  state: SiteState;
}

const STATUS_KEYS: Record<SiteState, string> = {
  active: 'popup_status_active',
  inactive: 'popup_status_inactive',
  'no-permission': 'popup_status_no_permission',
  unsupported: 'popup_status_unsupported',
  unreachable: 'background_unreachable',
};

/** The current site and whether the guard runs there. */
export function SiteStatus({ host, state }: SiteStatusProps) {
  return (
    <>
      <p class="csg-host" data-testid="host">
        {host ?? t('popup_this_page')}
      </p>
      <p class="csg-status" data-testid="status" data-state={state}>
        {t(STATUS_KEYS[state], host ?? '')}
      </p>
      {/* Issue 20: this site refused a rewritten request, so its sends are asked about. */}
      <RewriteRefusedNote host={host} />
    </>
  );
}
