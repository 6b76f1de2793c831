import { t } from '../i18n.ts';

/**
 * Chat sites whose current answer format could not be established
 * (../shared/WIRE-FORMATS-2.md §4.5, §5: for Poe only 2023 code was found), so
 * no adapter reads them. docs/chat-sites.md says why.
 */
const UNGUARDED_SITES: ReadonlySet<string> = new Set(['poe.com']);

export interface UnguardedSiteNoteProps {
  host: string | undefined;
}

/**
 * Issue 20 §1: on a chat site the guard has no adapter for, the popup says its
 * answers are not guarded, whatever the switch says (nothing tells the person
 * otherwise: the page works, unguarded).
 */
export function UnguardedSiteNote({ host }: UnguardedSiteNoteProps) {
  if (host === undefined || !UNGUARDED_SITES.has(host)) return null;
  return (
    <p class="csg-notice csg-notice-error" role="status" data-testid="unguarded-site">
      {t('popup_unguarded_site', host)}
    </p>
  );
}
