/**
 * Helpers the e2e suites that check in-page notices share: the notices the content script
 * shows in its closed shadow root, and polling until a reading is ready.
 */
import type { Page } from 'puppeteer';

/** The notices in the tab's closed shadow root, read from an extension page. */
export async function noticesOf(extensionPage: Page, tabId: number): Promise<string[]> {
  return extensionPage.evaluate(async (id: number) => {
    const [result] = await chrome.scripting.executeScript({
      target: { tabId: id },
      func: () => {
        const host = document.querySelector('chat-stream-guard-notices');
        if (host === null) return [];
        const dom = (
          globalThis as unknown as {
            chrome?: { dom?: { openOrClosedShadowRoot?(e: Element): ShadowRoot | null } };
          }
        ).chrome?.dom;
        const root =
          dom?.openOrClosedShadowRoot !== undefined
            ? dom.openOrClosedShadowRoot(host)
            : (host as Element & { openOrClosedShadowRoot: ShadowRoot | null })
                .openOrClosedShadowRoot;
        return Array.from(
          root?.querySelectorAll('.notice .text') ?? [],
          (n) => n.textContent ?? '',
        );
      },
    });
    return (result?.result as string[]) ?? [];
  }, tabId);
}

/** Reads until `ready` holds or about 5 s have passed; the last reading either way. */
export async function waitFor<T>(read: () => Promise<T>, ready: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let tries = 0; tries < 50 && !ready(value); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}
