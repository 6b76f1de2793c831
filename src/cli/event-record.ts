/**
 * One guard event as a `--events` JSON Lines record. Match events are written
 * as the engine returns them, `rule`, `action`, `start`, `end` first (offsets in
 * code points of the input). An error event blocked the stream at `at`: it is
 * written with `action: "block"` and `start = end = at` so every record has the
 * same leading fields, plus its `message`.
 */
import type { GuardEvent } from '../core/guard/guard-event.ts';

export function eventRecord(event: GuardEvent): string {
  if (event.type === 'match') {
    const { rule, action, start, end, kind, type, pack, also } = event;
    return JSON.stringify({ rule, action, start, end, kind, type, pack, also });
  }
  const { rule, at, message, type, pack } = event;
  return JSON.stringify({
    rule: rule ?? null,
    action: 'block',
    start: at,
    end: at,
    type,
    message,
    at,
    pack,
  });
}
