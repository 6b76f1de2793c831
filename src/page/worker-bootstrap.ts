/**
 * Issue 18 §2: what runs first in a worker the page starts on a guarded site. The
 * MAIN world (worker-hooks.ts) starts the worker from a blob: URL whose script is this
 * function's source text, called with the page's script URL, then the page's script
 * (`importScripts` here for a classic worker; for a module worker, a blob: module that
 * imports a module running this, then the page's module, in that order).
 *
 * The worker holds no guard. Its `fetch` sends the request to the page's MAIN world
 * over a private MessagePort and returns what the page's own guarded `fetch` answered
 * there (fetch-hook.ts: the same recognition, outgoing guard and answer guard as in
 * the page), relayed chunk by chunk. `XMLHttpRequest`, `EventSource`, `WebSocket` and
 * nested `Worker`s are not relayed: in a worker they are refused, and the MAIN world
 * reports it (the notice and an audit record), so nothing is read past the guard and
 * nothing is refused without a word.
 *
 * The private port: the MAIN world posts it, with a fresh random token, as the first
 * message on the worker (dedicated) or on each connection (shared). This listener runs
 * before any page code in the worker can listen, takes that message and stops it; it
 * takes no other. Built-ins are captured before the page's script runs. Until the port
 * arrives, requests wait; without it, they fail (closed).
 *
 * Injected as source text: this function must use nothing but its arguments and the
 * worker's globals (no imports, no module-level names). No extension APIs.
 */

/** What the bootstrap reads of the worker's global scope (typed loosely: no worker lib). */
type Scope = Record<string, unknown> & typeof globalThis;

export function workerBootstrap(
  scriptUrl: string,
  type: 'classic' | 'module',
  kind: 'Worker' | 'SharedWorker',
  token: string,
): void {
  const scope = self as unknown as Scope;
  const { apply } = Reflect;
  const NativePromise = Promise;
  const NativeRequest = Request;
  const NativeResponse = Response;
  const NativeReadableStream = ReadableStream;
  const NativeUrl = URL;
  const NativeTypeError = TypeError;
  const NativeDomException = DOMException;
  const defineProperty = Object.defineProperty;
  const portPost = MessagePort.prototype.postMessage;
  const portStart = MessagePort.prototype.start;
  const listen = EventTarget.prototype.addEventListener;
  const unlisten = EventTarget.prototype.removeEventListener;
  const eventData = Object.getOwnPropertyDescriptor(MessageEvent.prototype, 'data')!.get!;
  const eventPorts = Object.getOwnPropertyDescriptor(MessageEvent.prototype, 'ports')!.get!;
  const stopNow = Event.prototype.stopImmediatePropagation;
  const readBody = Request.prototype.arrayBuffer;
  const signalOf = Object.getOwnPropertyDescriptor(Request.prototype, 'signal')!.get!;
  const headerEntries = Headers.prototype.entries;

  interface Pending {
    resolve(response: Response): void;
    reject(error: unknown): void;
    controller?: ReadableStreamDefaultController<Uint8Array>;
  }
  const pending: Record<number, Pending> = Object.create(null) as Record<number, Pending>;
  let port: MessagePort | undefined;
  let failed = false;
  let nextId = 0;
  const waiting: unknown[][] = [];

  const post = (message: unknown, transfer: Transferable[] = []): void => {
    if (port === undefined) waiting.push([message, transfer]);
    else apply(portPost, port, [message, transfer]);
  };
  const networkError = () => new NativeTypeError('Chat Stream Guard: not guarded in this worker');

  const onReply = (event: MessageEvent): void => {
    const reply = apply(eventData, event, []) as {
      t: string;
      id: number;
      status?: number;
      statusText?: string;
      headers?: [string, string][];
      url?: string;
      redirected?: boolean;
      bytes?: Uint8Array;
    };
    const open = pending[reply.id];
    if (open === undefined) return;
    if (reply.t === 'head') {
      const body = new NativeReadableStream<Uint8Array>({
        start(controller) {
          open.controller = controller;
        },
        cancel() {
          post({ t: 'abort', id: reply.id });
        },
      });
      const nullBody = reply.status === 204 || reply.status === 205 || reply.status === 304;
      const response = new NativeResponse(nullBody ? null : body, {
        status: reply.status,
        statusText: reply.statusText,
        headers: reply.headers,
      });
      defineProperty(response, 'url', { value: reply.url });
      defineProperty(response, 'redirected', { value: reply.redirected });
      open.resolve(response);
    } else if (reply.t === 'chunk' && reply.bytes !== undefined) {
      open.controller?.enqueue(reply.bytes);
    } else if (reply.t === 'end') {
      delete pending[reply.id];
      open.controller?.close();
    } else if (reply.t === 'error') {
      delete pending[reply.id];
      const error = networkError();
      open.reject(error);
      open.controller?.error(error);
    }
  };

  const attach = (taken: MessagePort): void => {
    port = taken;
    apply(listen, port, ['message', onReply]);
    apply(portStart, port, []);
    for (const [message, transfer] of waiting.splice(0)) {
      apply(portPost, port, [message, transfer]);
    }
  };

  /** Takes the MAIN world's port from the first message carrying the token; stops it. */
  const takePort = (event: Event): boolean => {
    if (port !== undefined) return false;
    const ports = apply(eventPorts, event, []) as readonly MessagePort[];
    if (apply(eventData, event, []) !== token || ports.length !== 1) return false;
    apply(stopNow, event, []);
    attach(ports[0]!);
    return true;
  };

  function guardedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    return new NativePromise<Response>((resolve, reject) => {
      if (failed) {
        reject(networkError());
        return;
      }
      let request: Request;
      try {
        // Relative to the page's script, not to the blob: URL the worker runs from.
        const target =
          typeof input === 'string' || input instanceof NativeUrl
            ? new NativeUrl(String(input), scriptUrl).href
            : input;
        request = new NativeRequest(target, init);
      } catch (error) {
        reject(error);
        return;
      }
      const method = request.method;
      const id = ++nextId;
      apply(readBody, request, []).then((body: ArrayBuffer) => {
        pending[id] = { resolve, reject };
        const headers = [...(apply(headerEntries, request.headers, []) as Iterable<string[]>)];
        const hasBody = method !== 'GET' && method !== 'HEAD';
        post(
          {
            t: 'fetch',
            id,
            url: request.url,
            init: {
              method,
              headers,
              body: hasBody ? body : null,
              credentials: request.credentials,
              cache: request.cache,
              redirect: request.redirect,
              referrerPolicy: request.referrerPolicy,
              integrity: request.integrity,
              mode: request.mode === 'navigate' ? 'same-origin' : request.mode,
            },
          },
          hasBody ? [body] : [],
        );
        const signal = apply(signalOf, request, []) as AbortSignal;
        apply(listen, signal, ['abort', () => post({ t: 'abort', id })]);
      }, reject);
    });
  }

  /** A network API the worker cannot guard: refused, and the MAIN world told. */
  const refuse = (api: string): never => {
    post({ t: 'refused', api });
    throw new NativeDomException(`${api} is not guarded in this worker`, 'NetworkError');
  };
  defineProperty(scope, 'fetch', { value: guardedFetch, writable: true, configurable: true });
  // A worker's own nested workers would run without the relay: refused too.
  for (const api of ['XMLHttpRequest', 'EventSource', 'WebSocket', 'Worker']) {
    if (typeof scope[api] !== 'function') continue;
    const replacement = {
      [api]: function () {
        return refuse(api);
      },
    }[api]!;
    defineProperty(scope, api, { value: replacement, writable: true, configurable: true });
  }
  // importScripts resolves against the worker's URL: the page's script's, not the blob's.
  const nativeImport = scope.importScripts as ((...urls: string[]) => void) | undefined;
  if (type === 'classic' && typeof nativeImport === 'function') {
    scope.importScripts = (...urls: string[]) =>
      apply(
        nativeImport,
        scope,
        urls.map((url) => new NativeUrl(String(url), scriptUrl).href),
      );
  }

  if (kind === 'Worker') {
    const onMessage = (event: Event) => {
      if (takePort(event)) apply(unlisten, scope, ['message', onMessage, true]);
    };
    apply(listen, scope, ['message', onMessage, true]);
  } else {
    // Each connection's first message may carry the port; the first one is kept.
    apply(listen, scope, [
      'connect',
      (event: Event) => {
        const connection = (apply(eventPorts, event, []) as readonly MessagePort[])[0];
        if (connection === undefined) return;
        const onMessage = (message: Event) => {
          if (apply(eventData, message, []) !== token) return;
          apply(stopNow, message, []);
          apply(unlisten, connection, ['message', onMessage]);
          takePort(message);
        };
        apply(listen, connection, ['message', onMessage]);
        apply(portStart, connection, []);
      },
      true,
    ]);
  }

  const fail = (): void => {
    failed = true;
    post({ t: 'failed' });
  };
  if (type === 'classic') {
    try {
      nativeImport?.(scriptUrl);
    } catch (error) {
      // Not loaded: the page's CSP (script-src, inherited by a blob: worker) or the
      // network. Any other error is the page's script's own.
      if (error instanceof NativeDomException && error.name === 'NetworkError') fail();
      throw error;
    }
    return;
  }
  // A module worker: the page's module is the next import of the blob: module that
  // imported this one (worker-hooks.ts), evaluated after it; it fails to load the same
  // way a classic script does, as a plain `error` event on the worker object.
}
