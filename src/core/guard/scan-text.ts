/**
 * Whole-text and chunk-list conveniences over the streaming core, for the CLI,
 * history loads and tests. They run the very same `push`/`end` path.
 */
import type { CompiledPack } from '../rules/compile-pack.ts';
import type { GuardEvent } from './guard-event.ts';
import { type GuardOptions, StreamGuard } from './stream-guard.ts';

export interface ScanOutcome {
  output: string;
  events: GuardEvent[];
  blocked: boolean;
  /** What each push (then the final end) released, in order. */
  emits: string[];
}

export function scanChunks(
  pack: CompiledPack,
  chunks: Iterable<string>,
  options: GuardOptions = {},
): ScanOutcome {
  const guard = new StreamGuard(pack, options);
  const emits: string[] = [];
  const events: GuardEvent[] = [];
  for (const chunk of chunks) {
    const r = guard.push(chunk);
    emits.push(r.emit);
    events.push(...r.events);
  }
  const r = guard.end();
  emits.push(r.emit);
  events.push(...r.events);
  return { output: emits.join(''), events, blocked: guard.isBlocked, emits };
}

export function scanText(
  pack: CompiledPack,
  text: string,
  options: GuardOptions = {},
): ScanOutcome {
  return scanChunks(pack, [text], options);
}
