/**
 * Issue 21 §2: how long the audit export waits before its next attempt after
 * `failures` failed ones in a row: exponential backoff with "equal jitter" (half
 * the step fixed, half random), so thousands of browsers behind one Collector that
 * came back do not all retry in the same second (AWS Architecture Blog,
 * "Exponential Backoff And Jitter"). A `Retry-After` the endpoint sent (OTLP/HTTP
 * specification, "Failures": 429 and 503 may carry one) is honoured up to the cap.
 */

export interface BackoffOptions {
  /** The first step (after one failure), in milliseconds. */
  baseMs: number;
  /** No wait is longer than this. */
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 1_000, capMs: 5 * 60_000 };

/** Milliseconds to wait after `failures` (≥ 1) failures in a row; `random` in [0, 1). */
export function backoffDelay(
  failures: number,
  options: BackoffOptions,
  random: () => number,
): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 30);
  const step = Math.min(options.capMs, options.baseMs * 2 ** exponent);
  return Math.round(step / 2 + random() * (step / 2));
}

/** A `Retry-After` header in seconds (the HTTP-date form is not used by OTLP receivers). */
export function retryAfterMs(header: string | null, options: BackoffOptions): number | undefined {
  if (header === null || !/^\d{1,9}$/.test(header.trim())) return undefined;
  return Math.min(options.capMs, Number(header.trim()) * 1000);
}

/**
 * Statuses that refuse the request for what it carries (malformed, too large, a media
 * type or content the receiver will not take): OTLP/HTTP "Failures" says a client must not
 * retry what is not 429, 502, 503 or 504, and retrying these would hold the queue behind
 * one batch forever. Every other failure (the endpoint down, overloaded, misconfigured
 * authentication) keeps the records and retries with backoff: the batch is not at fault,
 * and dropping an organisation's audit trail for a wrong token would be worse.
 */
export function refusesBatch(status: number): boolean {
  return status === 400 || status === 413 || status === 415 || status === 422;
}
