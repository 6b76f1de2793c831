/**
 * The shared kit of adapters whose body is one JSON document (history loads,
 * non-streaming answers; issue 20 §0): parse the payload, locate the texts to
 * guard, re-render by replacing just those literals, and on a block before
 * anything could be released answer the same document with every guarded text
 * emptied (located-text.ts `emptiedOnBlockSession`). An adapter built on it is
 * its `locate` (and, when it edits more than the strings, its `render`).
 */
import { type LocatedText, emptiedOnBlockSession, locatedJsonEvent } from './located-text.ts';
import type { RawFrame } from './raw-frame.ts';
import { type AdapterSession, type WireEvent, passThrough } from './wire-event.ts';

/** A parsed body that holds nothing to guard; `report` (if any) names why it is unexpected. */
export interface NothingToGuard {
  nothing: true;
  report?: string;
}

export interface JsonBodyReader<L extends LocatedText = LocatedText> {
  /** Adapter id, used in reports. */
  label: string;
  /** The texts to guard in the parsed body, or why it has none. */
  locate(json: unknown): readonly L[] | NothingToGuard;
  /** The body with `texts[i]` at `located[i]`; default: just the string literals replaced. */
  render?(raw: string, located: readonly L[], texts: readonly string[]): string;
}

/** A body with nothing to guard; `report` makes it an unrecognised frame (reported, passed on). */
export function nothingToGuard(report?: string): NothingToGuard {
  return report === undefined ? { nothing: true } : { nothing: true, report };
}

function isNothing<L>(value: readonly L[] | NothingToGuard): value is NothingToGuard {
  return !Array.isArray(value);
}

/** One JSON body frame: parsed, located, rendered; a body that is not JSON passes through, reported. */
export function decodeJsonBody<L extends LocatedText>(
  frame: RawFrame,
  reader: JsonBodyReader<L>,
): WireEvent {
  let json: unknown;
  try {
    json = JSON.parse(frame.payload ?? frame.raw);
  } catch {
    return passThrough(frame, `${reader.label}: body is not JSON`);
  }
  const located = reader.locate(json);
  if (isNothing(located)) return passThrough(frame, located.report);
  const render = reader.render;
  if (render === undefined) return locatedJsonEvent(frame, located);
  return {
    frame,
    slots: located.map((l) => l.slot),
    render: (texts) => render(frame.raw, located, texts),
  };
}

/** The session of a whole-JSON-body adapter (fail closed on a block: texts emptied). */
export function jsonBodySession<L extends LocatedText>(reader: JsonBodyReader<L>): AdapterSession {
  return emptiedOnBlockSession((frame) => decodeJsonBody(frame, reader));
}
