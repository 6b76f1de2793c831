/**
 * Who may send what to the background (issue 4: "the background accepts events
 * only from its own content scripts"). Pure checks over the `MessageSender` the
 * browser fills in — the browser, not the sender, writes these fields, so a page
 * cannot forge them; a page cannot message us at all without
 * `externally_connectable`, which the manifest does not declare.
 */
import { siteOf } from './site-key.ts';

/** The fields of `runtime.MessageSender` the checks read. */
export interface SenderFacts {
  id?: string;
  url?: string;
  tab?: { id?: number };
  frameId?: number;
}

export interface ExtensionIdentity {
  /** `runtime.id`. */
  id: string;
  /** `runtime.getURL('')`, e.g. `chrome-extension://<id>/`. */
  baseUrl: string;
}

/** The tab and site a content-script message comes from. */
export interface ContentSender {
  tabId: number;
  frameId: number;
  site: string;
}

/**
 * A bridge message is accepted only from this extension's content script in a
 * tab (any frame) whose frame URL is on a site switched on. Extension pages in a
 * tab also carry `sender.tab`, but their URL has no site, so they are refused
 * here. Returns null when refused.
 */
export function checkContentSender(
  sender: SenderFacts,
  self: ExtensionIdentity,
  isSiteEnabled: (site: string) => boolean,
): ContentSender | null {
  if (sender.id !== self.id) return null;
  const tabId = sender.tab?.id;
  if (typeof tabId !== 'number' || tabId < 0) return null;
  if (sender.url?.startsWith(self.baseUrl)) return null;
  const site = siteOf(sender.url);
  if (site === null || !isSiteEnabled(site)) return null;
  return { tabId, frameId: sender.frameId ?? 0, site };
}

/** A UI message is accepted only from this extension's own pages (popup, options). */
export function checkUiSender(sender: SenderFacts, self: ExtensionIdentity): boolean {
  return (
    sender.id === self.id &&
    typeof sender.url === 'string' &&
    self.baseUrl.length > 0 &&
    sender.url.startsWith(self.baseUrl)
  );
}
