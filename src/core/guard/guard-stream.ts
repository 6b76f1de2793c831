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
}

export function createGuardTransform(
  pack: CompiledPack,
  options: GuardTransformOptions = {},
): TransformStream<string, string> {
  const guard = new StreamGuard(pack, options);
  const deliver = (result: GuardResult, controller: TransformStreamDefaultController<string>) => {
    for (const event of result.events) options.onEvent?.(event);
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
