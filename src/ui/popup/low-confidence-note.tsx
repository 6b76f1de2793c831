import { t } from '../i18n.ts';

/**
 * Known chat sites whose answer format the document gives LOW confidence
 * (../shared/WIRE-FORMATS-2.md: one source, or old code only), with its section.
 * docs/chat-sites.md says what that means for the person.
 */
const LOW_CONFIDENCE_SITES: Readonly<Record<string, string>> = {
  'www.qianwen.com': '§3.2',
  'chat.mistral.ai': '§4.4',
};

export interface LowConfidenceNoteProps {
  host: string | undefined;
}

/**
 * Issue 20 §2: on a site whose format is known only from one source, the popup
 * says the guard may miss text if the site has changed how it streams answers.
 */
export function LowConfidenceNote({ host }: LowConfidenceNoteProps) {
  if (host === undefined || !Object.hasOwn(LOW_CONFIDENCE_SITES, host)) return null;
  return (
    <p class="csg-muted" data-testid="low-confidence">
      {t('popup_low_confidence')}
    </p>
  );
}
