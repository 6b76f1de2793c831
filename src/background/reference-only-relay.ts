/**
 * Marking "reference only" from the popup (issue 5 §3): the popup's
 * `reference-only-list` / `reference-only-set` go to the background (UI sender
 * checked), which relays them to the bridge in the top frame of that tab
 * (`tabs.sendMessage`, frame 0) and hands back the bridge's list.
 *
 * The list comes from a content script, but its previews come from the page:
 * every field is shape-checked and bounded here, and anything else makes the
 * list unavailable instead of being passed on.
 */
import {
  type BackgroundToContent,
  type ReferenceOnlyList,
  isReferenceOnlyList,
} from '../protocol/runtime-messages.ts';

export const UNAVAILABLE: ReferenceOnlyList = { available: false, items: [] };

/** Keeps only the checked fields (nothing else the bridge might add travels on). */
function copyList(list: ReferenceOnlyList): ReferenceOnlyList {
  return {
    available: list.available,
    items: list.items.map(({ index, role, preview, marked }) => ({ index, role, preview, marked })),
  };
}

export interface RelayDeps {
  /** `tabs.sendMessage(tabId, message, { frameId: 0 })`. */
  sendToTab(tabId: number, message: BackgroundToContent): Promise<unknown>;
  /** True when the tab shows a site that is switched on (only there is a bridge). */
  tabIsGuarded(tabId: number): Promise<boolean>;
}

export async function relayReferenceOnly(
  tabId: number,
  message: Extract<BackgroundToContent, { type: 'reference-only-list' | 'reference-only-set' }>,
  deps: RelayDeps,
): Promise<ReferenceOnlyList> {
  if (!(await deps.tabIsGuarded(tabId).catch(() => false))) return UNAVAILABLE;
  try {
    const answer = await deps.sendToTab(tabId, message);
    return isReferenceOnlyList(answer) ? copyList(answer) : UNAVAILABLE;
  } catch {
    // No bridge in the tab (not loaded yet, or a page the scripts do not run on).
    return UNAVAILABLE;
  }
}
