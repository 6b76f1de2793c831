import { integrityBoundFormatOf } from '../../core/wire/requests/integrity-bound-sites.ts';
import { t } from '../i18n.ts';

export interface SignedSendsNoteProps {
  host: string | undefined;
}

/**
 * Issue 20: on a site that signs what the person sends (Z.ai), the guard never
 * rewrites the message and asks instead; the popup says so, so a dialog in
 * place of the usual redaction is expected, not a fault.
 */
export function SignedSendsNote({ host }: SignedSendsNoteProps) {
  if (integrityBoundFormatOf(host) === undefined) return null;
  return (
    <p class="csg-muted" data-testid="signed-sends">
      {t('popup_signed_sends')}
    </p>
  );
}
