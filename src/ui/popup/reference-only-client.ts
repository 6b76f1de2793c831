/**
 * The popup's requests for marking "reference only" (issue 5 §3): typed
 * `reference-only-list` / `reference-only-set` to the background, which relays
 * them to the tab's bridge (background/reference-only-relay.ts). Like
 * background-client.ts: every answer is shape-checked, and no answer, an error
 * or a wrong shape becomes a typed failure instead of a hang.
 */
import browser from 'webextension-polyfill';
import {
  type ReferenceOnlyList,
  type UiToBackground,
  isReferenceOnlyList,
} from '../../protocol/runtime-messages.ts';
import { ANSWER_TIMEOUT_MS, type BackgroundResult } from '../background-client.ts';

async function ask(request: UiToBackground): Promise<BackgroundResult<ReferenceOnlyList>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ANSWER_TIMEOUT_MS);
  });
  try {
    const answer: unknown = await Promise.race([browser.runtime.sendMessage(request), timeout]);
    if (answer === 'timeout' || answer === undefined) return { ok: false, failure: 'unreachable' };
    return isReferenceOnlyList(answer)
      ? { ok: true, value: answer }
      : { ok: false, failure: 'bad-answer' };
  } catch {
    return { ok: false, failure: 'unreachable' };
  } finally {
    clearTimeout(timer);
  }
}

export function listReferenceOnly(tabId: number): Promise<BackgroundResult<ReferenceOnlyList>> {
  return ask({ to: 'background', type: 'reference-only-list', tabId });
}

export function setReferenceOnly(
  tabId: number,
  index: number,
  marked: boolean,
): Promise<BackgroundResult<ReferenceOnlyList>> {
  return ask({ to: 'background', type: 'reference-only-set', tabId, index, marked });
}
