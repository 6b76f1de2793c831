/**
 * Issue 21 §2: delivers the audit log's export queue (src/audit/export-queue.ts) to
 * the OTLP/HTTP logs endpoint in force (otlp-endpoint.ts), docs/deployment.md
 * "Audit export".
 *
 * - Batching: a drain starts `batchDelayMs` after records were logged and sends up
 *   to `maxBatch` records per request, oldest first, until the queue is empty.
 * - Exactly once: a record leaves the queue only after a 2xx for the request that
 *   carried it. A request whose answer was lost (worker stopped mid-request) is sent
 *   again with the same record ids (`csg.record.id`), which a receiver deduplicates.
 * - Retry: any other answer, or none, waits `backoffDelay` (exponential, jittered)
 *   or the endpoint's Retry-After. The wait runs on a timer while the worker lives
 *   and on an alarm (`alarms`) that wakes a stopped worker; before each request an
 *   alarm is set too, so a worker stopped mid-request retries when it is woken.
 *   Start-up (browser start, worker restart) drains whatever is queued.
 * - Off: with no endpoint in force nothing is queued, nothing is sent, no alarm.
 */
import type { AuditDb } from '../audit/audit-db.ts';
import {
  ackExported,
  DEFAULT_EXPORT_QUEUE_BOUND,
  exportQueueState,
  peekQueue,
  rejectExported,
} from '../audit/export-queue.ts';
import {
  backoffDelay,
  DEFAULT_BACKOFF,
  refusesBatch,
  retryAfterMs,
  type BackoffOptions,
} from './otlp-backoff.ts';
import {
  endpointInForce,
  endpointPermissionPattern,
  OTLP_CONTENT_TYPES,
  type EndpointInForce,
  type OtlpEncoding,
} from './otlp-endpoint.ts';
import { installIdOf, type InstallIdStorage } from './otlp-install-id.ts';
import { exportRequestBody } from './otlp-log-record.ts';

/** storage.local key of the person's own export settings: `{ endpoint: string, encoding?: OtlpEncoding }`. */
export const EXPORT_SETTINGS_KEY = 'auditExport';
/** storage.local key of the export's state for the options page (ExportStatus). */
export const EXPORT_STATUS_KEY = 'auditExportStatus';
/** The alarm that wakes a stopped worker to retry. */
export const EXPORT_ALARM = 'csg-audit-export';
/**
 * storage.session key of the backoff (`{ failures, nextAt }`): a worker restarted
 * during an outage waits out the backoff instead of starting it over (Firefox
 * suspends an idle event page within seconds; Chrome stops an idle worker).
 */
export const EXPORT_BACKOFF_KEY = 'auditExportBackoff';

export const DEFAULT_EXPORT_BATCH = 100;
export const DEFAULT_EXPORT_DELAY_MS = 1_000;
/** A request with no answer after this long counts as failed. */
const REQUEST_TIMEOUT_MS = 15_000;
/** The alarm set before each request fires after this long if the worker is gone (Chrome's minimum). */
const IN_FLIGHT_ALARM_MS = 30_000;

/** What the options page shows (no content: counts, times and an HTTP status). */
export interface ExportStatus {
  endpoint: string;
  queued: number;
  droppedTotal: number;
  lastDeliveredAt?: number;
  /** The last failure: an HTTP status, or 0 when no answer came (network, timeout). */
  lastFailure?: { at: number; status: number };
  /** True while the endpoint's host permission is missing (nothing is sent then). */
  permissionMissing?: boolean;
}

export interface ExportAlarms {
  create(name: string, info: { when: number }): unknown;
  clear(name: string): unknown;
}

export interface OtlpExporterDeps {
  db(): Promise<AuditDb>;
  /** storage.local: the person's endpoint, the install id, the status. */
  local: InstallIdStorage;
  /** storage.session: the backoff, kept across worker restarts (absent: in memory only). */
  session?: InstallIdStorage;
  /** The organisation's endpoint (managed policy `auditExport.endpoint`), if any. */
  managedEndpoint(): Promise<string | undefined>;
  /** The organisation's encoding (managed policy `auditExport.encoding`), if any. */
  managedEncoding?(): Promise<OtlpEncoding | undefined>;
  /** `permissions.contains({ origins })`. */
  hasOrigins(patterns: string[]): Promise<boolean>;
  fetch: typeof fetch;
  alarms?: ExportAlarms;
  version: string;
  now?: () => number;
  random?: () => number;
  backoff?: BackoffOptions;
  batchDelayMs?: number;
  maxBatch?: number;
  queueBound?: number;
}

type Outcome = { ok: true } | { ok: false; status: number; retryAfter: string | null };

export class OtlpExporter {
  private failures = 0;
  /** When the next attempt is due while backing off (ms since the epoch). */
  private nextAt = 0;
  private backoffRestored: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private draining: Promise<void> | undefined;
  private again = false;
  /** A due call (timer, alarm, change) came while a drain was running. */
  private againDue = false;
  private installId: string | undefined;
  private readonly now: () => number;
  private readonly backoff: BackoffOptions;

  constructor(private readonly deps: OtlpExporterDeps) {
    this.now = deps.now ?? Date.now;
    this.backoff = deps.backoff ?? DEFAULT_BACKOFF;
  }

  /** The endpoint in force. */
  endpoint(): Promise<EndpointInForce | undefined> {
    // Read each time, not cached: Chrome may deliver the managed policy a moment after
    // the worker starts (and announce it more than once), and a record logged meanwhile
    // must still be queued.
    return this.readConfig().catch(() => undefined);
  }

  private async readConfig(): Promise<EndpointInForce | undefined> {
    const managed = await this.deps.managedEndpoint();
    const managedEncoding = await this.deps.managedEncoding?.();
    const own = (await this.deps.local.get(EXPORT_SETTINGS_KEY))[EXPORT_SETTINGS_KEY] as
      { endpoint?: unknown; encoding?: unknown } | undefined;
    return endpointInForce(managed, own?.endpoint, managedEncoding, own?.encoding);
  }

  /** The queue's bound when records are to be queued, undefined when the export is off. */
  async queueBound(): Promise<number | undefined> {
    return (await this.endpoint()) === undefined
      ? undefined
      : (this.deps.queueBound ?? DEFAULT_EXPORT_QUEUE_BOUND);
  }

  /** Worker start: deliver what an earlier worker left queued (after its backoff, if any). */
  start(): void {
    void this.drainNow(false);
  }

  /** Records were logged (and queued): deliver them soon, in one batch with their neighbours. */
  recordsLogged(): void {
    if (this.timer !== undefined || this.failures > 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.drainNow(false);
    }, this.deps.batchDelayMs ?? DEFAULT_EXPORT_DELAY_MS);
  }

  onAlarm(name: string): void {
    if (name === EXPORT_ALARM) void this.drainNow();
  }

  /**
   * The endpoint or its permission changed: start over (or stop). With no endpoint,
   * what is queued stays queued (bounded; content-free like the log itself) and
   * nothing is sent: a policy read that comes up empty for a moment must not lose
   * records, and an endpoint set again later receives them.
   */
  async reconfigure(): Promise<void> {
    await this.setBackoff(0, 0);
    if ((await this.endpoint()) === undefined) {
      await this.deps.alarms?.clear(EXPORT_ALARM);
      return;
    }
    await this.drainNow();
  }

  /**
   * Drains now (`due`: the retry's timer or alarm, or a change) or, when not due
   * and still backing off, when the backoff ends. A drain already running runs
   * once more when it ends.
   */
  drainNow(due = true): Promise<void> {
    if (this.draining) {
      // Once more when it ends, unless it ends in a failure (then the backoff decides).
      this.again = true;
      this.againDue ||= due;
      return this.draining;
    }
    this.draining = (async () => {
      this.backoffRestored ??= this.restoreBackoff();
      await this.backoffRestored;
      if (!due && !this.againDue && this.failures > 0 && this.nextAt > this.now()) {
        this.armTimer(this.nextAt - this.now());
        return;
      }
      if (this.timer !== undefined) clearTimeout(this.timer);
      this.timer = undefined;
      do {
        this.again = false;
        this.againDue = false;
        await this.drain().catch(() => this.retryLater(0, null));
        // A failed drain waits for its retry (timer or alarm), whatever asked meanwhile.
      } while (this.again && this.failures === 0);
    })().finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }

  private async drain(): Promise<void> {
    const config = await this.endpoint();
    if (config === undefined) return;
    const db = await this.deps.db();
    if (!(await this.deps.hasOrigins([endpointPermissionPattern(config.endpoint)]))) {
      // Nothing is sent without the permission; permissions.onAdded reconfigures.
      await this.saveStatus(config, { permissionMissing: true });
      return;
    }
    this.installId ??= await installIdOf(this.deps.local);
    const identity = { installId: this.installId, version: this.deps.version };
    for (;;) {
      const batch = await peekQueue(db, this.deps.maxBatch ?? DEFAULT_EXPORT_BATCH);
      if (batch.length === 0) {
        await this.setBackoff(0, 0);
        await this.deps.alarms?.clear(EXPORT_ALARM);
        await this.saveStatus(config, {});
        return;
      }
      const { dropped } = await exportQueueState(db);
      const body = exportRequestBody(batch, identity, dropped, this.now(), config.encoding);
      await this.deps.alarms?.create(EXPORT_ALARM, { when: this.now() + IN_FLIGHT_ALARM_MS });
      const outcome = await this.post(config, body);
      if (!outcome.ok && refusesBatch(outcome.status)) {
        await rejectExported(
          db,
          batch.map((record) => record.id),
        );
        await this.saveStatus(config, { lastFailure: { at: this.now(), status: outcome.status } });
        continue;
      }
      if (!outcome.ok) {
        this.retryLater(outcome.status, outcome.retryAfter);
        await this.saveStatus(config, { lastFailure: { at: this.now(), status: outcome.status } });
        return;
      }
      await ackExported(
        db,
        batch.map((record) => record.id),
        dropped,
      );
      if (this.failures > 0) await this.setBackoff(0, 0);
      await this.saveStatus(config, { lastDeliveredAt: this.now() });
    }
  }

  private async post(config: EndpointInForce, body: Uint8Array): Promise<Outcome> {
    try {
      const response = await this.deps.fetch(config.endpoint, {
        method: 'POST',
        headers: { 'Content-Type': OTLP_CONTENT_TYPES[config.encoding] },
        body: body as Uint8Array<ArrayBuffer>,
        credentials: 'omit',
        cache: 'no-store',
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      // The body is not needed (partial success is not retried, OTLP/HTTP "Partial Success").
      await response.body?.cancel().catch(() => undefined);
      if (response.ok) return { ok: true };
      return {
        ok: false,
        status: response.status,
        retryAfter: response.headers.get('Retry-After'),
      };
    } catch {
      return { ok: false, status: 0, retryAfter: null };
    }
  }

  private retryLater(status: number, retryAfter: string | null): void {
    const failures = this.failures + 1;
    const delay =
      (status === 429 || status === 503 ? retryAfterMs(retryAfter, this.backoff) : undefined) ??
      backoffDelay(failures, this.backoff, this.deps.random ?? Math.random);
    void this.setBackoff(failures, this.now() + delay);
    this.armTimer(delay);
    // The worker may be stopped before the timer fires: the alarm wakes it.
    void Promise.resolve(
      this.deps.alarms?.create(EXPORT_ALARM, { when: this.now() + delay }),
    ).catch(() => undefined);
  }

  private armTimer(delay: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.drainNow();
    }, delay);
  }

  private async restoreBackoff(): Promise<void> {
    const stored = (await this.deps.session?.get(EXPORT_BACKOFF_KEY).catch(() => undefined))?.[
      EXPORT_BACKOFF_KEY
    ] as { failures?: unknown; nextAt?: unknown } | undefined;
    const { failures, nextAt } = stored ?? {};
    if (Number.isSafeInteger(failures) && typeof nextAt === 'number' && this.failures === 0) {
      this.failures = failures as number;
      this.nextAt = nextAt;
    }
  }

  private async setBackoff(failures: number, nextAt: number): Promise<void> {
    this.failures = failures;
    this.nextAt = nextAt;
    await this.deps.session
      ?.set({ [EXPORT_BACKOFF_KEY]: { failures, nextAt } })
      .catch(() => undefined);
  }

  private async saveStatus(config: EndpointInForce, change: Partial<ExportStatus>): Promise<void> {
    const stored = (await this.deps.local.get(EXPORT_STATUS_KEY))[EXPORT_STATUS_KEY] as
      Partial<ExportStatus> | undefined;
    const { queued, droppedTotal } = await exportQueueState(await this.deps.db());
    const status: ExportStatus = {
      ...(stored?.endpoint === config.endpoint ? stored : {}),
      ...change,
      endpoint: config.endpoint,
      queued,
      droppedTotal,
    };
    if (change.permissionMissing !== true) delete status.permissionMissing;
    await this.deps.local.set({ [EXPORT_STATUS_KEY]: status });
  }
}
