/**
 * A thin `TransformStream` over the pure guard core (the eventsource-parser
 * pattern: the core knows nothing about streams, the wrapper nothing about
 * matching). On a block the readable side closes after the last safe text, so
 * the consumer ends the stream; nothing after the block point is enqueued.
 */
import type { CompiledPack } from '../rules/compile-pack.ts';
import type { GuardEvent, GuardResult } from './guard-event.ts';
import { type GuardOptions, StreamGuard } from './stream-guard.ts';

export interface GuardTransformOptions extends GuardOptions {
  onEvent?: (event: GuardEvent) => void;
  /**
   * Called when the guard starts or stops holding text back (edge-triggered,
   * after a push or the end). For a "holding" indicator only: time never
   * releases held text (DESIGN.md §3.4).
   */
  onHoldChange?: (holding: boolean) => void;
}

export function createGuardTransform(
  pack: CompiledPack,
  options: GuardTransformOptions = {},
): TransformStream<string, string> {
  const guard = new StreamGuard(pack, options);
  let holding = false;
  const deliver = (result: GuardResult, controller: TransformStreamDefaultController<string>) => {
    for (const event of result.events) options.onEvent?.(event);
    const nowHolding = guard.heldUnits > 0;
    if (nowHolding !== holding) {
      holding = nowHolding;
      options.onHoldChange?.(holding);
    }
    if (result.emit.length > 0) controller.enqueue(result.emit);
    if (result.blocked) controller.terminate();
  };
  return new TransformStream<string, string>({
    transform(chunk, controller) {
      if (guard.isBlocked) return;
      deliver(guard.push(chunk), controller);
    },
    flush(controller) {
      if (guard.isBlocked) return;
      deliver(guard.end(), controller);
    },
  });
}
