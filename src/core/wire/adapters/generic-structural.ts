/**
 * The generic structural adapter: for an answer in no format an adapter knows,
 * every string value is guarded (DESIGN.md §3.5), with continuity per JSON
 * path. Frames come from the structural framer (framing/structural-framer.ts):
 * SSE events (their JSON data, or the data itself when it is not JSON), JSON
 * values (a whole document, NDJSON lines), prefixed JSON lines (`0:"…"`) and
 * plain text.
 *
 * Continuity: the strings found at one path (per SSE event name, per line
 * prefix) form one guard stream, whatever frames they come in, until `[DONE]`,
 * an event of a terminal type (`done`, `end`…) or `{"done":true}` ends them all. Each new value
 * at a path is read against the text seen there so far:
 * - it extends that text (`"Hel"`, then `"Hello"`): a growing snapshot; the
 *   new suffix is guarded and the frame carries the guarded whole;
 * - it repeats it exactly (an id, a model name, a status): the path's text is
 *   complete, so its guard stream ends (whatever it held is decided now, and a
 *   constant field never holds the answer back); should the path grow later,
 *   its next value is guarded whole, as a fresh stream;
 * - anything else: the next piece of the text (a delta), joined to the rest.
 *
 * Re-serialisation: only the string literals whose guarded text differs are
 * replaced (`JSON.stringify`), every other byte stays; a frame whose texts are
 * unchanged is re-emitted byte for byte by the rewriter. Object keys are names,
 * not text, and are not guarded. A frame that cannot be read as JSON (a cut
 * line, a stray word) is guarded as text, on the body's text stream.
 */
import { type JsonStringAt, scanJsonStrings, spliceJsonStrings } from '../json-string-scan.ts';
import type { RawFrame } from '../raw-frame.ts';
import { isShapedFrame } from '../framing/structural-framer.ts';
import { type AdapterSession, type TextSlot, type WireEvent, passThrough } from '../wire-event.ts';

/** True for a frame of only comments, blank lines and `event` / `id` / `retry` fields. */
function isSilentSse(raw: string): boolean {
  return raw
    .split(/\r\n|\r|\n/)
    .every(
      (line) => line === '' || line.startsWith(':') || /^(?:event|id|retry)(?::|$)/.test(line),
    );
}

/**
 * SSE event types that say the answer is over (`event: done`, `event: end`,
 * `event: error`…). An event stream has no end of its own while its connection is open
 * (an EventSource reconnects), and a guard decides text it holds only at its channel's
 * end: without this, the last words of an answer in no known format would wait for the
 * next answer, and a page that waits for its `done` event (queued behind them, events
 * keep their order) would wait forever. The type is the server's field, not the
 * model's text, so an answer cannot end its own channel early.
 */
const TERMINAL_EVENT_TYPE =
  /^(?:done|end|ended|complete|completed|finish|finished|close|closed|stop|error)$/i;

function isTerminalEventType(type: string | undefined): boolean {
  return type !== undefined && TERMINAL_EVENT_TYPE.test(type);
}

/**
 * JSON data whose top-level object says `"done": true` (Ollama's lines, and many
 * streams of their own shape): the same end as a terminal event type. A boolean field
 * of the server's object, never a string the model wrote.
 */
function saysDone(json: string): boolean {
  if (!/"done"\s*:\s*true/.test(json)) return false;
  try {
    const value = JSON.parse(json) as unknown;
    return (
      typeof value === 'object' && value !== null && (value as { done?: unknown }).done === true
    );
  } catch {
    return false;
  }
}

/** The channel of a body's plain text (text frames, unreadable lines). */
export const TEXT_CHANNEL = 'text';

interface PathState {
  /** The current guard stream of this path (a new one after the path's text ended). */
  channel: string;
  generation: number;
  /** The text the guard stream has been fed (the rewriter's ledger holds the same). */
  seen: string;
  ended: boolean;
}

/** JSON Pointer of a path (RFC 6901): `/choices/0/delta/content`. */
export function pointerOf(path: readonly (string | number)[]): string {
  return path.map((k) => `/${String(k).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** Classifies each value at a path against the path's text so far (see the module comment). */
export class PathContinuity {
  private readonly paths = new Map<string, PathState>();

  /**
   * @param deltas The values at `key` are pieces of one text, never snapshots or repeats:
   * SSE data that is plain text (`decodeSse`), which a page joins. Read for continuity, a
   * piece that happens to begin with all the text so far (`S`, then `SN: 123…`) or to
   * repeat it would be taken for a snapshot or an echo, and a secret cut there guarded as
   * two halves (issue 17: a secret redacted whole).
   */
  slot(key: string, value: string, deltas = false): TextSlot {
    let state = this.paths.get(key);
    if (state === undefined) {
      state = { channel: key, generation: 0, seen: '', ended: false };
      this.paths.set(key, state);
    }
    if (deltas) {
      // After an end (a terminal event, `[DONE]`), the next piece begins a new text.
      if (state.ended) this.renew(state, key, '');
      state.seen += value;
      return { channel: state.channel, mode: 'delta', text: value };
    }
    if (state.ended) {
      if (value === state.seen) return { channel: state.channel, mode: 'echo', text: value };
      // The path changed after it looked complete: a fresh guard stream, fed the value whole.
      this.renew(state, key, value);
      return { channel: state.channel, mode: 'snapshot', text: value };
    }
    if (state.seen.length > 0 && value === state.seen) {
      state.ended = true;
      return { channel: state.channel, mode: 'echo', text: value };
    }
    if (state.seen.length > 0 && value.length > state.seen.length && value.startsWith(state.seen)) {
      state.seen = value;
      return { channel: state.channel, mode: 'snapshot', text: value };
    }
    state.seen += value;
    return { channel: state.channel, mode: 'delta', text: value };
  }

  /** A fresh guard stream for the path, its text so far `seen`. */
  private renew(state: PathState, key: string, seen: string): void {
    state.generation++;
    state.channel = `${key}#${state.generation}`;
    state.ended = false;
    state.seen = seen;
  }

  /**
   * The slot of a value that is its path's last (a terminal event's): the path's whole
   * text as an echo, so its guard stream ends with this frame and nothing of it is held
   * for a next frame that may never come.
   */
  finalSlot(key: string, value: string, deltas = false): TextSlot {
    const slot = this.slot(key, value, deltas);
    const state = this.paths.get(key)!;
    state.ended = true;
    return { channel: slot.channel, mode: 'echo', text: state.seen };
  }

  /** Ends every guard stream still open (at `[DONE]`); returns their channels. */
  endAll(): string[] {
    const open = [...this.paths.values()].filter((s) => !s.ended);
    for (const state of open) state.ended = true;
    return open.map((s) => s.channel);
  }
}

/**
 * An SSE frame's data lines, joined as the SSE parser joins them, and how to put new
 * data back. The new data may have more or fewer lines than the old (a redaction of a
 * multi-line secret, held text released with its line breaks): one `data:` line per
 * line of it, the extra ones after the frame's last data line and the missing ones
 * dropped, which an SSE reader joins to exactly the new data (HTML, "Interpreting an
 * event stream": data lines join with LF).
 */
function sseDataLines(raw: string): { data: string; render(data: string): string } | undefined {
  const lines: { text: string; end: string }[] = [];
  for (const m of raw.matchAll(/([^\r\n]*)(\r\n|\r|\n|$)/g)) {
    if (m[0] === '') break;
    lines.push({ text: m[1] ?? '', end: m[2] ?? '' });
  }
  const prefixOf = (text: string) => (text.startsWith('data: ') ? 'data: ' : 'data:');
  const isData = (line: { text: string }) => line.text.startsWith('data:');
  const dataLines = lines.filter(isData);
  const last = dataLines.at(-1);
  if (last === undefined) return undefined;
  const data = dataLines.map((l) => l.text.slice(prefixOf(l.text).length)).join('\n');
  return {
    data,
    render(next) {
      const parts = next.split('\n');
      // A value that starts with a space needs the space after the colon kept (the
      // reader strips one).
      const line = (prefix: string, part: string) =>
        (part.startsWith(' ') ? 'data: ' : prefix) + part;
      let k = 0;
      return lines
        .map((l) => {
          if (!isData(l)) return l.text + l.end;
          const prefix = prefixOf(l.text);
          if (l !== last) return k < parts.length - 1 ? line(prefix, parts[k++]!) + l.end : '';
          // The last data line takes every part still to write, each on its own line.
          const rest = parts.slice(k).map((part) => line(prefix, part));
          return rest.join(l.end === '' ? '\n' : l.end) + l.end;
        })
        .join('');
    },
  };
}

/** JSON text that is a number, a boolean or null: no string in it, no object or array. */
function isJsonScalar(json: string, strings: readonly JsonStringAt[]): boolean {
  const first = json.trimStart().charAt(0);
  return strings.length === 0 && first !== '{' && first !== '[';
}

export interface GenericSession extends AdapterSession {
  /** True when `event` came from this session (the structural session routes `emitted`). */
  owns(event: WireEvent): boolean;
}

export function genericSession(): GenericSession {
  const paths = new PathContinuity();
  const mine = new WeakSet<WireEvent>();
  let sent = false;
  /** The JSON values decoded: a lone document is answered on a block before anything was sent. */
  let lastJson: WireEvent | undefined;
  let jsonValues = 0;

  const own = (event: WireEvent): WireEvent => {
    mine.add(event);
    return event;
  };

  /** Slots for the strings of a JSON text, rendered back into `wrap`. */
  const jsonEvent = (
    frame: RawFrame,
    scope: string,
    strings: JsonStringAt[],
    json: string,
    wrap: (json: string) => string,
    last = false,
  ): WireEvent =>
    own({
      frame,
      slots: strings.map((s) =>
        last
          ? paths.finalSlot(scope + pointerOf(s.path), s.value)
          : paths.slot(scope + pointerOf(s.path), s.value),
      ),
      render: (texts) => wrap(spliceJsonStrings(json, strings, texts)),
    });

  const textEvent = (frame: RawFrame, slot: TextSlot, render: (text: string) => string) =>
    own({
      frame,
      slots: slot.text.length > 0 || slot.mode !== 'delta' ? [slot] : [],
      render: (texts) => render(texts[0] as string),
    });

  /** The frame's bytes are the text (plain text, a line that is not JSON). */
  const asText = (frame: RawFrame) =>
    textEvent(frame, { channel: TEXT_CHANNEL, mode: 'delta', text: frame.raw }, (text) => text);

  const decodeSse = (frame: RawFrame): WireEvent => {
    if (frame.sse === undefined) {
      // Comments, blank lines and data-less fields carry nothing a reader shows; any other
      // line (a body that only opened like SSE) is guarded as text.
      return isSilentSse(frame.raw) ? own(passThrough(frame)) : asText(frame);
    }
    const lines = sseDataLines(frame.raw);
    // The parser's data must be what the lines hold, or the frame cannot be rewritten in place.
    if (lines === undefined || lines.data !== frame.sse.data) return asText(frame);
    const scope = `sse:${frame.sse.event ?? 'message'}`;
    if (lines.data.trim() === '[DONE]') return own({ ...passThrough(frame), ends: paths.endAll() });
    const strings = scanJsonStrings(lines.data);
    // A terminal event (`event: done`, `{"done":true}`): the answer's text is complete
    // before it, and the event's own text is decided with it.
    const last = isTerminalEventType(frame.sse.event) || (strings !== null && saysDone(lines.data));
    const ends = last ? paths.endAll() : [];
    const render = (data: string) => lines.render(data);
    const dataKey = `${scope}#data`;
    // Not JSON, or a JSON number, boolean or null: the data itself is the text, one piece
    // of it per event. A plain-text stream cut anywhere has pieces that happen to read as
    // JSON (`7`, ` 12`, `true`); read as JSON they held no string, left the text's guard
    // stream, and a secret cut around one was guarded as two halves (issue 17).
    const event =
      strings === null || isJsonScalar(lines.data, strings)
        ? textEvent(
            frame,
            last
              ? paths.finalSlot(dataKey, lines.data, true)
              : paths.slot(dataKey, lines.data, true),
            render,
          )
        : jsonEvent(frame, scope, strings, lines.data, render, last);
    if (ends.length > 0) event.ends = ends;
    return event;
  };

  const decodeJson = (frame: RawFrame, scope: string, lead: string): WireEvent => {
    const payload = frame.payload ?? '';
    const strings = scanJsonStrings(payload);
    if (strings === null) return asText(frame);
    const trail = frame.raw.slice(lead.length + payload.length);
    const event = jsonEvent(frame, scope, strings, payload, (json) => lead + json + trail);
    lastJson = event;
    jsonValues++;
    return event;
  };

  return {
    decode(frame) {
      if (!isShapedFrame(frame)) return asText(frame);
      switch (frame.shape) {
        case 'sse':
          return decodeSse(frame);
        case 'json':
          return decodeJson(frame, 'json', frame.lead ?? '');
        case 'prefixed':
          return decodeJson(frame, `line:${frame.lead ?? ''}`, frame.lead ?? '');
        case 'space':
          return own(passThrough(frame));
        case 'text':
        case 'binary':
          return asText(frame);
      }
    },
    owns: (event) => mine.has(event),
    emitted() {
      sent = true;
    },
    // Blocked before anything went out: a lone JSON document goes out with every string
    // emptied (still valid JSON, nothing unguarded); any other body just ends.
    blockEnding() {
      if (sent || jsonValues !== 1 || lastJson === undefined || lastJson.slots.length === 0) {
        return '';
      }
      return lastJson.render(lastJson.slots.map(() => ''));
    },
  };
}
