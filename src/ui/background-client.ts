/**
 * The popup's and options page's only way to the background: typed requests
 * (src/protocol/runtime-messages.ts UiToBackground → UiAnswers) and the live
 * port. Every answer is shape-checked; no answer, an error or a wrong shape
 * becomes a typed failure the pages show as "background not reachable"
 * instead of hanging or crashing.
 */
import browser from 'webextension-polyfill';
import {
  type AuditQuery,
  type AuditRecord,
  type BackgroundToLive,
  LIVE_PORT_NAME,
  type TabState,
  type UiAnswers,
  type UiToBackground,
} from '../protocol/runtime-messages.ts';
import type { Settings } from '../protocol/settings-schema.ts';
import {
  isAuditRecords,
  isClearAnswer,
  isExportAnswer,
  isLiveMessage,
  isSetSiteAnswer,
  isSettings,
  isTabState,
} from './background-answers.ts';

export type BackgroundFailure = 'unreachable' | 'bad-answer';

export type BackgroundResult<T> =
  { ok: true; value: T } | { ok: false; failure: BackgroundFailure };

/** A service worker that does not answer within this time counts as unreachable. */
export const ANSWER_TIMEOUT_MS = 5_000;

type UiRequest<K extends keyof UiAnswers> = Extract<UiToBackground, { type: K }>;

async function ask<K extends keyof UiAnswers>(
  request: UiRequest<K>,
  isAnswer: (value: unknown) => value is UiAnswers[K],
): Promise<BackgroundResult<UiAnswers[K]>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ANSWER_TIMEOUT_MS);
  });
  try {
    const answer: unknown = await Promise.race([browser.runtime.sendMessage(request), timeout]);
    // Firefox resolves `undefined` when no listener answered; Chrome rejects.
    if (answer === 'timeout' || answer === undefined) return { ok: false, failure: 'unreachable' };
    return isAnswer(answer) ? { ok: true, value: answer } : { ok: false, failure: 'bad-answer' };
  } catch {
    return { ok: false, failure: 'unreachable' };
  } finally {
    clearTimeout(timer);
  }
}

export function getTabState(tabId: number): Promise<BackgroundResult<TabState>> {
  return ask({ to: 'background', type: 'tab-state', tabId }, isTabState);
}

export function setSite(
  site: string,
  enabled: boolean,
): Promise<BackgroundResult<UiAnswers['set-site']>> {
  return ask({ to: 'background', type: 'set-site', site, enabled }, isSetSiteAnswer);
}

export function getSettings(): Promise<BackgroundResult<Settings>> {
  return ask({ to: 'background', type: 'get-settings' }, isSettings);
}

export function putSettings(settings: Settings): Promise<BackgroundResult<Settings>> {
  return ask({ to: 'background', type: 'put-settings', settings }, isSettings);
}

export function queryAudit(query: AuditQuery): Promise<BackgroundResult<AuditRecord[]>> {
  return ask({ to: 'background', type: 'audit-query', query }, isAuditRecords);
}

export function exportAudit(
  format: 'json' | 'csv',
  query: AuditQuery,
): Promise<BackgroundResult<UiAnswers['audit-export']>> {
  return ask({ to: 'background', type: 'audit-export', format, query }, isExportAnswer);
}

export function clearAudit(): Promise<BackgroundResult<UiAnswers['audit-clear']>> {
  return ask({ to: 'background', type: 'audit-clear' }, isClearAnswer);
}

/**
 * Opens the live port for one tab: the background then pushes that tab's events,
 * holding state and counters. Returns a function that closes the port.
 * `onDisconnect` fires when the background goes away.
 */
export function connectLive(
  tabId: number,
  onMessage: (message: BackgroundToLive) => void,
  onDisconnect: () => void,
): () => void {
  let port: browser.Runtime.Port;
  try {
    port = browser.runtime.connect({ name: LIVE_PORT_NAME });
  } catch {
    onDisconnect();
    return () => undefined;
  }
  port.onMessage.addListener((message: unknown) => {
    if (isLiveMessage(message)) onMessage(message);
  });
  port.onDisconnect.addListener(() => onDisconnect());
  port.postMessage({ tabId });
  return () => port.disconnect();
}
