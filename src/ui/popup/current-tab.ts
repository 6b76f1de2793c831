/**
 * The tab the popup is about: the active tab of the current window, or
 * `?tab=<id>` (used when the popup is opened as a page, by the e2e tests and
 * the demo).
 */
import browser from 'webextension-polyfill';

export interface CurrentTab {
  id: number;
  /** The page's host when the browser reveals its URL (host permission or activeTab). */
  host: string | undefined;
}

function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.host : undefined;
  } catch {
    return undefined;
  }
}

export async function currentTab(): Promise<CurrentTab | undefined> {
  const requested = Number(new URLSearchParams(location.search).get('tab'));
  const tab =
    Number.isInteger(requested) && requested > 0
      ? await browser.tabs.get(requested)
      : (await browser.tabs.query({ active: true, currentWindow: true }))[0];
  if (tab?.id === undefined) return undefined;
  return { id: tab.id, host: hostOf(tab.url) };
}
