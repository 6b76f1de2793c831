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
 * network request. An exception in the hook's own steps fails closed the same way, and is
 * reported (`reportFailure`: the person sees the failure notice).
 *
 * Every reading path (issue 18 §3):
 * - responseType '' and `text`: progressive, as above.
 * - `json`: the native request runs as `text` and the hook parses the (guarded) text at
 *   the end, as the browser would (null until DONE, null when it is not JSON).
 * - `arraybuffer` and `blob` (the whatwg-fetch polyfill reads every answer as a Blob; axios
 *   when asked): the page can read nothing before DONE, so a candidate's body (claimed by
 *   its URL, or of a content type an adapter could want) is decided whole at DONE (a Blob
 *   read asynchronously), its DONE events held meanwhile; a chat answer is guarded as text
 *   and handed over as an ArrayBuffer or a Blob (of the native Blob's type) of the guarded
 *   bytes; anything else gets its held events back and the browser's own object.
 * - `document`: HTML or XML, never a chat answer: native.
 * - Synchronous requests: the page reads the answer as soon as `send()` returns, before
 *   the guard (ISOLATED world, asynchronous) could answer. So a synchronous request whose
 *   answer is recognised is refused: `send()` throws a NetworkError, the page sees
 *   status 0 and no text, no event fires, and the person sees the failure notice. (A
 *   synchronous chat *request* is refused before it leaves, by xhr-outgoing-hook.ts.)
 *   Any other synchronous request is the browser's own.
 *
 * No extension APIs here: this code runs in the page's own world.
 */

import type { WireProbe, WireRecogniser } from '../core/wire/wire-event.ts';
import { newFetchHookStats, type FetchHookOptions } from './fetch-hook.ts';
import { isChatRequestBody } from './chat-request-probe.ts';
import { GuardedTextPump } from './guarded-text-pump.ts';
import {
  assign,
  BlobOf,
  call,
  create,
  decodeText,
  Encoder,
  eventType,
  getOwnPropertyDescriptor,
  jsonParse,
  KEEP_BOM,
  NativeBlob,
  NativeDomException,
  NativePromise,
  NativeTextDecoder,
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
> & {
  /**
   * Issue 18 §1: whether a request sent with `send(body)` looks like a chat request
   * (chat-request-probe.ts `isChatRequestBody`, the default). Its answer's probe then
   * says so (`WireProbe.chatRequest`), so the generic adapter guards it, or reports it
   * when it cannot be decoded, even when no adapter claims it: as the fetch hook does.
   */
  chatRequestBody?: (
    request: { url: string; method: string; contentType: string },
    body: unknown,
  ) => boolean;
  /**
   * Runs the decision about a synchronous request, which cannot wait for anything
   * (main-world.ts: page-site-routes.ts `decideNow`); as is by default.
   */
  decideNow?<T>(decide: () => T): T;
};

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
 * - awaiting: responseType `arraybuffer` or `blob`, a candidate: the browser's own until
 *   DONE (the page cannot read the body before);
 * - reading: such a body is complete and being decided, its DONE events held;
 * - guarded: the guard's text is what the page sees;
 * - finished: the guard released everything (end or block), the page saw DONE;
 * - failed: the guard failed (or a synchronous chat request was refused), the page saw a
 *   network error.
 */
type Phase =
  'idle' | 'native' | 'peeking' | 'awaiting' | 'reading' | 'guarded' | 'finished' | 'failed';

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
  /** The request's `content-type` header, as the page set it (for the chat-request verdict). */
  contentType: string;
  /** Issue 18 §1: the body sent looked like a chat request (`chatRequestBody`). */
  chatRequest: boolean;
  /** The page set responseType `json`; the native request runs as `text`. */
  wantsJson: boolean;
  /** responseType `arraybuffer` or `blob`, when such a body is guarded (else ''). */
  binary: string;
  /** The native Blob's type, for the guarded Blob. */
  blobType: string;
  /** The guarded ArrayBuffer or Blob, once made (the browser returns the same object). */
  typed: { value: unknown } | undefined;
  /** A synchronous chat request was refused: `send()` throws a NetworkError. */
  refused: boolean;
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
    contentType: '',
    chatRequest: false,
    wantsJson: false,
    binary: '',
    blobType: '',
    typed: undefined,
    refused: false,
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
    binary: '',
    typed: undefined,
    refused: false,
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
  const chatRequestBody = options.chatRequestBody ?? isChatRequestBody;
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
  const nativeResponse = getterOf('response');
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
    state !== undefined &&
    state.phase !== 'idle' &&
    state.phase !== 'native' &&
    state.phase !== 'awaiting';
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
    // A synchronous request fires no event on a network error: `send()` throws.
    if (!state.async) {
      state.refused = true;
      return;
    }
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
    const chat = state.chatRequest ? { chatRequest: true } : {};
    return (head: string): WireProbe => ({ url, method: state.method, contentType, head, ...chat });
  };

  /**
   * At HEADERS_RECEIVED (or the first later event; DONE for a synchronous request): guard,
   * peek, wait for a binary body, refuse, or leave native.
   */
  const decideAtHeaders = (xhr: XMLHttpRequest, state: XhrState): void => {
    if (state.broken) throw new NativeTypeError('request facts');
    const type = call<string>(nativeResponseType, xhr);
    const text = type === '' || type === 'text';
    const probeWith = probeFor(xhr, state);
    if (!state.async) {
      // The whole answer is here, and the page reads it as soon as `send()` returns: a
      // guard in the ISOLATED world cannot answer in time. A chat answer is refused (the
      // page sees a network error, the person a notice); anything else is the browser's.
      const head = text ? call<string>(nativeResponseText, xhr).slice(0, HEAD_BYTES) : '';
      const now = options.decideNow ?? (<T>(decide: () => T) => decide());
      if (now(() => detectAdapter(probeWith(head))) === undefined) {
        state.phase = 'native';
        return;
      }
      reportFailure?.('xhr', 'synchronous');
      failClosed(xhr, state);
      return;
    }
    const bare = probeWith('');
    const adapter = detectAdapter(bare);
    const binary = type === 'arraybuffer' || type === 'blob';
    if (!text && !binary) {
      // `document`: HTML or XML, never a chat answer.
      state.phase = 'native';
      return;
    }
    // As the fetch hook: a body an adapter could want is peeked at before the generic
    // adapter takes a chat request's answer, so a specific adapter can claim it by its head.
    const genericOnly = adapter?.format === 'generic' && isCandidateContentType(bare.contentType);
    if (adapter && text && !genericOnly) {
      startGuard(xhr, state, adapter, bare);
      return;
    }
    if (!adapter && !isCandidateContentType(bare.contentType)) {
      state.phase = 'native';
      return;
    }
    state.phase = binary ? 'awaiting' : 'peeking';
    state.binary = binary ? type : '';
    state.snapshot = takeSnapshot(xhr);
    state.readyState = HEADERS_RECEIVED;
  };

  /**
   * responseType `arraybuffer` or `blob`: the page reads nothing before DONE, so the body
   * is decided whole then. Until DONE the browser's own events pass; at DONE they are
   * held while the body is read (a Blob asynchronously) and decided; a chat answer is
   * then guarded as text and handed over in the page's type.
   */
  const awaitBody = (xhr: XMLHttpRequest, state: XhrState, event: Event): boolean => {
    if (call<number>(nativeReadyState, xhr) !== DONE) return false;
    if (call<number>(nativeStatus, xhr) === 0) {
      goNative(xhr, state);
      return false;
    }
    state.phase = 'reading';
    state.readyState = LOADING;
    state.snapshot = takeSnapshot(xhr);
    state.held[state.held.length] = event;
    const body = call<ArrayBuffer | Blob>(nativeResponse, xhr);
    const blob = state.binary === 'blob';
    if (blob) state.blobType = call<string>(BlobOf.type, body);
    const bytes = blob
      ? call<Promise<ArrayBuffer>>(BlobOf.arrayBuffer, body)
      : NativePromise.resolve(body as ArrayBuffer);
    bytes
      .then((buffer) => {
        // Re-opened or aborted meanwhile: that request is over.
        if (state.phase !== 'reading') return;
        if (call<number>(nativeReadyState, xhr) !== DONE) {
          resetState(state);
          state.phase = 'native';
          return;
        }
        pristine(() => {
          const text = decodeText(new NativeTextDecoder('utf-8', KEEP_BOM), buffer);
          const probe = probeFor(xhr, state)(text.slice(0, HEAD_BYTES));
          const adapter = detectAdapter(probe);
          if (adapter === undefined) {
            stats.unrecognised++;
            goNative(xhr, state);
            return;
          }
          const binary = state.binary;
          startGuard(xhr, state, adapter, probe);
          state.binary = binary;
          state.pump?.write(text);
          state.pump?.close();
        });
      })
      .catch(() => failClosed(xhr, state, true));
    return true;
  };

  /** The guarded body in the page's binary type (made once: the same object every time). */
  const typedResponse = (state: XhrState): unknown => {
    if (state.phase !== 'finished' || state.readyState !== DONE) return null;
    if (state.typed === undefined) {
      const bytes = call<Uint8Array<ArrayBuffer>>(Encoder.encode, encoder, state.text);
      const value =
        state.binary === 'blob'
          ? new NativeBlob([bytes], { __proto__: null, type: state.blobType } as BlobPropertyBag)
          : bytes.buffer;
      state.typed = { value };
    }
    return state.typed.value;
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
      if (phaseOf(state) === 'failed') return true;
      if (phaseOf(state) === 'awaiting') return awaitBody(xhr, state, event);
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
        case 'awaiting':
          stop = pristine(() => awaitBody(xhr, state, event));
          break;
        case 'reading':
          state.held[state.held.length] = event;
          stop = true;
          break;
        case 'guarded':
          // A binary body was read whole: the browser's later events are not the page's.
          stop = state.binary !== '' || onGuardedEvent(xhr, state, event);
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
        state.contentType = '';
        state.chatRequest = false;
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

  // The request's content type, for the chat-request verdict at `send()` (issue 18 §1).
  replaceMethod(proto, 'setRequestHeader', realm, (nativeSetHeader) => {
    return {
      setRequestHeader(this: XMLHttpRequest, ...args: unknown[]): void {
        // The browser validates first (state, names) and throws as it would.
        call(nativeSetHeader, this, ...args);
        const state = states.get(this);
        if (state === undefined) return;
        try {
          pristine(() => {
            if (`${args[0] as string}`.toLowerCase() === 'content-type') {
              state.contentType = `${args[1] as string}`;
            }
          });
        } catch {
          // The header could not be read: decided when the answer comes, closed then.
          state.broken = true;
        }
      },
    }.setRequestHeader as never;
  });

  /**
   * Issue 18 §1: does the body sent look like a chat request? Judged with the built-ins
   * of document_start (the body is the page's object: `isChatRequestBody` reads it only
   * through captured methods). A verdict that throws leaves the request undecidable: its
   * answer fails closed with a notice (decideAtHeaders).
   */
  const judgeRequest = (state: XhrState, body: unknown): void => {
    if (state.broken) return;
    try {
      const request = { url: state.url, method: state.method, contentType: state.contentType };
      state.chatRequest = pristine(() => chatRequestBody(request, body));
    } catch {
      state.broken = true;
    }
  };

  replaceMethod(proto, 'send', realm, (nativeSend) => {
    return {
      send(this: XMLHttpRequest, ...args: unknown[]): void {
        const pending = states.get(this);
        // Judged before the native send: a synchronous request is answered inside it.
        if (pending !== undefined && pending.phase === 'idle') judgeRequest(pending, args[0]);
        call(nativeSend, this, ...args);
        const state = states.get(this);
        if (!state?.refused) return;
        // A synchronous chat request, refused (decideAtHeaders): a network error.
        state.refused = false;
        throw new NativeDomException(
          "Failed to execute 'send' on 'XMLHttpRequest': Chat Stream Guard refused a synchronous chat request.",
          'NetworkError',
        );
      },
    }.send as never;
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
    // A binary responseType: the browser's InvalidStateError.
    if (state?.binary) return call(nativeResponseText, self as object);
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
        if (state.binary) return typedResponse(state);
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
