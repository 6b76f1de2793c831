import browser from 'webextension-polyfill';
import { useEffect, useState } from 'preact/hooks';
import {
  REWRITE_REFUSALS_KEY,
  parseRewriteRefusals,
  withoutRewriteRefusal,
} from '../../protocol/rewrite-refusals.ts';
import { t } from '../i18n.ts';

export interface RewriteRefusedNoteProps {
  /** The tab's host as the popup has it (current-tab.ts: with its port, if any). */
  host: string | undefined;
}

/** The site key of a popup host (background/site-key.ts: no port, lower case). */
export function siteKeyOfHost(host: string | undefined): string | undefined {
  if (host === undefined) return undefined;
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

async function readRefusals() {
  const stored = await browser.storage.local.get([REWRITE_REFUSALS_KEY]);
  return parseRewriteRefusals(stored[REWRITE_REFUSALS_KEY]);
}

/**
 * Issue 20 §1: on a site that refused a request the guard rewrote
 * (content/rewrite-refusals.ts), the site status says that its sends are asked
 * about instead of changed, and offers to forget it (the next protected send is
 * rewritten again; if the site refuses that too, it is learned again).
 */
export function RewriteRefusedNote({ host }: RewriteRefusedNoteProps) {
  const site = siteKeyOfHost(host);
  const [refused, setRefused] = useState(false);
  useEffect(() => {
    if (site === undefined) return;
    let live = true;
    void readRefusals()
      .then((all) => live && setRefused(Object.hasOwn(all, site)))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [site]);
  if (site === undefined || !refused) return null;
  const reset = async () => {
    const next = withoutRewriteRefusal(await readRefusals(), site);
    await browser.storage.local.set({ [REWRITE_REFUSALS_KEY]: next });
    setRefused(false);
  };
  return (
    <div data-testid="rewrite-refused">
      <p class="csg-muted">{t('popup_rewrite_refused')}</p>
      <button type="button" data-testid="rewrite-refused-reset" onClick={() => void reset()}>
        {t('popup_rewrite_refused_reset')}
      </button>
    </div>
  );
}
