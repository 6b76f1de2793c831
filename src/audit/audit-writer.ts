/**
 * The single writer of the audit log, living in the background: every tab's events
 * go through one queue, so concurrent tabs never race on retention (one flush at a
 * time, one transaction per batch). Events are collected for up to `delayMs` or
 * `maxBatch` events, whichever comes first.
 *
 * A QuotaExceededError aborts the batch's transaction (nothing of it is written);
 * the writer then drops the oldest records and retries, so the newest events
 * survive a full disk (DESIGN.md invariant 9). If the store is empty and the batch
 * still does not fit, the batch's oldest records are given up one by one until the
 * rest fits.
 */
import type { AuditRecord } from '../protocol/runtime-messages.ts';
import type { Retention } from './audit-retention.ts';

/** Where batches go: the IndexedDB store in production (audit-store.ts). */
export interface AuditSink {
  addBatch(records: readonly AuditRecord[], retention: Retention, now: number): Promise<void>;
  dropOldest(count: number): Promise<number>;
  count(): Promise<number>;
}

export interface AuditWriterOptions {
  sink: AuditSink;
  retention: () => Retention;
  now?: () => number;
  delayMs?: number;
  maxBatch?: number;
  /** Called with a content-free reason when a batch (or part of it) could not be kept. */
  onLoss?: (lost: number, reason: string) => void;
}

export const DEFAULT_BATCH_DELAY_MS = 250;
export const DEFAULT_MAX_BATCH = 50;
/** Quota retries per batch before its oldest half is given up. */
const QUOTA_RETRIES = 8;

export function isQuotaError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'name' in error &&
    (error as { name: unknown }).name === 'QuotaExceededError'
  );
}

export class AuditWriter {
  private readonly pending: AuditRecord[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The flush in progress (or the last one): flushes are chained, never concurrent. */
  private chain: Promise<void> = Promise.resolve();
  private readonly options: Required<Omit<AuditWriterOptions, 'onLoss'>> &
    Pick<AuditWriterOptions, 'onLoss'>;

  constructor(options: AuditWriterOptions) {
    this.options = {
      now: Date.now,
      delayMs: DEFAULT_BATCH_DELAY_MS,
      maxBatch: DEFAULT_MAX_BATCH,
      ...options,
    };
  }

  /** Queues records; they are written within `delayMs` (or at once when the batch is full). */
  add(records: readonly AuditRecord[]): void {
    this.pending.push(...records);
    if (this.pending.length >= this.options.maxBatch) {
      void this.flush();
    } else if (this.timer === undefined && this.pending.length > 0) {
      this.timer = setTimeout(() => void this.flush(), this.options.delayMs);
    }
  }

  /** Writes everything queued so far; resolves when it is stored (or given up). */
  flush(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending.splice(0, this.pending.length);
    if (batch.length > 0) {
      // The chain never rejects, or one failure would stop every later write.
      this.chain = this.chain
        .then(() => this.writeBatch(batch))
        .catch(() => this.options.onLoss?.(batch.length, 'write failed'));
    }
    return this.chain;
  }

  private async writeBatch(batch: AuditRecord[]): Promise<void> {
    // Several flushes' worth can queue up behind a slow one: write in slices.
    const { maxBatch } = this.options;
    for (let start = 0; start < batch.length; start += maxBatch) {
      await this.writeSlice(batch.slice(start, start + maxBatch));
    }
  }

  private async writeSlice(slice: AuditRecord[]): Promise<void> {
    const { sink, retention, now } = this.options;
    let remaining = slice;
    while (remaining.length > 0) {
      for (let attempt = 0; attempt < QUOTA_RETRIES; attempt += 1) {
        try {
          await sink.addBatch(remaining, retention(), now());
          return;
        } catch (error) {
          if (!isQuotaError(error)) {
            this.options.onLoss?.(remaining.length, 'write failed');
            return;
          }
          const stored = await sink.count();
          if (stored === 0) break;
          // Make room for the batch, and at least a tenth of the store, oldest first.
          await sink.dropOldest(Math.max(remaining.length, Math.ceil(stored / 10)));
        }
      }
      // Nothing left to drop but the batch itself: give up its oldest record. At most
      // maxBatch steps, and only when the disk is full with an empty log.
      this.options.onLoss?.(1, 'quota exceeded');
      remaining = remaining.slice(1);
    }
  }
}
