/**
 * Background entry (a service worker in Chrome, an event page in Firefox): wires
 * GuardBackground to the browser. Listeners are added synchronously at start so
 * a restarted worker gets the event that woke it. Logs nothing of content.
 */

import browser, { type Runtime } from 'webextension-polyfill';
import {
  type BackgroundToContent,
  LIVE_PORT_NAME,
  PASTE_UNTRUSTED_COMMAND,
} from '../protocol/runtime-messages.ts';
import { GuardBackground } from './guard-background.ts';

const background = new GuardBackground({
  storage: browser.storage.local,
  session: browser.storage.session,
  managed: browser.storage.managed,
  scripting: browser.scripting,
  hasOrigins: (origins) => browser.permissions.contains({ origins }),
  setBadge: (tabId, text) => browser.action.setBadgeText({ tabId, text }),
  tabUrl: async (tabId) => {
    try {
      return (await browser.tabs.get(tabId)).url;
    } catch {
      return undefined;
    }
  },
  openPopup: async () => {
    await browser.action.openPopup();
    return true;
  },
  identity: () => ({ id: browser.runtime.id, baseUrl: browser.runtime.getURL('') }),
  // Issue 5 §3: popup requests for the tab's bridge, top frame only.
  sendToTab: (tabId, message) => browser.tabs.sendMessage(tabId, message, { frameId: 0 }),
  // Issue 21 §2: the audit export (off unless an endpoint is set; docs/deployment.md).
  otlp: {
    fetch: (input, init) => fetch(input, init),
    alarms: browser.alarms,
    version: browser.runtime.getManifest().version,
  },
});

function reportStartFailure(error: unknown): void {
  // The error's name only: messages may quote settings values.
  console.error(
    'Chat Stream Guard: start-up failed',
    error instanceof Error ? error.name : 'error',
  );
}

browser.runtime.onInstalled.addListener(() => {
  background.start().catch(reportStartFailure);
});
browser.runtime.onStartup.addListener(() => {
  background.start().catch(reportStartFailure);
});
// A worker restarted for any other event re-checks too (idempotent).
background.start().catch(reportStartFailure);
// Issue 21 §2: whatever an earlier worker (or browser session) left queued is delivered.
background.otlp?.start();
// The export's retry alarm wakes a stopped worker (otlp-exporter.ts).
browser.alarms.onAlarm.addListener((alarm) => background.otlp?.onAlarm(alarm.name));

browser.storage.onChanged.addListener((changes, area) => {
  background.onStorageChanged(changes, area);
});

// A site switched on or off through the browser's own permission UI.
browser.permissions.onAdded.addListener(() => {
  void background.resync();
  // The export endpoint's host permission may be the one granted.
  void background.otlp?.reconfigure().catch(() => undefined);
});
browser.permissions.onRemoved.addListener(() => void background.resync());

browser.runtime.onMessage.addListener((message: unknown, sender: Runtime.MessageSender) => {
  // Not ours to answer: returning nothing lets another listener (if any) respond.
  if ((message as { to?: unknown } | null)?.to !== 'background') return undefined;
  // Content scripts carry `sender.tab` with a web URL; extension pages carry our URL.
  const fromExtensionPage = sender.url?.startsWith(browser.runtime.getURL('')) === true;
  return fromExtensionPage
    ? background.handleUi(message, sender)
    : background.handleContent(message, sender);
});

browser.runtime.onConnect.addListener((port) => {
  if (port.name !== LIVE_PORT_NAME) return;
  background.live.adopt(port, (tabId, subscribed) => {
    void background.onLiveSubscribe(tabId, subscribed);
  });
});

browser.tabs.onUpdated.addListener((tabId, changeInfo) => {
  // A new document (navigation or reload): the tab's counters and badge start over.
  if (changeInfo.status === 'loading') {
    void background.onTabLoading(tabId);
  }
});
browser.tabs.onRemoved.addListener((tabId) => void background.onTabRemoved(tabId));

// Issue 5 §2: "Paste as untrusted" arms the next paste in the tab's bridge. A manifest
// command needs no permission (the context-menu entry would need `contextMenus`; see
// docs/settings.md "Paste as untrusted" for why there is none).
browser.commands.onCommand.addListener((command, tab) => {
  if (command !== PASTE_UNTRUSTED_COMMAND) return;
  const arm = (tabId: number) => {
    const message: BackgroundToContent = { to: 'bridge', type: 'paste-as-untrusted' };
    browser.tabs.sendMessage(tabId, message).catch(() => undefined);
  };
  if (tab?.id !== undefined) {
    arm(tab.id);
    return;
  }
  void browser.tabs.query({ active: true, currentWindow: true }).then(([active]) => {
    if (active?.id !== undefined) arm(active.id);
  });
});
