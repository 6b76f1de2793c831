/**
 * The `XMLHttpRequest` hook of the MAIN world. DeepSeek (SSE read from `responseText` on
 * `progress`), Gemini web (length-prefixed frames read on readyState 3) and XHR-based
 * EventSource polyfills (LibreChat's sse.js) read answers this way (WIRE-FORMATS.md §0.1,
 * §3.6, §4.4).
 *
 * Design: the page keeps a real XMLHttpRequest (instanceof, every method, upload, timeouts,
 * credentials are the browser's own). The constructor is wrapped only to register this
 * hook's capturing listener on each instance before any page code can register one, so it
 * runs first for every event. The response getters (`readyState`, `responseText`,
 * `response`, `status`, `statusText`, `responseType`, `getResponseHeader`,
 * `getAllResponseHeaders`) are patched on the prototype, not defined on instances, so an
 * instance has no own properties a page could notice; for an instance the hook is not
 * guarding they answer the native values.
 *
 * Which responses are guarded: the same decision as the fetch hook (fetch-hook.ts): URL,
 * method, content type and the first bytes through `detectAdapter`. At HEADERS_RECEIVED:
 * - an adapter claims the URL already → guarded from the first byte;
 * - the content type is not one an adapter could want → native (nothing held, ever);
 * - otherwise the body's head is peeked: its events are held back (the page sees
 *   readyState 2 and no text) until an adapter recognises the head (guarded) or the head is
 *   decisive / 1 KB / the body ended (native: the held events are re-dispatched, in order,
 *   and from then on the page sees the native object).
 *
 * While guarded, every native body event is stopped, the new `responseText` suffix is fed
 * to the byte guard (guarded-text-pump.ts), and after each piece of guarded text the hook
 * fires `readystatechange` (readyState 3) then `progress`, as the browser does per chunk;
 * at the end `progress`, `readystatechange` (4), `load`, `loadend`. `responseText` only
 * ever shows released text, so held text is never visible. Re-dispatched events have
 * `isTrusted === false` (the one visible difference; no chat app checks it).
 *
 * Failures: a native network error, timeout or `abort()` (status 0 at readyState 4) hands
 * the instance back to the browser: the page sees the native events and values. A guard
 * that cannot be built or fails mid-stream fails closed: the network request is aborted,
 * the page sees status 0, empty text and `readystatechange` (4), `error`, `loadend`, like
 * a network error. A block ends the page's view with the provider's ending and aborts the
 * network request. An exception in the decision logic passes the response through natively.
 *
 * Not guarded (native): synchronous requests, and responseType `arraybuffer`, `blob`,
 * `document` (no adapter reads those; every chat site reads text). `json` is guarded: the
 * native request runs as `text` and the hook parses the (guarded) text at the end, as the
 * browser would (null until DONE, null when it is not JSON).
 *
 * No extension APIs here: this code runs in the page's own world.
 */

import type { WireProbe, WireRecogniser } from '../core/wire/wire-event.ts';
import { newFetchHookStats, type FetchHookOptions } from './fetch-hook.ts';
import { GuardedTextPump } from './guarded-text-pump.ts';
import {
  assign,
  call,
  create,
  Encoder,
  eventType,
  getOwnPropertyDescriptor,
  jsonParse,
  NativeDomException,
  NativeTextEncoder,
  NativeTypeError,
  NativeUrl,
  pristine,
  UrlOf,
  weakMap,
  weakSet,
} from './intrinsics.ts';
import { replaceAccessor, replaceConstructor, replaceMethod } from './native-patch.ts';
import {
  HEAD_BYTES,
  headIsDecisive,
  isCandidateContentType,
  normaliseContentType,
} from './response-peek.ts';

export type XhrHookOptions = Pick<
  FetchHookOptions,
  'detectAdapter' | 'createWireGuard' | 'stats' | 'reportFailure'
>;

export interface XhrHookTarget {
  XMLHttpRequest: typeof XMLHttpRequest;
  ProgressEvent: typeof ProgressEvent;
  Event: typeof Event;
  EventTarget: typeof EventTarget;
  Function: FunctionConstructor;
  location: { href: string };
}

const OPENED = 1;
const HEADERS_RECEIVED = 2;
const LOADING = 3;
const DONE = 4;

/** Events the hook may hold or replace; `loadstart` and upload events are never touched. */
const WATCHED_EVENTS = [
  'readystatechange',
  'progress',
  'load',
  'loadend',
  'error',
  'abort',
  'timeout',
] as const;

/**
 * - idle: not yet decided (before HEADERS_RECEIVED);
 * - native: the browser's own behaviour, untouched;
 * - peeking: head not yet decisive, body events held;
 * - guarded: the guard's text is what the page sees;
 * - finished: the guard released everything (end or block), the page saw DONE;
 * - failed: the guard failed, the page saw a network error.
 */
type Phase = 'idle' | 'native' | 'peeking' | 'guarded' | 'finished' | 'failed';

interface HeadSnapshot {
  status: number;
  statusText: string;
  /** `getAllResponseHeaders()` less content-length. */
  allHeaders: string;
  /** lower-cased name → value, less content-length. */
  headers: Record<string, string>;
}

interface XhrState {
  method: string;
  url: string;
  async: boolean;
  /** The request's method or URL could not be read at `open()`: no decision is possible. */
  broken: boolean;
  /** The page set responseType `json`; the native request runs as `text`. */
  wantsJson: boolean;
  phase: Phase;
  /** readyState the page sees while the phase shadows the native one. */
  readyState: number;
  /** Characters of the native responseText already peeked at or fed to the guard. */
  consumed: number;
  /** Guarded text released so far. */
  text: string;
  /** UTF-8 length of `text` (ProgressEvent.loaded). */
  bytes: number;
  /** Native events held while peeking. */
  held: Event[];
  pump: GuardedTextPump | undefined;
  snapshot: HeadSnapshot | undefined;
  /** The parsed JSON `response`, once computed (the browser returns the same object). */
  json: { value: unknown } | undefined;
}

const INSTALLED = weakSet<object>();

function newState(): XhrState {
  return {
    method: 'GET',
    url: '',
    async: true,
    broken: false,
    wantsJson: false,
    phase: 'idle',
    readyState: 0,
    consumed: 0,
    text: '',
    bytes: 0,
    held: [],
    pump: undefined,
    snapshot: undefined,
    json: undefined,
  };
}

/** Forgets the previous request of a reused instance (`open()` again). */
function resetState(state: XhrState): void {
  state.pump?.cancel();
  assign(state, {
    broken: false,
    phase: 'idle',
    readyState: 0,
    consumed: 0,
    text: '',
    bytes: 0,
    held: [],
    pump: undefined,
    snapshot: undefined,
    json: undefined,
  } satisfies Partial<XhrState>);
}

const phaseOf = (state: XhrState): Phase => state.phase;

const encoder = new NativeTextEncoder();
const utf8Length = (text: string): number =>
  call<Uint8Array>(Encoder.encode, encoder, text).byteLength;

/** lower-cased name → value, in a table without a prototype (nothing inherited counts). */
function parseHeaders(all: string): Record<string, string> {
  const headers = create(null) as Record<string, string>;
  for (const line of all.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function withoutContentLength(all: string): string {
  return all
    .split(/(?<=\r?\n)/)
    .filter((line) => !/^content-length\s*:/i.test(line))
    .join('');
}

/** `JSON.parse` as XHR's `json` response type does it: BOM dropped, failure → null. */
function parseJsonResponse(text: string): unknown {
  try {
    return jsonParse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown;
  } catch {
    return null;
  }
}

/**
 * Patches `target.XMLHttpRequest` (constructor and prototype getters). Installing twice on
 * the same target is a no-op.
 */
export function installXhrHook(target: XhrHookTarget, options: XhrHookOptions = {}): void {
  const { detectAdapter, createWireGuard, reportFailure } = options;
  const stats = options.stats ?? newFetchHookStats();
  if (!detectAdapter || !createWireGuard) return;
  if (INSTALLED.has(target.XMLHttpRequest)) return;

  const realm = target;
  // Captured now (document_start): the page may replace any of them later.
  const { ProgressEvent, Event } = target;
  const proto = target.XMLHttpRequest.prototype;
  const states = weakMap<object, XhrState>();
  const synthetic = weakSet<Event>();
  const addListener = target.EventTarget.prototype.addEventListener;
  const dispatch = target.EventTarget.prototype.dispatchEvent;
  const stopImmediate = Event.prototype.stopImmediatePropagation;

  // The native members, captured before they are replaced.
  const getterOf = (key: string): ((this: unknown) => unknown) => {
    const get = getOwnPropertyDescriptor(proto, key)?.get;
    if (!get) throw new NativeTypeError(`XMLHttpRequest.prototype.${key} is not an accessor`);
    return get;
  };
  const nativeReadyState = getterOf('readyState');
  const nativeStatus = getterOf('status');
  const nativeStatusText = getterOf('statusText');
  const nativeResponseText = getterOf('responseText');
  const nativeResponseType = getterOf('responseType');
  const nativeResponseUrl = getterOf('responseURL');
  const nativeGetHeader = proto.getResponseHeader;
  const nativeGetAllHeaders = proto.getAllResponseHeaders;
  const nativeAbort = proto.abort;

  const fire = (xhr: XMLHttpRequest, event: Event): void => {
    synthetic.add(event);
    call(dispatch, xhr, event);
  };
  const progress = (type: string, loaded: number): ProgressEvent =>
    new ProgressEvent(type, {
      __proto__: null,
      lengthComputable: false,
      loaded,
      total: 0,
    } as ProgressEventInit);
  const plainEvent = (type: string) => new Event(type);

  const copyOf = (event: Event): Event => {
    if (!(event instanceof ProgressEvent)) return plainEvent(eventType(event));
    const { lengthComputable, loaded, total } = event;
    return new ProgressEvent(eventType(event), {
      __proto__: null,
      lengthComputable,
      loaded,
      total,
    } as ProgressEventInit);
  };

  /** True when the page sees the hook's values rather than the native ones. */
  const shadows = (state: XhrState | undefined): state is XhrState =>
    state !== undefined && state.phase !== 'idle' && state.phase !== 'native';
  /** True when headers and status come from the snapshot (less content-length). */
  const rewritesHead = (state: XhrState | undefined): state is XhrState =>
    state !== undefined &&
    (state.phase === 'guarded' || state.phase === 'finished' || state.phase === 'failed');

  // --- Guarding --------------------------------------------------------------------------

  const takeSnapshot = (xhr: XMLHttpRequest): HeadSnapshot => {
    const allHeaders = withoutContentLength(call<string>(nativeGetAllHeaders, xhr));
    return {
      status: call<number>(nativeStatus, xhr),
      statusText: call<string>(nativeStatusText, xhr),
      allHeaders,
      headers: parseHeaders(allHeaders),
    };
  };

  /** Stops the network request without letting its events reach the page. */
  const abortQuietly = (xhr: XMLHttpRequest): void => {
    if (call<number>(nativeReadyState, xhr) === DONE) return;
    try {
      call(nativeAbort, xhr);
    } catch {
      // Nothing to stop.
    }
  };

  const feed = (xhr: XMLHttpRequest, state: XhrState): void => {
    const text = call<string>(nativeResponseText, xhr);
    if (text.length <= state.consumed) return;
    state.pump?.write(text.slice(state.consumed));
    state.consumed = text.length;
  };

  /**
   * Fail closed: the page sees a network error and none of the answer. `hookFailed` when
   * the hook's own step threw (its decision, or feeding the guard): the person is told
   * here; a guard that failed in the ISOLATED world was reported there.
   */
  const failClosed = (xhr: XMLHttpRequest, state: XhrState, hookFailed = false): void => {
    if (state.phase === 'failed' || state.phase === 'finished') return;
    if (hookFailed) {
      stats.decisionErrors++;
      reportFailure?.('xhr', 'decision');
    } else {
      stats.guardFailures++;
    }
    state.phase = 'failed';
    // What a network error shows: status 0, no headers.
    state.snapshot = { status: 0, statusText: '', allHeaders: '', headers: create(null) };
    state.text = '';
    state.bytes = 0;
    state.pump?.cancel();
    abortQuietly(xhr);
    state.readyState = DONE;
    fire(xhr, plainEvent('readystatechange'));
    fire(xhr, progress('error', 0));
    fire(xhr, progress('loadend', 0));
  };

  const startGuard = (
    xhr: XMLHttpRequest,
    state: XhrState,
    adapter: WireRecogniser,
    probe: WireProbe,
  ): void => {
    state.phase = 'guarded';
    state.held = [];
    state.snapshot = takeSnapshot(xhr);
    state.readyState = Math.min(call<number>(nativeReadyState, xhr), LOADING);
    stats.wireGuarded++;
    let pump: GuardedTextPump | undefined;
    const isCurrent = () => pump !== undefined && state.pump === pump;
    try {
      pump = new GuardedTextPump(createWireGuard(adapter, probe), {
        text: (chunk) => {
          if (!isCurrent() || state.phase !== 'guarded') return;
          state.text += chunk;
          state.bytes += utf8Length(chunk);
          state.readyState = LOADING;
          fire(xhr, plainEvent('readystatechange'));
          fire(xhr, progress('progress', state.bytes));
        },
        end: () => {
          if (!isCurrent() || state.phase !== 'guarded') return;
          state.phase = 'finished';
          // A block ends the answer before the network does: stop the upstream too.
          abortQuietly(xhr);
          fire(xhr, progress('progress', state.bytes));
          state.readyState = DONE;
          fire(xhr, plainEvent('readystatechange'));
          fire(xhr, progress('load', state.bytes));
          fire(xhr, progress('loadend', state.bytes));
        },
        fail: () => {
          if (isCurrent()) failClosed(xhr, state);
        },
      });
    } catch {
      // The guard could not be built: fail closed, not one raw byte reaches the page.
      failClosed(xhr, state);
      return;
    }
    state.pump = pump;
  };

  /** Hands the instance back to the browser; held events are re-dispatched in order. */
  const goNative = (xhr: XMLHttpRequest, state: XhrState): void => {
    const held = state.held;
    state.pump?.cancel();
    resetState(state);
    state.phase = 'native';
    // Copies, not the held objects: some EventTarget implementations (Node's) keep the
    // stop flag of a dispatched event, and a copy is as untrusted as a re-dispatch anyway.
    for (let i = 0; i < held.length; i++) call(dispatch, xhr, copyOf(held[i]!));
  };

  const probeFor = (xhr: XMLHttpRequest, state: XhrState) => {
    const contentType = normaliseContentType(
      call<string | null>(nativeGetHeader, xhr, 'content-type'),
    );
    const url = call<string>(nativeResponseUrl, xhr) || state.url;
    return (head: string): WireProbe => ({ url, method: state.method, contentType, head });
  };

  /** At HEADERS_RECEIVED (or the first later event): guard, peek, or leave native. */
  const decideAtHeaders = (xhr: XMLHttpRequest, state: XhrState): void => {
    if (state.broken) throw new NativeTypeError('request facts');
    const type = call<string>(nativeResponseType, xhr);
    if (!state.async || (type !== '' && type !== 'text')) {
      state.phase = 'native';
      return;
    }
    const probeWith = probeFor(xhr, state);
    const bare = probeWith('');
    const adapter = detectAdapter(bare);
    if (adapter) {
      startGuard(xhr, state, adapter, bare);
      return;
    }
    if (!isCandidateContentType(bare.contentType)) {
      state.phase = 'native';
      return;
    }
    state.phase = 'peeking';
    state.snapshot = takeSnapshot(xhr);
    state.readyState = HEADERS_RECEIVED;
  };

  /** A body event while peeking: returns true when the event must be stopped. */
  const peek = (xhr: XMLHttpRequest, state: XhrState, event: Event): boolean => {
    const nativeState = call<number>(nativeReadyState, xhr);
    if (nativeState === DONE && call<number>(nativeStatus, xhr) === 0) {
      goNative(xhr, state);
      return false;
    }
    const probeWith = probeFor(xhr, state);
    const text = call<string>(nativeResponseText, xhr);
    // At most HEAD_BYTES characters: at least that many bytes once the head is full.
    const head = text.slice(0, HEAD_BYTES);
    const probe = probeWith(head);
    const adapter = detectAdapter(probe);
    if (adapter) {
      startGuard(xhr, state, adapter, probe);
      if (state.phase === 'guarded') {
        feed(xhr, state);
        if (nativeState === DONE) state.pump?.close();
      }
      return true;
    }
    const full = utf8Length(head) >= HEAD_BYTES;
    if (nativeState === DONE || full || headIsDecisive(probe.contentType, head)) {
      stats.unrecognised++;
      goNative(xhr, state);
      return false;
    }
    state.held[state.held.length] = event;
    return true;
  };

  /** A native event while guarded: always stopped; feeds the guard. */
  const onGuardedEvent = (xhr: XMLHttpRequest, state: XhrState, event: Event): boolean => {
    const nativeState = call<number>(nativeReadyState, xhr);
    if (nativeState === DONE && call<number>(nativeStatus, xhr) === 0) {
      // Network error, timeout or the page's abort(): the page sees the browser's own.
      goNative(xhr, state);
      return false;
    }
    const type = eventType(event);
    if (type === 'readystatechange' || type === 'progress') {
      if (nativeState >= LOADING) feed(xhr, state);
      if (nativeState === DONE) state.pump?.close();
    }
    return true;
  };

  /** Idle (at HEADERS_RECEIVED or later) or peeking: true when `event` must be stopped. */
  const decide = (xhr: XMLHttpRequest, state: XhrState, event: Event, type: string): boolean => {
    if (state.phase === 'idle') {
      decideAtHeaders(xhr, state);
      // (re-read: decideAtHeaders moved the phase on)
      if (type === 'readystatechange') return false;
      if (phaseOf(state) === 'guarded') return onGuardedEvent(xhr, state, event);
    }
    return phaseOf(state) === 'peeking' && peek(xhr, state, event);
  };

  const onNativeEvent = (xhr: XMLHttpRequest, state: XhrState, event: Event): void => {
    if (synthetic.has(event)) return;
    let stop = false;
    try {
      const type = eventType(event);
      const nativeState = call<number>(nativeReadyState, xhr);
      if (type === 'readystatechange' && nativeState === OPENED && state.phase !== 'idle') {
        // open() again: a new request on the same object.
        resetState(state);
        return;
      }
      switch (state.phase) {
        case 'native':
          return;
        case 'idle':
        case 'peeking':
          if (nativeState < HEADERS_RECEIVED) return;
          // The decision runs with the built-ins of document_start (intrinsics.ts).
          stop = pristine(() => decide(xhr, state, event, type));
          break;
        case 'guarded':
          stop = onGuardedEvent(xhr, state, event);
          break;
        case 'finished':
        case 'failed':
          stop = true;
          break;
      }
    } catch {
      // The hook's own step threw (deciding, or feeding the guard): fail closed.
      failClosed(xhr, state, true);
      stop = true;
    }
    // An event that arrives after the hook ended the page's view never reaches the page.
    if (state.phase === 'finished' || state.phase === 'failed') stop = true;
    if (stop) call(stopImmediate, event);
  };

  // --- Patches ---------------------------------------------------------------------------

  replaceConstructor<typeof XMLHttpRequest>(target, 'XMLHttpRequest', realm, (xhr) => {
    const state = newState();
    states.set(xhr, state);
    const listener = (event: Event) => onNativeEvent(xhr, state, event);
    for (const type of WATCHED_EVENTS) call(addListener, xhr, type, listener, true);
  });
  INSTALLED.add(target.XMLHttpRequest);

  replaceMethod(proto, 'open', realm, (nativeOpen) => {
    return {
      open(this: XMLHttpRequest, ...args: unknown[]): void {
        call(nativeOpen, this, ...args);
        const state = states.get(this);
        if (!state) return;
        resetState(state);
        try {
          pristine(() => {
            state.method = `${args[0] as string}`.toUpperCase();
            const url = new NativeUrl(`${args[1] as string}`, target.location.href);
            state.url = call<string>(UrlOf.href, url);
            state.async = args.length < 3 || !!args[2];
          });
        } catch {
          // Decided when the answer comes: fail closed then (decideAtHeaders).
          state.broken = true;
        }
      },
    }.open as never;
  });

  replaceAccessor(
    proto,
    'readyState',
    realm,
    (n) =>
      function (this: unknown) {
        const state = states.get(this as object);
        return shadows(state) ? state.readyState : call(n.get, this);
      },
  );

  const responseTextOf = (self: unknown, state: XhrState | undefined): unknown => {
    if (state?.wantsJson) {
      throw new NativeDomException(
        "The value is only accessible if the object's 'responseType' is '' or 'text' (was 'json').",
        'InvalidStateError',
      );
    }
    if (!shadows(state)) return call(nativeResponseText, self as object);
    return state.phase === 'guarded' || state.phase === 'finished' ? state.text : '';
  };

  replaceAccessor(
    proto,
    'responseText',
    realm,
    () =>
      function (this: unknown) {
        return responseTextOf(this, states.get(this as object));
      },
  );

  replaceAccessor(
    proto,
    'response',
    realm,
    (n) =>
      function (this: unknown) {
        const state = states.get(this as object);
        if (state === undefined) return call(n.get, this);
        if (state.wantsJson) {
          const xhr = this as XMLHttpRequest;
          let text: string | undefined;
          if (shadows(state)) {
            if (state.phase === 'finished') text = state.text;
          } else if (
            call<number>(nativeReadyState, xhr) === DONE &&
            call<number>(nativeStatus, xhr) !== 0
          ) {
            text = call<string>(nativeResponseText, xhr);
          }
          if (text === undefined) return null;
          state.json ??= { value: parseJsonResponse(text) };
          return state.json.value;
        }
        if (!shadows(state)) return call(n.get, this);
        return responseTextOf(this, state);
      },
  );

  replaceAccessor(
    proto,
    'responseType',
    realm,
    (n) =>
      function (this: unknown) {
        return states.get(this as object)?.wantsJson ? 'json' : call(n.get, this);
      },
    (n) =>
      function (this: unknown, value: unknown) {
        // The native setter validates first (state, sync requests) and throws as it would.
        call(n.set!, this, value);
        const state = states.get(this as object);
        if (!state) return;
        state.wantsJson = call(n.get, this) === 'json';
        // Read the body as text so it can be guarded while it streams (see top comment).
        if (state.wantsJson) call(n.set!, this, 'text');
      },
  );

  replaceAccessor(
    proto,
    'status',
    realm,
    (n) =>
      function (this: unknown) {
        const state = states.get(this as object);
        if (!rewritesHead(state) || !state.snapshot) return call(n.get, this);
        return state.snapshot.status;
      },
  );

  replaceAccessor(
    proto,
    'statusText',
    realm,
    (n) =>
      function (this: unknown) {
        const state = states.get(this as object);
        if (!rewritesHead(state) || !state.snapshot) return call(n.get, this);
        return state.snapshot.statusText;
      },
  );

  replaceMethod(proto, 'getResponseHeader', realm, (nativeMethod) => {
    return {
      getResponseHeader(this: XMLHttpRequest, ...args: unknown[]): string | null {
        const state = states.get(this);
        if (!rewritesHead(state) || !state.snapshot) return call(nativeMethod, this, ...args);
        // Argument checks (missing name) stay the browser's.
        call(nativeMethod, this, ...args);
        return state.snapshot.headers[`${args[0] as string}`.toLowerCase()] ?? null;
      },
    }.getResponseHeader as never;
  });

  replaceMethod(proto, 'getAllResponseHeaders', realm, (nativeMethod) => {
    return {
      getAllResponseHeaders(this: XMLHttpRequest): string {
        const state = states.get(this);
        if (!rewritesHead(state) || !state.snapshot) return call(nativeMethod, this);
        return state.snapshot.allHeaders;
      },
    }.getAllResponseHeaders as never;
  });
}
