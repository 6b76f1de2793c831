/**
 * Server-sent events as an EventSource dispatches them (HTML "Interpreting an event
 * stream"), for the text the guard gives back to the EventSource hook. Small on purpose:
 * it runs in the page's MAIN-world script (issue 4: its size), and it only ever reads
 * text the hook itself wrote and a wire adapter re-serialised.
 *
 * Lines end with CR, LF or CRLF (also split across chunks); `data` lines join with LF;
 * `event` names the next event; `id` sets the last event ID, which carries over to later
 * events (an id containing NUL is ignored); comments, `retry` and unknown fields are
 * ignored; a blank line dispatches, unless no data came. What follows the last blank line
 * when the text ends is dropped, as by EventSource.
 *
 * MAIN world: no extension APIs.
 */

/** One dispatched event: its type, data and the last event ID. */
export type SseEventSink = (type: string, data: string, lastEventId: string) => void;

export interface SseEvents {
  feed(text: string): void;
}

export function sseEvents(dispatch: SseEventSink): SseEvents {
  let rest = '';
  /** The last chunk ended with CR: an LF opening the next one ends nothing. */
  let afterCr = false;
  let data: string | undefined;
  let type = '';
  let lastEventId = '';

  const line = (text: string): void => {
    if (text === '') {
      if (data !== undefined) dispatch(type || 'message', data, lastEventId);
      data = undefined;
      type = '';
      return;
    }
    const colon = text.indexOf(':');
    if (colon === 0) return;
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') data = data === undefined ? value : `${data}\n${value}`;
    else if (field === 'event') type = value;
    else if (field === 'id' && value.indexOf('\0') < 0) lastEventId = value;
  };

  return {
    feed(chunk) {
      // The CR that ended the last chunk ended its line: a following LF belongs to it.
      const text = rest + (afterCr && chunk.charCodeAt(0) === 10 ? chunk.slice(1) : chunk);
      afterCr = false;
      let start = 0;
      for (let at = rest.length; at < text.length; at++) {
        const unit = text.charCodeAt(at);
        if (unit !== 10 && unit !== 13) continue;
        line(text.slice(start, at));
        if (unit === 13) {
          if (at + 1 === text.length) afterCr = true;
          else if (text.charCodeAt(at + 1) === 10) at++;
        }
        start = at + 1;
      }
      rest = text.slice(start);
    },
  };
}
