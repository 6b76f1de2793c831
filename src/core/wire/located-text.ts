/**
 * Text found at a JSON path of a frame, and what whole-body adapters (history
 * loads, non-streaming answers) share: a frame whose located strings are
 * replaced in place, and a session that answers a block before any text could
 * be released with the same document, every guarded text emptied.
 */
import { type JsonPath, replaceStrings } from './json-string-span.ts';
import type { RawFrame } from './raw-frame.ts';
import type { AdapterSession, TextSlot, WireEvent } from './wire-event.ts';

export interface LocatedText {
  slot: TextSlot;
  path: JsonPath;
}

/** A frame whose slots are the located strings, re-rendered by replacing just those literals. */
export function locatedJsonEvent(frame: RawFrame, located: readonly LocatedText[]): WireEvent {
  return {
    frame,
    slots: located.map((l) => l.slot),
    render: (texts) =>
      replaceStrings(
        frame.raw,
        located.map((l, i) => ({ path: l.path, value: texts[i] as string })),
      ),
  };
}

/**
 * On a block the rewriter sends the body cut at the block point; when the block
 * sits at the very start of a text nothing could be sent, so the body goes out
 * with every guarded text emptied: still valid JSON, nothing unguarded.
 */
export function emptiedOnBlockSession(decode: (frame: RawFrame) => WireEvent): AdapterSession {
  let last: WireEvent | undefined;
  let sent = false;
  return {
    decode(frame) {
      last = decode(frame);
      return last;
    },
    emitted() {
      sent = true;
    },
    blockEnding() {
      if (sent || last === undefined || last.slots.length === 0) return '';
      return last.render(last.slots.map(() => ''));
    },
  };
}
