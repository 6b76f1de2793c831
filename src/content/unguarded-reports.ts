/**
 * Issue 18, "no silent path": what the hooks could not guard but had to let through,
 * told to the person (a notice in the page) and written to the audit log (an `error`
 * record naming the rule below), never passed in silence. Unlike a failure
 * (guard-engine.ts `reportFailure`), nothing was stopped, so the notice says the thing
 * was let through unchecked, not that an answer was stopped.
 *
 * - `web-socket` / `undecodable-passed`: a binary socket message that is not UTF-8, on a
 *   socket with no chat sign (src/page/web-socket-hook.ts): it may be no answer at all
 *   (an image, a site's own protocol), so it passed; told once per socket.
 * - `service-worker` / `active`: a service worker controls, or has just been registered
 *   for, this page (service-worker-watch.ts). No hook reaches inside one: what the page
 *   reads through its own fetch, XHR, EventSource or WebSocket is still guarded, but what
 *   the worker reads itself and hands over another way is not (docs/hooks-contexts.md).
 *
 * Pure: no DOM or extension APIs.
 */

export interface UnguardedReport {
  /** The audit record's rule id. */
  rule: string;
  /** The audit record's format. */
  format: string;
  /** The audit record's message (content-free). */
  message: string;
  /** The notice's message key (_locales/*\/messages.json). */
  notice: string;
}

/** Rule of a binary socket message that was not text and passed (no chat sign). */
export const UNDECODABLE_PASSED_RULE = 'wire-undecodable-passed';
/** Rule of a page a service worker controls (its own reads are out of reach). */
export const SERVICE_WORKER_RULE = 'service-worker-unhooked';

const REPORTS = new Map<string, UnguardedReport>([
  [
    'web-socket undecodable-passed',
    {
      rule: UNDECODABLE_PASSED_RULE,
      format: 'generic',
      message: 'undecodable: a binary socket message that is not text, let through (no chat sign)',
      notice: 'notice_undecodable_passed',
    },
  ],
  [
    'service-worker active',
    {
      rule: SERVICE_WORKER_RULE,
      format: 'service-worker',
      message: 'a service worker controls this page: what it reads itself is not guarded',
      notice: 'notice_service_worker',
    },
  ],
]);

/** The report for a hook's `hook-failed` that let something through, if it is one. */
export function unguardedReport(hook: string, reason: string): UnguardedReport | undefined {
  return REPORTS.get(`${hook} ${reason}`);
}

/** The notice key for an audit event's rule when it is one of these reports. */
export function unguardedNoticeKey(rule: string | undefined): string | undefined {
  for (const report of REPORTS.values()) if (report.rule === rule) return report.notice;
  return undefined;
}
