/**
 * The `EventSource` hook of the MAIN world.
 *
 * EventSource hands the page parsed events, while the wire adapters work on SSE text.
 * Design (the simplest correct one found): keep the native EventSource (reconnection,
 * credentials, CORS, `readyState` stay the browser's), and for each stream an adapter
 * recognises, turn every event back into its SSE text (`event:`, `id:`, `data:` lines),
 * run that text through the same byte guard the fetch hook uses (`createWireGuard`, via
 * guarded-text-pump.ts), parse the guarded text again (sse-events.ts) and dispatch the
 * resulting events to the page. Adapters keep events one for one (DESIGN.md §3.6), so
 * the page receives the same events with only their text changed. Rebuilding on fetch
 * instead would mean re-implementing reconnection, `Last-Event-ID` and credentials.
 *
 * How the hook sees every event first: the constructor registers a capturing `message`
 * listener before the page can register anything, and `addEventListener` (patched on
 * `EventTarget.prototype`, so `es.addEventListener === EventTarget.prototype.
 * addEventListener` still holds) registers the hook's listener for a named event type
 * just before the page's first listener for that type. The hook's listener stops the
 * native event (`stopImmediatePropagation`) and the guarded copy is dispatched instead.
 * Named events no page listener asked for never reach the page, so the guard does not
 * see them either: it guards exactly what the page can read.
 *
 * Decision: at the first event, with the stream's URL, method GET, content type
 * `text/event-stream` (EventSource accepts nothing else) and that event's SSE text as
 * the head. An EventSource is an event stream by definition and this script runs only
 * on switched-on sites, so it counts as a possible answer (`chatRequest`, issue 18 §1,
 * DESIGN.md §3.5): an adapter that claims it guards it, and one no adapter claims is
 * guarded by the generic structural adapter (every string field; a `data:` payload that
 * is not JSON is guarded as text; continuity per event type), which reports it as
 * `generic` in the audit log and the popup. Deciding at the first event is what the
 * fetch hook's peek does for an event stream (response-peek.ts `headIsDecisive`), and
 * nothing passes unguarded while waiting for more (a slow stream is not held back).
 *
 * Issue 18 §3, continuity: one guard per EventSource object, for its whole life. A
 * dropped connection after which the browser reconnects (Last-Event-ID) does not end the
 * guard's stream: what the guard holds is carried over to the next connection's events,
 * so a secret cut at the drop is decided whole, never released in two halves. The page
 * gets the `error` event at once. The stream ends when the browser gives up (its error
 * event then follows the guard's last events), when the page closes the EventSource
 * from `onerror` (the guard's last events still follow: they came before the error), or
 * when the page closes it at any other time (the browser would deliver nothing more: the
 * guard's stream is dropped).
 *
 * Failures: an exception in the hook's own steps, or a guard that cannot be built or
 * fails, fails closed: the EventSource is closed (readyState CLOSED) and the page gets an
 * `error` event, like a fatal network error; no raw event after that point reaches the
 * page. A block ends the page's view with the provider's ending; later native events are
 * dropped.
 *
 * No extension APIs here: this code runs in the page's own world.
 */

import type { WireProbe, WireRecogniser } from '../core/wire/wire-event.ts';
import { newFetchHookStats, type FetchHookOptions } from './fetch-hook.ts';
import { GuardedTextPump } from './guarded-text-pump.ts';
import {
  apply,
  call,
  create,
  eventType,
  getOwnPropertyDescriptor,
  MessageOf,
  pristine,
  weakMap,
  weakSet,
} from './intrinsics.ts';
import { replaceConstructor, replaceMethod } from './native-patch.ts';
import { HEAD_BYTES } from './response-peek.ts';
import { sseEvents } from './sse-events.ts';

export type EventSourceHookOptions = Pick<
  FetchHookOptions,
  'detectAdapter' | 'createWireGuard' | 'stats' | 'reportFailure'
>;

export interface EventSourceHookTarget {
  EventSource: typeof EventSource;
  MessageEvent: typeof MessageEvent;
  Event: typeof Event;
  EventTarget: typeof EventTarget;
  Function: FunctionConstructor;
}

const CLOSED = 2;

/**
 * - undecided: no event yet;
 * - native: no recogniser claimed it, not even the generic one (not in this extension:
 *   the generic adapter takes every event stream; kept for a `detectAdapter` that may);
 * - guarded: one guard for the EventSource's whole life, across reconnections;
 * - closing: the stream is over (the browser gave up, or the page closed it on an
 *   error) and the guard releases its last events, which the page still gets;
 * - finished: the guard released everything, or the page closed the EventSource;
 * - failed: fail closed.
 */
type Phase = 'undecided' | 'native' | 'guarded' | 'closing' | 'finished' | 'failed';

interface SourceState {
  url: string;
  phase: Phase;
  /** Event types the hook's listener is registered for (a table: no Set method to replace). */
  intercepted: Record<string, true>;
  pump: GuardedTextPump | undefined;
  /** The last event id written into the guard's input. */
  lastIdIn: string;
  /** The page is being told of a dropped connection (its `onerror` may close the source). */
  inError: boolean;
  /** The stream ended on an error event, held back until the guard's last events. */
  errorHeld: boolean;
}

/** One native event as the SSE text it was parsed from. */
export function sseTextOf(type: string, data: string, id: string, lastId: string): string {
  let text = type === 'message' ? '' : `event: ${type}\n`;
  if (id !== lastId) text += `id: ${id}\n`;
  // EventSource splits data on LF (CR and CRLF became LF): one `data:` line per line.
  const lines = data.split('\n');
  for (let i = 0; i < lines.length; i++) text += `data: ${lines[i]}\n`;
  return `${text}\n`;
}

const INSTALLED = weakSet<object>();

/** The phase, re-read after a call that may have moved it on. */
const phaseOf = (state: SourceState): Phase => state.phase;

export function installEventSourceHook(
  target: EventSourceHookTarget,
  options: EventSourceHookOptions = {},
): void {
  const { detectAdapter, createWireGuard, reportFailure } = options;
  const stats = options.stats ?? newFetchHookStats();
  if (!detectAdapter || !createWireGuard) return;
  if (typeof target.EventSource !== 'function' || INSTALLED.has(target.EventSource)) return;

  const realm = target;
  // Captured now (document_start): the page may replace any of them later.
  const { MessageEvent, Event } = target;
  const states = weakMap<object, SourceState>();
  const synthetic = weakSet<Event>();
  const eventTargetProto = target.EventTarget.prototype;
  const nativeAdd = eventTargetProto.addEventListener;
  const dispatch = eventTargetProto.dispatchEvent;
  const stopImmediate = Event.prototype.stopImmediatePropagation;
  const sourceProto = target.EventSource.prototype;
  const readyStateGetter = getOwnPropertyDescriptor(sourceProto, 'readyState')?.get;
  const urlGetter = getOwnPropertyDescriptor(sourceProto, 'url')?.get;
  const readyStateOf = (source: EventSource): number =>
    readyStateGetter ? call<number>(readyStateGetter, source) : 0;
  const errorEvent = () => new Event('error');
  const nativeClose = sourceProto.close;

  const fire = (source: EventSource, event: Event): void => {
    synthetic.add(event);
    call(dispatch, source, event);
  };

  /**
   * Fail closed: the EventSource is closed and the page gets an `error` event, like a
   * fatal network error. `hookFailed` when the hook's own step threw (the person is told
   * here; a guard that failed in the ISOLATED world was reported there).
   */
  const failClosed = (source: EventSource, state: SourceState, hookFailed = false): void => {
    if (state.phase === 'failed') return;
    if (hookFailed) {
      stats.decisionErrors++;
      reportFailure?.('event-source', 'decision');
    } else {
      stats.guardFailures++;
    }
    // Closing: the EventSource is closed already and its error event was held back.
    const fireError = state.phase !== 'closing' || state.errorHeld;
    state.phase = 'failed';
    state.pump?.cancel();
    state.pump = undefined;
    call(nativeClose, source);
    if (fireError) fire(source, errorEvent());
  };

  /** Ends the guard's stream: it releases what it holds (delivered), then `errorHeld`. */
  const endStream = (state: SourceState, errorHeld: boolean): void => {
    state.phase = 'closing';
    state.errorHeld = errorHeld;
    state.pump?.close();
  };

  const startGuard = (
    source: EventSource,
    state: SourceState,
    adapter: WireRecogniser,
    probe: WireProbe,
    origin: string,
  ): void => {
    state.phase = 'guarded';
    state.lastIdIn = '';
    stats.wireGuarded++;
    const events = sseEvents((type, data, lastEventId) => {
      // After the page closed the EventSource the browser delivers nothing; a stream that
      // ended (closing) still delivers what the guard held, which came before its end.
      const live = state.phase === 'guarded' && readyStateOf(source) !== CLOSED;
      if (!live && state.phase !== 'closing') return;
      const init = { __proto__: null, data, lastEventId, origin } as MessageEventInit;
      fire(source, new MessageEvent(type, init));
    });
    let pump: GuardedTextPump | undefined;
    try {
      pump = new GuardedTextPump(createWireGuard(adapter, probe), {
        text: (chunk) => events.feed(chunk),
        end: () => {
          if (state.pump !== pump) return;
          const closing = state.phase === 'closing';
          // Ended by the guard itself (a block) or at the stream's end: nothing more.
          if (closing || state.phase === 'guarded') state.phase = 'finished';
          if (closing && state.errorHeld) fire(source, errorEvent());
        },
        fail: () => {
          if (state.pump === pump) failClosed(source, state);
        },
      });
    } catch {
      failClosed(source, state);
      return;
    }
    state.pump = pump;
  };

  /** A stream event, native: decide while undecided; while guarded, feed the guard. */
  const onStreamEvent = (source: EventSource, state: SourceState, event: Event): void => {
    if (synthetic.has(event) || !(event instanceof MessageEvent) || state.phase === 'native') {
      return;
    }
    try {
      const read = (key: keyof typeof MessageOf) => call<string>(MessageOf[key], event);
      const type = eventType(event);
      const data = `${read('data')}`;
      const lastEventId = read('lastEventId');
      if (state.phase === 'undecided') {
        const head = sseTextOf(type, data, lastEventId, '').slice(0, HEAD_BYTES);
        const probe: WireProbe = {
          url: state.url,
          method: 'GET',
          contentType: 'text/event-stream',
          head,
          chatRequest: true,
        };
        // The decision runs with the built-ins of document_start (intrinsics.ts). A
        // specific adapter first; else the generic one (its `chatRequest` claim).
        pristine(() => {
          const adapter = detectAdapter(probe);
          if (adapter !== undefined) startGuard(source, state, adapter, probe, read('origin'));
          else {
            stats.unrecognised++;
            state.phase = 'native';
          }
        });
        // Not recognised: this event and the later ones are the browser's own.
        if (phaseOf(state) === 'native') return;
      }
      call(stopImmediate, event);
      if (state.phase !== 'guarded') return;
      state.pump?.write(sseTextOf(type, data, lastEventId, state.lastIdIn));
      state.lastIdIn = lastEventId;
    } catch {
      // The hook's own step threw (deciding, or feeding the guard): fail closed.
      call(stopImmediate, event);
      failClosed(source, state, true);
    }
  };

  /**
   * A dropped connection. The browser gave up (CLOSED): the stream ends here; the guard
   * releases what it held, and only then does the page get the error event. The browser
   * reconnects (CONNECTING): one guard per EventSource, so the guard goes on with the
   * next connection's events and what it holds is carried over: a secret cut at the drop
   * is decided whole, never released in two halves. The page is told of the drop at once;
   * if its `onerror` closes the EventSource, the stream ends there as above, and the
   * page still gets what the guard held (it came before the error).
   */
  const onError = (source: EventSource, state: SourceState, event: Event): void => {
    if (synthetic.has(event) || state.phase !== 'guarded') return;
    call(stopImmediate, event);
    if (readyStateOf(source) === CLOSED) {
      endStream(state, true);
      return;
    }
    state.inError = true;
    try {
      fire(source, errorEvent());
    } finally {
      state.inError = false;
    }
    if (state.phase === 'guarded' && readyStateOf(source) === CLOSED) endStream(state, false);
  };

  const intercept = (source: EventSource, state: SourceState, type: string): void => {
    if (type === 'open' || type === 'error' || state.intercepted[type]) return;
    state.intercepted[type] = true;
    call(nativeAdd, source, type, (event: Event) => onStreamEvent(source, state, event), true);
  };

  replaceConstructor<typeof EventSource>(target, 'EventSource', realm, (source) => {
    const state: SourceState = {
      url: urlGetter ? call<string>(urlGetter, source) : '',
      phase: 'undecided',
      intercepted: create(null) as Record<string, true>,
      pump: undefined,
      lastIdIn: '',
      inError: false,
      errorHeld: false,
    };
    states.set(source, state);
    intercept(source, state, 'message');
    call(nativeAdd, source, 'error', (event: Event) => onError(source, state, event), true);
  });
  INSTALLED.add(target.EventSource);

  // The page closes the EventSource: the browser delivers nothing more, so the guard's
  // stream is dropped (what it held is never shown). Closed from `onerror`, see onError.
  replaceMethod(sourceProto, 'close', realm, (native) => {
    return {
      close(this: EventSource): void {
        call(native, this);
        const state = states.get(this);
        if (state === undefined || state.phase !== 'guarded' || state.inError) return;
        state.phase = 'finished';
        state.pump?.cancel();
      },
    }.close as never;
  });

  replaceMethod(eventTargetProto, 'addEventListener', realm, (native) => {
    return {
      addEventListener(this: unknown, ...args: unknown[]): void {
        const state = typeof this === 'object' && this !== null ? states.get(this) : undefined;
        if (state !== undefined && state.phase !== 'native') {
          try {
            intercept(this as EventSource, state, `${args[0] as string}`);
          } catch {
            // The listener could not be put first: fail closed rather than let events by.
            failClosed(this as EventSource, state, true);
          }
        }
        return apply(native, this, args);
      },
    }.addEventListener as never;
  });
}
