/**
 * `csg replay`'s word on a response it cannot place (issue 20 §3): the closest
 * registered format and why it was refused (core/wire/closest-format.ts), from
 * the same facts detection had.
 */
import { captureProbe, type CaptureFacts } from '../core/wire/capture-format.ts';
import { closestFormat, describeClosest } from '../core/wire/closest-format.ts';

/** `closest: openai-chat [openai-chat-stream] (URL matches its route; refused: …)`. */
export function closestLine(facts: CaptureFacts): string {
  const probe = captureProbe(facts);
  return `closest: ${describeClosest(closestFormat(probe, facts.text), probe)}`;
}
