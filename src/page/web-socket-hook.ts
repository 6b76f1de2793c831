/**
 * The `WebSocket` hook of the MAIN world: incoming messages of a socket a socket format
 * recognises are guarded before the page's `onmessage` / `message` listeners see them.
 * Open WebUI streams its answers as Socket.IO events on a WebSocket (WIRE-FORMATS.md
 * §6.1), Microsoft Copilot as JSON frames (WIRE-FORMATS-2.md §4.2); both run in the
 * shared socket guard (`SocketAnswerGuard`, `socketRecognisers`). ChatGPT's WebSocket
 * hand-off (§1.7, `encoded_item` SSE strings) has no adapter yet: such a socket is
 * guarded only as below.
 *
 * Issue 18 §3, any other socket: a message that is one JSON value is guarded by the
 * generic structural adapter (socket-json-guard.ts, continuity across messages) when it
 * shows a known answer shape (OpenAI-style `choices[].delta` and the other shapes the
 * recognisers read by structure) or when the page sent a chat-shaped message on the
 * socket (`send` is wrapped to judge it: chat-request-probe.ts). Once a socket is
 * guarded that way, its later JSON messages go to the same guard; a text message that is
 * not JSON is no answer frame and passes (it may then overtake held messages). The
 * chat-request verdict throwing makes the socket a chat socket (more is guarded).
 * A socket with no chat sign keeps the browser's own messages.
 *
 * Design: the page keeps the native WebSocket (send, close, protocols are the
 * browser's). The constructor registers the hook's capturing `message` and `close`
 * listeners before page code can register any, so they run first. Until a socket is
 * recognised, each message is offered to `createSocketGuard` (its URL, and the message
 * as the head: a Socket.IO handshake precedes the first chat event) and passes through
 * untouched. Once recognised, every message is stopped (`stopImmediatePropagation`) and
 * handed to the guard (which runs in the ISOLATED world: remote-guard.ts); its output
 * (the same messages, in order, with only their text changed; none while text is held)
 * reaches the page through the socket's sink as new `MessageEvent`s. On `close` the
 * guard releases what it held, then the page gets the close event.
 *
 * Issue 18 §3, binary frames: a binary message whose bytes are UTF-8 text (a Socket.IO
 * packet sent as a binary frame) is decided and guarded as that text, and reaches the
 * page as binary again, in the page's `binaryType`. To read every binary message at
 * once, the native socket always receives ArrayBuffers; `binaryType` is kept per socket
 * for the page (its getter and setter are patched, the native setter still validates),
 * and a binary message the page wants as a Blob is handed over as a new Blob of the same
 * bytes. A binary message that is not UTF-8 carries no text that can be guarded: on a
 * guarded socket or one the page sent a chat request on, it is reported (the
 * "could not be decoded" notice and a `wire-undecodable` audit record, through the
 * generic adapter) and the socket fails closed, never passed silently; on any other
 * socket (images, attachments of a site's other sockets) it passes as it is, and the
 * first such message of the socket is reported (`hook-failed` web-socket
 * `undecodable-passed`: a notice that says it was let through unchecked, and an audit
 * record; src/content/unguarded-reports.ts), since it might still be an answer.
 *
 * Failures: an exception in the hook's own steps, or a guard that fails, fails closed:
 * the socket is closed and no later message reaches the page.
 *
 * Issue 20 §2, the send side: a frame the page sends on a socket a request recogniser
 * claims (Copilot's chat socket) leaves only as the bridge's guarded copy; it is held
 * while the bridge decides, and every later frame of the socket waits behind it, so the
 * order the page sent them in is kept (socket-send-queue.ts).
 *
 * No extension APIs here: this code runs in the page's own world.
 */

import { headShowsKnownShape, recognisers } from '../core/wire/wire-recognisers.ts';
import type { WireProbe } from '../core/wire/wire-event.ts';
import { isChatRequestBody } from './chat-request-probe.ts';
import { newFetchHookStats } from './fetch-hook.ts';
import {
  call,
  decodeText,
  Encoder,
  getOwnPropertyDescriptor,
  jsonParse,
  MessageOf,
  NativeBlob,
  NativeTextDecoder,
  NativeTextEncoder,
  pristine,
  weakMap,
  weakSet,
} from './intrinsics.ts';
import { replaceAccessor, replaceConstructor, replaceMethod } from './native-patch.ts';
import type { PageHookOptions, SocketMessageGuard } from './page-hook-options.ts';
import type { SocketSink } from './remote-guard.ts';
import { HEAD_BYTES } from './response-peek.ts';
import { socketJsonGuard } from './socket-json-guard.ts';
import { type SendQueue, sendInOrder } from './socket-send-queue.ts';

export type WebSocketHookOptions = Pick<
  PageHookOptions,
  'createSocketGuard' | 'createWireGuard' | 'stats' | 'reportFailure' | 'prepareOutgoing'
> & {
  /**
   * Issue 18 §1: whether a message the page sends looks like a chat request
   * (chat-request-probe.ts `isChatRequestBody`, the default): the socket is then a chat
   * socket, whose JSON answers the generic adapter guards and whose undecodable binary
   * messages are reported.
   */
  chatRequestBody?: (
    request: { url: string; method: string; contentType: string },
    body: unknown,
  ) => boolean;
};

export interface WebSocketHookTarget {
  WebSocket: typeof WebSocket;
  MessageEvent: typeof MessageEvent;
  CloseEvent: typeof CloseEvent;
  Event: typeof Event;
  EventTarget: typeof EventTarget;
  Function: FunctionConstructor;
}

/**
 * `closing`: the guarded socket closed and the guard is releasing its last messages;
 * `closed`: it did, and the page got the close event.
 */
type Phase = 'undecided' | 'guarded' | 'closing' | 'failed' | 'closed';

interface SocketState extends SendQueue {
  url: string;
  phase: Phase;
  guard: SocketMessageGuard | undefined;
  /** The origin of the socket's messages (the first one's). */
  origin: string;
  /** The close event's details, kept while the guard releases its last messages. */
  close: { code: number; reason: string; wasClean: boolean } | undefined;
  /** The `binaryType` the page set (the native one is always `arraybuffer`). */
  binaryType: string;
  /** For each message handed to the guard, in order: was it binary? */
  kinds: boolean[];
  /** The next entry of `kinds` to deliver. */
  delivered: number;
  /** Issue 18: the page sent a chat-shaped message on this socket. */
  chat: boolean;
  /** Guarded by the generic adapter (socket-json-guard.ts): only JSON messages go in. */
  generic: boolean;
  /** Withdraws the generic guard's stream (the socket failed: nothing more is guarded). */
  cancelGeneric: (() => void) | undefined;
  /** Issue 18: a binary message that is not UTF-8 passed on this no-chat socket, and was told. */
  passedUndecodable?: true;
}

const INSTALLED = weakSet<object>();
/** UTF-8 that refuses what is not: a binary message is text only when it decodes. */
const STRICT = { __proto__: null, fatal: true, ignoreBOM: true } as TextDecoderOptions;
const encoder = new NativeTextEncoder();
/** What the generic adapter is handed for a binary message that is not UTF-8 (see below). */
const BINARY_MARK = '\u0000';
/** A sink for output no page may see. */
const IGNORED: SocketSink = {
  deliver: () => undefined,
  done: () => undefined,
  fail: () => undefined,
};

/** True when `text` is one JSON object or array (the generic socket guard takes only those). */
function isJsonMessage(text: string): boolean {
  const start = text.search(/\S/);
  const first = start < 0 ? '' : text[start];
  if (first !== '{' && first !== '[') return false;
  try {
    jsonParse(text);
    return true;
  } catch {
    return false;
  }
}

/** The phase, re-read after a call that may have moved it on. */
const phaseOf = (state: SocketState): Phase => state.phase;

export function installWebSocketHook(
  target: WebSocketHookTarget,
  options: WebSocketHookOptions = {},
): void {
  const { createSocketGuard, createWireGuard, reportFailure } = options;
  const chatRequestBody = options.chatRequestBody ?? isChatRequestBody;
  const stats = options.stats ?? newFetchHookStats();
  if (!createSocketGuard) return;
  if (typeof target.WebSocket !== 'function' || INSTALLED.has(target.WebSocket)) return;

  // Captured now (document_start): the page may replace any of them later.
  const { MessageEvent, CloseEvent, Event } = target;
  const addListener = target.EventTarget.prototype.addEventListener;
  const dispatch = target.EventTarget.prototype.dispatchEvent;
  const stopImmediate = Event.prototype.stopImmediatePropagation;
  const socketProto = target.WebSocket.prototype;
  const nativeClose = socketProto.close;
  const urlGetter = getOwnPropertyDescriptor(socketProto, 'url')?.get;
  const synthetic = weakSet<Event>();
  const states = weakMap<object, SocketState>();
  const strict = new NativeTextDecoder('utf-8', STRICT);

  const fire = (socket: WebSocket, event: Event): void => {
    synthetic.add(event);
    call(dispatch, socket, event);
  };

  const message = (socket: WebSocket, state: SocketState, data: unknown): void => {
    const init = { __proto__: null, data, origin: state.origin } as MessageEventInit;
    fire(socket, new MessageEvent('message', init));
  };

  /** Binary data as the page asked for it (`binaryType`). */
  const asBinary = (state: SocketState, buffer: ArrayBuffer): unknown =>
    state.binaryType === 'blob' ? new NativeBlob([buffer]) : buffer;

  const deliver = (socket: WebSocket, state: SocketState, messages: string[]): void => {
    for (let i = 0; i < messages.length; i++) {
      // The guard hands back its messages in order: each in the kind it came in as (a
      // block's own ending takes the kind of the message before it).
      const binary = state.kinds[state.delivered] ?? state.kinds[state.delivered - 1];
      if (state.delivered < state.kinds.length) state.delivered++;
      const text = messages[i]!;
      const bytes = () => call<Uint8Array<ArrayBuffer>>(Encoder.encode, encoder, text).buffer;
      message(socket, state, binary ? asBinary(state, bytes()) : text);
    }
  };

  const fireClose = (socket: WebSocket, state: SocketState): void => {
    const init = state.close ?? { code: 1006, reason: '', wasClean: false };
    fire(socket, new CloseEvent('close', { __proto__: null, ...init } as CloseEventInit));
  };

  /**
   * Fail closed: the socket is closed and no later message reaches the page. `reason`
   * when a step in this world threw (the person is told here; a guard that failed in the
   * ISOLATED world was reported there).
   */
  const failClosed = (socket: WebSocket, state: SocketState, reason?: string): void => {
    if (state.phase === 'failed' || state.phase === 'closed') return;
    if (reason === 'decision') stats.decisionErrors++;
    else stats.guardFailures++;
    if (reason !== undefined) reportFailure?.('web-socket', reason);
    const closing = state.phase === 'closing';
    state.phase = 'failed';
    state.guard = undefined;
    state.cancelGeneric?.();
    // Already closed: the page still gets its close event. Otherwise the browser's own.
    if (closing) fireClose(socket, state);
    else call(nativeClose, socket);
  };

  const sinkFor = (socket: WebSocket, state: SocketState): SocketSink => ({
    deliver: (messages) => {
      if (state.phase === 'guarded' || state.phase === 'closing') {
        deliver(socket, state, messages);
      }
    },
    done: () => {
      if (state.phase !== 'closing') return;
      state.phase = 'closed';
      fireClose(socket, state);
    },
    fail: () => failClosed(socket, state),
  });

  /**
   * Issue 18 §3: the generic adapter's guard for a socket whose JSON message no socket
   * format claims, when the page sent a chat request on it or the message shows a known
   * answer shape (OpenAI-style deltas and the other shapes `headShowsKnownShape` reads).
   * Runs inside `pristine`. Undefined when the socket is not one to guard this way.
   */
  const genericGuard = (
    socket: WebSocket,
    state: SocketState,
    text: string,
  ): SocketMessageGuard | undefined => {
    if (!createWireGuard) return undefined;
    const head = text.slice(0, HEAD_BYTES);
    if (!state.chat && !headShowsKnownShape(head)) return undefined;
    if (!isJsonMessage(text)) return undefined;
    const probe: WireProbe = { url: state.url, method: 'GET', contentType: '', head };
    if (state.chat) probe.chatRequest = true;
    const guard = socketJsonGuard(
      createWireGuard(recognisers.generic, probe),
      sinkFor(socket, state),
    );
    state.generic = true;
    state.cancelGeneric = guard.cancel;
    return guard;
  };

  /**
   * A binary message that is not UTF-8 on a chat socket: no text can be guarded in it,
   * so it is reported (the notice and the audit log's `wire-undecodable` record, as for
   * an HTTP answer that cannot be decoded) and the socket fails closed. The report goes
   * through the generic adapter, which reports a body whose first character is a control
   * character as binary: the hook already knows the message is not text, so it hands
   * over that one byte, not the message.
   */
  const reportUndecodable = (socket: WebSocket, state: SocketState): void => {
    if (createWireGuard) {
      const probe: WireProbe = {
        url: state.url,
        method: 'GET',
        contentType: '',
        head: '',
        chatRequest: true,
      };
      // Read to its end, nothing of it for the page (cancelling would withdraw the report).
      const report = socketJsonGuard(createWireGuard(recognisers.generic, probe), IGNORED);
      report.push(BINARY_MARK);
      report.end();
    } else {
      reportFailure?.('web-socket', 'undecodable');
    }
    failClosed(socket, state);
  };

  const onMessage = (socket: WebSocket, state: SocketState, event: Event): void => {
    if (synthetic.has(event) || !(event instanceof MessageEvent)) return;
    if (state.phase !== 'undecided' && state.phase !== 'guarded') {
      call(stopImmediate, event);
      return;
    }
    let data: unknown;
    let text: string | undefined;
    try {
      data = call<unknown>(MessageOf.data, event);
      const binary = typeof data !== 'string';
      if (binary) {
        try {
          text = decodeText(strict, data as ArrayBuffer);
        } catch {
          // Not UTF-8: binary data, no answer text.
        }
      } else {
        text = data as string;
      }
      if (text === undefined && (state.chat || state.phase === 'guarded')) {
        // Not UTF-8, on a chat socket: reported, and nothing more reaches the page.
        call(stopImmediate, event);
        reportUndecodable(socket, state);
        return;
      }
      if (text === undefined && !state.passedUndecodable) {
        // Not UTF-8, on a socket with no chat sign: it may be no answer at all (an image,
        // a site's own protocol), so it passes, but not silently: told once per socket
        // (the notice and an audit record, guard-engine.ts `unguarded-reports.ts`).
        state.passedUndecodable = true;
        reportFailure?.('web-socket', 'undecodable-passed');
      }
      if (text !== undefined && state.phase === 'undecided') {
        const head = text;
        const probe = { url: state.url, method: 'GET', contentType: '', head };
        // The decision runs with the built-ins of document_start (intrinsics.ts).
        const guard = pristine(
          () =>
            createSocketGuard(probe, sinkFor(socket, state)) ?? genericGuard(socket, state, head),
        );
        if (guard !== undefined) {
          state.guard = guard;
          state.origin = call<string>(MessageOf.origin, event);
          // A guard that failed at once (no channel) has already closed the socket.
          if (phaseOf(state) === 'undecided') state.phase = 'guarded';
          stats.wireGuarded++;
        }
      }
      // A generic socket's message that is not one JSON value: not an answer frame.
      const candidate = text;
      const skipped =
        state.generic && candidate !== undefined && !pristine(() => isJsonMessage(candidate));
      if (phaseOf(state) !== 'guarded' || text === undefined || skipped) {
        // The browser's own message; a binary one in the page's type.
        if (binary && state.binaryType === 'blob') {
          call(stopImmediate, event);
          state.origin ||= call<string>(MessageOf.origin, event);
          message(socket, state, asBinary(state, data as ArrayBuffer));
        }
        return;
      }
      state.kinds[state.kinds.length] = binary;
    } catch {
      // The decision threw: fail closed.
      call(stopImmediate, event);
      failClosed(socket, state, 'decision');
      return;
    }
    call(stopImmediate, event);
    try {
      state.guard?.push(text);
    } catch {
      failClosed(socket, state, 'guard');
    }
  };

  const onClose = (socket: WebSocket, state: SocketState, event: Event): void => {
    if (synthetic.has(event) || state.phase !== 'guarded') return;
    call(stopImmediate, event);
    const { code, reason, wasClean } = event as CloseEvent;
    state.close = { code, reason, wasClean };
    state.phase = 'closing';
    const guard = state.guard;
    state.guard = undefined;
    try {
      guard?.end();
    } catch {
      failClosed(socket, state, 'guard');
    }
  };

  // The page's binaryType, per socket; the native one stays `arraybuffer` (see above).
  const binaryType = replaceAccessor(
    socketProto,
    'binaryType',
    target,
    (n) =>
      function (this: unknown) {
        return states.get(this as object)?.binaryType ?? call(n.get, this);
      },
    (n) =>
      function (this: unknown, value: unknown) {
        call(n.set!, this, value);
        const state = states.get(this as object);
        if (state === undefined) return;
        // The native setter validated it (an unknown value leaves the type as it was).
        state.binaryType = call<string>(n.get, this);
        call(n.set!, this, 'arraybuffer');
      },
  );

  replaceConstructor<typeof WebSocket>(target, 'WebSocket', target, (socket) => {
    const state: SocketState = {
      url: urlGetter ? call<string>(urlGetter, socket) : '',
      phase: 'undecided',
      guard: undefined,
      origin: '',
      close: undefined,
      binaryType: call<string>(binaryType.get, socket),
      kinds: [],
      delivered: 0,
      chat: false,
      generic: false,
      cancelGeneric: undefined,
    };
    call(binaryType.set!, socket, 'arraybuffer');
    states.set(socket, state);
    const listen = (type: string, handle: (event: Event) => void) =>
      call(addListener, socket, type, handle, true);
    listen('message', (event) => onMessage(socket, state, event));
    listen('close', (event) => onClose(socket, state, event));
  });
  INSTALLED.add(target.WebSocket);

  // Issue 18 §1: a socket the page sends a chat request on is a chat socket.
  replaceMethod(socketProto, 'send', target, (nativeSend) => {
    return {
      send(this: WebSocket, ...args: unknown[]): void {
        const state = states.get(this);
        if (state !== undefined && !state.chat) {
          const request = { url: state.url, method: 'POST', contentType: 'application/json' };
          try {
            state.chat = pristine(() => chatRequestBody(request, args[0]));
          } catch {
            // No verdict: treated as a chat socket (more is guarded, nothing less).
            state.chat = true;
          }
        }
        // Issue 20 §2: a recognised socket's frames leave as decided, in order.
        if (state && options.prepareOutgoing) {
          sendInOrder(state, options.prepareOutgoing, args[0], (f) => call(nativeSend, this, f));
        } else call(nativeSend, this, ...args);
      },
    }.send as never;
  });
}
