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
  /** The frame's origin (Chrome 80+, Firefox 126+): not its URL's for about:blank, srcdoc, blob:. */
  origin?: string;
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
 * The site of a frame: its URL's, or, for a frame whose URL has no host of its own
 * (about:blank, about:srcdoc, blob:), its origin's (issue 18 §2: the scripts run there
 * by `matchOriginAsFallback`, script-registration.ts). An opaque origin (`null`:
 * sandboxed frames, data: URLs) has no site.
 */
function frameSite(sender: SenderFacts): string | null {
  const byUrl = siteOf(sender.url);
  if (byUrl !== null) return byUrl;
  const scheme = /^(about|blob):/i.exec(sender.url ?? '');
  return scheme === null ? null : siteOf(sender.origin);
}

/**
 * A bridge message is accepted only from this extension's content script in a
 * tab (any frame) whose frame URL (or, with no host in it, origin) is on a site
 * switched on. Extension pages in a
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
  const site = frameSite(sender);
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
