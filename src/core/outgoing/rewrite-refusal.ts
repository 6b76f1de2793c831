/**
 * Issue 20 §1: "Any other site where rewriting fails is handled the same way" as
 * Z.ai. A site the guard does not know to be integrity-bound shows it by refusing
 * a request the guard rewrote (redaction, paste envelope or history projection
 * changed the body). This module decides, from the rewritten request's id and the
 * HTTP status of its answer only (never content), whether that happened.
 *
 * Which statuses count (a refusal of the request as sent, not of the person):
 * - 400: the generic "bad request" that signature and body checks answer with
 *   (the Z.ai mock's `signature mismatch`, WIRE-FORMATS-2.md §3.5; Open WebUI's
 *   validation errors);
 * - 403: a signature that does not verify (e.g. AWS SigV4 `SignatureDoesNotMatch`,
 *   webhook HMAC checks);
 * - 409 / 412: a precondition or content digest the body no longer meets;
 * - 422: schema or semantic validation of the body (FastAPI, Rails).
 * Not counted: 401 (the session, not the body), 429 (rate limits), 404/405/410
 * (the route), 408/413 (time, size) and every 5xx (the server's own failure).
 *
 * Pure: no DOM, no extension APIs.
 */

/** The audit record's rule id when a site refused a rewritten request. */
export const REWRITE_REFUSED_RULE = 'send-rewrite-refused';

/** The statuses taken as "the site refused the request we rewrote" (see above). */
export const REWRITE_REFUSAL_STATUSES: readonly number[] = Object.freeze([400, 403, 409, 412, 422]);

/** True when `status` says the server refused the request as sent. */
export function isRewriteRefusal(status: number): boolean {
  return REWRITE_REFUSAL_STATUSES.includes(status);
}

/** A rewritten request the server refused: what is reported and remembered. */
export interface RewriteRefused {
  /** The request format (request adapter name), e.g. `openai-chat`. */
  format: string;
  status: number;
}

/** The rewritten requests of one page, waiting for their answer's status. */
export interface RewriteWatch {
  /** The guard sent `requestId` with a body other than the page's. */
  rewritten(requestId: string, format: string): void;
  /**
   * The answer to `requestId` came with `status`. A refusal only for a request this
   * watch saw rewritten, once (the id is forgotten), with a refusal status.
   */
  answered(requestId: string, status: number): RewriteRefused | undefined;
}

/**
 * How many rewritten requests wait at most: a page sends one at a time, so a
 * few dozen cover every overlap; the oldest is forgotten first.
 */
export const REWRITE_WATCH_LIMIT = 64;

export function createRewriteWatch(limit = REWRITE_WATCH_LIMIT): RewriteWatch {
  const waiting = new Map<string, string>();
  return {
    rewritten(requestId, format) {
      waiting.set(requestId, format);
      if (waiting.size > limit) {
        const oldest = waiting.keys().next();
        if (oldest.done !== true) waiting.delete(oldest.value);
      }
    },
    answered(requestId, status) {
      const format = waiting.get(requestId);
      if (format === undefined) return undefined;
      waiting.delete(requestId);
      return isRewriteRefusal(status) ? { format, status } : undefined;
    },
  };
}
