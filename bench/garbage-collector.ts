/**
 * Access to V8's garbage collector for the heap measurement: `global.gc` when
 * node runs with --expose-gc, else the flag is switched on at run time and the
 * function taken from a fresh context (so `tsx bench/run.ts` needs no flag).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export function garbageCollector(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === 'function') return existing;
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as unknown;
  if (typeof gc !== 'function') throw new Error('cannot reach the garbage collector');
  return gc as () => void;
}

/** heapUsed after a full collection (twice, so weak and finalised objects are gone too). */
export function settledHeapUsed(gc: () => void): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}
