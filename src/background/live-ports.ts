/**
 * The popup's live view (`csg-live` port): the popup connects, sends the tab id it
 * shows as its first message, and then gets that tab's events, holding state and
 * counters as they happen. Only this extension's own pages may connect.
 */
import type { Runtime } from 'webextension-polyfill';
import type { BackgroundToLive } from '../protocol/runtime-messages.ts';
import { checkUiSender, type ExtensionIdentity } from './sender-check.ts';

export class LivePorts {
  private readonly byTab = new Map<number, Set<Runtime.Port>>();

  constructor(private readonly self: () => ExtensionIdentity) {}

  /** Adopts a port named `csg-live`; refuses (disconnects) any other sender. */
  adopt(port: Runtime.Port, onSubscribe: (tabId: number, port: Runtime.Port) => void): void {
    if (!port.sender || !checkUiSender(port.sender, this.self())) {
      port.disconnect();
      return;
    }
    let subscribed: number | undefined;
    port.onMessage.addListener((message: unknown) => {
      const tabId = (message as { tabId?: unknown } | null)?.tabId;
      if (subscribed !== undefined || typeof tabId !== 'number' || !Number.isSafeInteger(tabId)) {
        return;
      }
      subscribed = tabId;
      let ports = this.byTab.get(tabId);
      if (!ports) this.byTab.set(tabId, (ports = new Set()));
      ports.add(port);
      onSubscribe(tabId, port);
    });
    port.onDisconnect.addListener(() => {
      if (subscribed === undefined) return;
      const ports = this.byTab.get(subscribed);
      ports?.delete(port);
      if (ports?.size === 0) this.byTab.delete(subscribed);
    });
  }

  post(tabId: number, message: BackgroundToLive): void {
    for (const port of this.byTab.get(tabId) ?? []) {
      try {
        port.postMessage(message);
      } catch {
        // The popup closed between the check and the post: nothing to deliver to.
      }
    }
  }
}
