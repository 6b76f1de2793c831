/**
 * The `EventSource` hook of the MAIN world.
 *
 * EventSource hands the page parsed events, while the wire adapters work on SSE text.
 * Design (the simplest correct one found): keep the native EventSource (reconnection,
 * credentials, CORS, `readyState` and `close()` stay the browser's), and for each stream
 * an adapter recognises, turn every event back into its SSE text (`event:`, `id:`,
 * `data:` lines), run that text through the same byte guard the fetch hook uses
 * (`createWireGuard`, via guarded-text-pump.ts), parse the guarded text again with
 * `eventsource-parser`, and dispatch the resulting events to the page. Adapters keep
 * events one for one (DESIGN.md §3.6), so the page receives the same events with only
 * their text changed. Rebuilding on fetch instead would mean re-implementing
 * reconnection, `Last-Event-ID` and credentials, and would decide before knowing the
 * stream: a worse trade.
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
 * `text/event-stream` (EventSource accepts nothing else) and that event's SSE text as the
 * head: recognised → guarded; otherwise the stream is left native for good (the event
 * and all later ones are never touched). The end of the HTTP response reaches the page
 * as an `error` event (the browser reconnects or gives up): it ends the guard's stream,
 * what the guard held is decided and delivered, and only then does the page get the
 * error event. The next event is decided afresh, as a new response.
 *
 * Failures: an exception in the decision passes the stream through natively; a guard
 * that cannot be built or fails fails closed: the EventSource is closed (readyState
 * CLOSED) and the page gets an `error` event, like a fatal network error; no raw event
 * after that point reaches the page. A block ends the page's view with the provider's
 * ending; later native events are dropped.
 *
 * No extension APIs here: this code runs in the page's own world.
 */

import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { WireProbe } from '../core/wire/wire-event.ts';
import { newFetchHookStats, type FetchHookOptions } from './fetch-hook.ts';
import { GuardedTextPump } from './guarded-text-pump.ts';
import {
  apply,
  call,
  eventType,
  getOwnPropertyDescriptor,
  MessageOf,
  pristine,
  weakMap,
  weakSet,
} from './intrinsics.ts';
import { replaceConstructor, replaceMethod } from './native-patch.ts';

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

/** Event types EventSource fires that are not stream events. */
const CONTROL_EVENTS = new Set(['open', 'error']);

type Phase = 'undecided' | 'native' | 'guarded' | 'finished' | 'failed';

interface SourceState {
  url: string;
  phase: Phase;
  /** Event types the hook's listener is registered for. */
  intercepted: Set<string>;
  pump: GuardedTextPump | undefined;
  /** The last event id written into the guard's input. */
  lastIdIn: string;
}

/** One native event as the SSE text it was parsed from. */
export function sseTextOf(type: string, data: string, id: string, lastId: string): string {
  let text = type === 'message' ? '' : `event: ${type}\n`;
  if (id !== lastId) text += `id: ${id}\n`;
  // EventSource splits data on LF (CR and CRLF became LF): one `data:` line per line.
  for (const line of data.split('\n')) text += `data: ${line}\n`;
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
  /** Guards being ended by a dropped connection (their error event is held back). */
  const flushing = weakSet<GuardedTextPump>();
  const eventTargetProto = target.EventTarget.prototype;
  const nativeAdd = eventTargetProto.addEventListener;
  const dispatch = eventTargetProto.dispatchEvent;
  const stopImmediate = Event.prototype.stopImmediatePropagation;
  const sourceProto = target.EventSource.prototype;
  const nativeClose = sourceProto.close;
  const readyStateGetter = getOwnPropertyDescriptor(sourceProto, 'readyState')?.get;
  const urlGetter = getOwnPropertyDescriptor(sourceProto, 'url')?.get;
  const readyStateOf = (source: EventSource): number =>
    readyStateGetter ? call<number>(readyStateGetter, source) : 0;
  const errorEvent = () => new Event('error');

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
    state.phase = 'failed';
    state.pump?.cancel();
    state.pump = undefined;
    call(nativeClose, source);
    fire(source, errorEvent());
  };

  const startGuard = (
    source: EventSource,
    state: SourceState,
    probe: WireProbe,
    origin: string,
  ): void => {
    const adapter = detectAdapter(probe);
    if (!adapter) {
      stats.unrecognised++;
      state.phase = 'native';
      return;
    }
    state.phase = 'guarded';
    state.lastIdIn = '';
    stats.wireGuarded++;
    let lastIdOut = '';
    let pump: GuardedTextPump | undefined;
    const isFlushing = () => pump !== undefined && flushing.has(pump);
    const parser = createParser({
      onEvent: (message: EventSourceMessage) => {
        if (message.id !== undefined) lastIdOut = message.id;
        // The page closed the stream: the browser would deliver nothing more. (Not while
        // flushing at a dropped connection: those events came before the error.)
        if (readyStateOf(source) === CLOSED && !isFlushing()) return;
        fire(
          source,
          new MessageEvent(message.event ?? 'message', {
            __proto__: null,
            data: message.data,
            lastEventId: lastIdOut,
            origin,
          } as MessageEventInit),
        );
      },
    });
    try {
      pump = new GuardedTextPump(createWireGuard(adapter, probe), {
        text: (chunk) => {
          if (state.phase !== 'failed') parser.feed(chunk);
        },
        end: () => {
          parser.reset({ consume: true });
          // The held-back error event follows the last events of the dropped stream.
          if (isFlushing()) fire(source, errorEvent());
          // Ended by the guard itself (a block), not by a reconnection: drop the rest.
          if (state.pump === pump && state.phase === 'guarded') state.phase = 'finished';
        },
        fail: () => {
          if (isFlushing()) {
            stats.guardFailures++;
            fire(source, errorEvent());
          }
          if (state.pump === pump) failClosed(source, state);
        },
      });
    } catch {
      failClosed(source, state);
      return;
    }
    state.pump = pump;
  };

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
        // The decision runs with the built-ins of document_start (intrinsics.ts).
        pristine(() => {
          const head = sseTextOf(type, data, lastEventId, '');
          const probe = { url: state.url, method: 'GET', contentType: 'text/event-stream', head };
          startGuard(source, state, probe, read('origin'));
        });
      }
      // Not recognised: this event and every later one are the browser's own.
      if (phaseOf(state) === 'native') return;
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
   * A dropped connection (the browser reconnects, or gives up): the guard's stream ends
   * here. The guard may still hold the last events (a rule could still match until the
   * text ends), so the error event is held back and fired after them: a page that closes
   * the EventSource in `onerror` still gets the whole answer first.
   */
  const onError = (state: SourceState, event: Event): void => {
    if (synthetic.has(event) || state.phase !== 'guarded' || !state.pump) return;
    call(stopImmediate, event);
    const pump = state.pump;
    flushing.add(pump);
    state.pump = undefined;
    state.phase = 'undecided';
    pump.close();
  };

  const intercept = (source: EventSource, state: SourceState, type: string): void => {
    if (CONTROL_EVENTS.has(type) || state.intercepted.has(type)) return;
    state.intercepted.add(type);
    call(nativeAdd, source, type, (event: Event) => onStreamEvent(source, state, event), true);
  };

  replaceConstructor<typeof EventSource>(target, 'EventSource', realm, (source) => {
    const state: SourceState = {
      url: urlGetter ? call<string>(urlGetter, source) : '',
      phase: 'undecided',
      intercepted: new Set(),
      pump: undefined,
      lastIdIn: '',
    };
    states.set(source, state);
    intercept(source, state, 'message');
    call(nativeAdd, source, 'error', (event: Event) => onError(state, event), true);
  });
  INSTALLED.add(target.EventSource);

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
