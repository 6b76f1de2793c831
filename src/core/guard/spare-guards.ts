/**
 * One ended guard kept per pack and options object, made new again for the next
 * stream instead of building another (issue 19 §5: a history document is 1,241
 * messages, each its own channel and guard; building a guard is three scanners,
 * the shared bigram pass and their arrays, 18–49 ms of a load in the page's profile,
 * and the garbage of it). A guard is restarted as it is given back
 * (`StreamGuard.restart`: only when its options still ask for its plan and profile),
 * so a spare holds no text of the stream it ended (after an end the view keeps a
 * lookbehind of it), and checked again when taken (`fitsItsOptions`: the options may
 * have changed in place since); if it no longer fits, a new guard is built. Keyed by
 * the options object itself (a rewriter passes the same one to all its channels);
 * weakly, so a spare goes with its pack or options.
 */
import type { CompiledPack } from '../rules/compile-pack.ts';
import { type GuardOptions, StreamGuard } from './stream-guard.ts';

const spares = new WeakMap<CompiledPack, WeakMap<GuardOptions, StreamGuard>>();

/**
 * Bigram hit slots above which an ended guard is not kept: a spare holds its hit
 * arrays (5 bytes a slot), so one long message would otherwise pin megabytes.
 */
export const SPARE_MAX_HIT_SLOTS = 1 << 16;

/** Whether ledgers reuse guards: a holder so the tests can compare with fresh ones. */
export const reuseGuards = { enabled: true };

/** A guard for a new stream: the spare for this pack and options restarted, or a new one. */
export function takeGuard(pack: CompiledPack, options: GuardOptions): StreamGuard {
  const byOptions = spares.get(pack);
  const spare = byOptions?.get(options);
  if (spare !== undefined && reuseGuards.enabled) {
    // Taken out first: a guard is never handed to two streams.
    byOptions?.delete(options);
    if (spare.fitsItsOptions()) return spare;
  }
  return new StreamGuard(pack, options);
}

/** An ended guard that its stream no longer reads; kept as the spare when small enough. */
export function giveBack(guard: StreamGuard, options: GuardOptions): void {
  if (!reuseGuards.enabled || guard.hitSlots > SPARE_MAX_HIT_SLOTS || !guard.restart()) return;
  let byOptions = spares.get(guard.pack);
  if (byOptions === undefined) {
    byOptions = new WeakMap();
    spares.set(guard.pack, byOptions);
  }
  byOptions.set(options, guard);
}
