import { useEffect, useState } from 'preact/hooks';
import browser from 'webextension-polyfill';
import { guardedMatchPatterns, isGuardedUrl } from '../guarded-sites.ts';

type TabState =
  | { state: 'loading' }
  | { state: 'active'; host: string }
  | { state: 'inactive'; host: string | undefined };

/**
 * The tab the popup is about: the active tab of the current window, or `?tab=<id>`
 * (used when the popup is opened as a page, e.g. by the e2e tests and the demo).
 */
async function currentTab(): Promise<browser.Tabs.Tab | undefined> {
  const requested = Number(new URLSearchParams(location.search).get('tab'));
  if (Number.isInteger(requested) && requested > 0) return browser.tabs.get(requested);
  const [tab] = await browser.tabs.query({ active: true, currentWindow: true });
  return tab;
}

function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).host || undefined;
  } catch {
    return undefined;
  }
}

async function loadTabState(): Promise<TabState> {
  const patterns = guardedMatchPatterns(browser.runtime.getManifest());
  const tab = await currentTab();
  // Without a host permission for the tab, the browser does not reveal its URL: such a
  // page is not one the guard runs on.
  const url = tab?.url;
  const host = hostOf(url);
  if (host && isGuardedUrl(url, patterns)) return { state: 'active', host };
  return { state: 'inactive', host };
}

export function Popup() {
  const [tab, setTab] = useState<TabState>({ state: 'loading' });
  useEffect(() => {
    loadTabState().then(setTab, () => setTab({ state: 'inactive', host: undefined }));
  }, []);
  const { version } = browser.runtime.getManifest();

  return (
    <main id="csg-popup" data-state={tab.state}>
      <h1 class="csg-brand">
        <img src="/assets/icon-32.png" alt="" />
        Chat Stream Guard
      </h1>
      {tab.state === 'loading' ? (
        <p class="csg-muted">Checking this tab…</p>
      ) : (
        <>
          <p class="csg-host" data-testid="host">
            {tab.host ?? 'This page'}
          </p>
          <p class="csg-status" data-testid="status" data-state={tab.state}>
            {tab.state === 'active'
              ? `The guard is active on ${tab.host}.`
              : 'The guard does not run on this page (not a guarded chat site).'}
          </p>
        </>
      )}
      <p class="csg-footer csg-muted">Version {version}</p>
    </main>
  );
}
