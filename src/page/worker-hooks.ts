/**
 * Issue 18 §2: workers the page starts (dedicated classic, module and blob: workers,
 * shared workers) read answers through the page's guarded `fetch`.
 *
 * `Worker` and `SharedWorker` are replaced by constructors that start the worker from a
 * blob: URL running worker-bootstrap.ts first, then the page's script, and hand the
 * worker one end of a private MessageChannel (as the first message, with a fresh random
 * token; the page's own code never holds either end). The worker's `fetch` is relayed
 * here and sent with the page's guarded `fetch` (fetch-hook.ts), so the worker gets
 * exactly what the page would: the guard stays in the ISOLATED world, the worker holds
 * a thin relay and no guard.
 *
 * Where a worker cannot be hooked, it does not run unguarded and nothing passes without
 * a word (`reportFailure`: the notice and an audit record):
 * - the page's CSP forbids blob: workers, or forbids the blob: worker to load the page's
 *   script (`script-src` with nonces: a blob: worker inherits the page's policy): the
 *   worker fails to start, as a worker whose script is refused does;
 * - a data: URL worker (an opaque origin: relayed through the page it would change
 *   origin) is refused;
 * - XMLHttpRequest, EventSource, WebSocket and nested workers inside a worker are
 *   refused there (worker-bootstrap.ts).
 * A shared worker is shared per page and script, not across tabs (each page's blob: URL
 * differs). docs/hooks-contexts.md has the table.
 *
 * MAIN world only; no extension APIs.
 */

import {
  apply,
  Body,
  call,
  defineProperty,
  getOwnPropertyDescriptor,
  getPrototypeOf,
  getReader,
  NativeBlob,
  NativeUrl,
  readChunk,
  setPrototypeOf,
  type AnyFunction,
} from './intrinsics.ts';
import { disguiseAsNative } from './native-function.ts';
import { workerBootstrap } from './worker-bootstrap.ts';
import type { PageWindow } from './frame-hooks.ts';

const { construct } = Reflect;

export interface WorkerHookOptions {
  /** The page's guarded fetch (fetch-hook.ts), called as the page would. */
  fetch(url: string, init: RequestInit): Promise<Response>;
  /** Says that a worker context could not be guarded (notice and audit record). */
  reportFailure(hook: string, reason: string): void;
  /** A fresh random token (hex). */
  newId(): string;
}

interface FetchAsk {
  t: 'fetch';
  id: number;
  url: string;
  init: RequestInit & { headers: [string, string][] };
}
type WorkerMessage =
  FetchAsk | { t: 'abort'; id: number } | { t: 'refused'; api: string } | { t: 'failed' };

// Captured at document_start (main-world.ts evaluates this module first), before any
// page script could replace them (issue 18 §4).
const portPost = MessagePort.prototype.postMessage;
const NativeAbortController = AbortController;
const abortOf = AbortController.prototype.abort;
const headerEntries = Headers.prototype.entries;
const eventData = getOwnPropertyDescriptor(MessageEvent.prototype, 'data')!.get!;

/** Serves one worker's private port: its fetches go out through the page's guarded fetch. */
function serveWorker(port: MessagePort, options: WorkerHookOptions, onFailed: () => void): void {
  const send = (message: unknown) => apply(portPost, port, [message]);
  const aborts: Record<number, AbortController> = Object.create(null) as Record<
    number,
    AbortController
  >;

  const relay = async (ask: FetchAsk): Promise<void> => {
    const controller = new NativeAbortController();
    aborts[ask.id] = controller;
    try {
      const response = await options.fetch(ask.url, { ...ask.init, signal: controller.signal });
      send({
        t: 'head',
        id: ask.id,
        status: call(Body.status, response),
        statusText: call(Body.statusText, response),
        headers: [
          ...(apply(headerEntries, call(Body.headers, response), []) as Iterable<string[]>),
        ],
        url: call(Body.url, response),
        redirected: call(Body.redirected, response),
      });
      const body = call<ReadableStream<Uint8Array> | null>(Body.body, response);
      if (body !== null) {
        const reader = getReader(body);
        for (;;) {
          const { done, value } = await readChunk(reader);
          if (done) break;
          send({ t: 'chunk', id: ask.id, bytes: value });
        }
      }
      send({ t: 'end', id: ask.id });
    } catch {
      // The guard refused or failed the answer, or the network did: the worker's
      // fetch fails the same way, with nothing of the answer.
      send({ t: 'error', id: ask.id });
    } finally {
      delete aborts[ask.id];
    }
  };

  port.onmessage = (event: MessageEvent) => {
    const message = call<WorkerMessage>(eventData, event);
    if (message === null || typeof message !== 'object') return;
    if (message.t === 'fetch') void relay(message);
    else if (message.t === 'abort') {
      const controller = aborts[message.id];
      if (controller !== undefined) apply(abortOf, controller, []);
    } else if (message.t === 'refused') options.reportFailure('worker', refusedReason(message.api));
    else if (message.t === 'failed') onFailed();
  };
}

/** The reason sent for a refused API: a name the bridge accepts ([A-Za-z0-9_-]). */
function refusedReason(api: unknown): string {
  const known = ['XMLHttpRequest', 'EventSource', 'WebSocket', 'Worker'];
  return known.includes(api as string) ? `refused-${api as string}` : 'refused';
}

type WorkerKind = 'Worker' | 'SharedWorker';
type Constructor = new (...args: unknown[]) => object;

/** A worker script started through the bootstrap: its blob: URL and the token it expects. */
interface Started {
  url: string;
  token: string;
}

/** Replaces `win.Worker` and `win.SharedWorker` (where they exist) by hooking ones. */
export function installWorkerHooks(win: PageWindow, options: WorkerHookOptions): void {
  const createObjectUrl = win.URL.createObjectURL;
  const NativeMessageChannel = win.MessageChannel;
  const addListener = win.EventTarget.prototype.addEventListener;
  const NativeErrorEvent = win.ErrorEvent;
  const bootstrapSource = String(workerBootstrap);
  /** One blob: URL per script, kind and type: a shared worker stays shared in this page. */
  const started: Record<string, Started> = Object.create(null) as Record<string, Started>;

  const startFor = (kind: WorkerKind, type: string, scriptUrl: string): Started => {
    const key = `${kind} ${type} ${scriptUrl}`;
    const known = started[key];
    if (known !== undefined) return known;
    const token = options.newId();
    const args = [scriptUrl, type, kind, token].map((value) => JSON.stringify(value)).join(',');
    const blobUrl = (code: string) =>
      apply(createObjectUrl, win.URL, [
        new NativeBlob([code], { type: 'text/javascript' }),
      ]) as string;
    const hooks = blobUrl(`(${bootstrapSource})(${args})`);
    // A module's static imports are evaluated in order: the hooks, then the page's module
    // (which registers its listeners before any message is delivered).
    const url =
      type === 'module'
        ? blobUrl([hooks, scriptUrl].map((from) => `import ${JSON.stringify(from)};`).join(''))
        : hooks;
    return (started[key] = { url, token });
  };

  const hook = (kind: WorkerKind): void => {
    const Native = win[kind] as unknown as Constructor | undefined;
    if (typeof Native !== 'function') return;
    const postOf = (
      kind === 'Worker' ? win.Worker.prototype.postMessage : win.MessagePort.prototype.postMessage
    ) as AnyFunction;
    const portOf =
      kind === 'SharedWorker'
        ? getOwnPropertyDescriptor(win.SharedWorker.prototype, 'port')?.get
        : undefined;

    const replacement = function (this: unknown, ...args: unknown[]): unknown {
      if (new.target === undefined) return apply(Native as never, this, args);
      let scriptUrl: URL;
      try {
        scriptUrl = new NativeUrl(String(args[0]), win.document.baseURI);
      } catch {
        // The browser's own error for a URL it cannot parse.
        return construct(Native, args, new.target);
      }
      if (scriptUrl.protocol === 'data:') {
        // An opaque origin: relayed through the page, its requests would change origin.
        options.reportFailure('worker', 'data-url');
        throw new win.DOMException(
          'Chat Stream Guard: a data: worker is not guarded',
          'SecurityError',
        );
      }
      const workerOptions = args[1] as { type?: unknown } | string | undefined;
      const type =
        typeof workerOptions === 'object' && workerOptions?.type === 'module'
          ? 'module'
          : 'classic';
      const start = startFor(kind, type, scriptUrl.href);
      let worker: object;
      try {
        worker = construct(Native, [start.url, ...args.slice(1)], new.target);
      } catch (error) {
        // The page's CSP refused a blob: worker (said at once by some browsers).
        options.reportFailure('worker', 'csp');
        throw error;
      }
      let reported = false;
      const unhookable = () => {
        if (reported) return;
        reported = true;
        options.reportFailure('worker', 'unhookable');
      };
      const channel = new NativeMessageChannel();
      serveWorker(channel.port1, options, unhookable);
      const target = portOf === undefined ? worker : (call(portOf, worker) as object);
      apply(postOf, target, [start.token, [channel.port2]]);
      // A worker refused before it ran (CSP worker-src) fires a plain `error` event on
      // itself; an ErrorEvent is the page's script's own error, once it ran.
      apply(addListener, worker, [
        'error',
        (event: Event) => {
          if (!(event instanceof NativeErrorEvent)) unhookable();
        },
      ]);
      return worker;
    };
    replaceConstructorWith(win, kind, Native, replacement);
  };
  hook('Worker');
  hook('SharedWorker');
}

/**
 * Puts `replacement` in place of the built-in constructor `key`, looking like it: same
 * name, length and source text, the same `prototype` (so `instanceof` holds) and statics
 * (as native-patch.ts `replaceConstructor`, which cannot change the arguments).
 */
function replaceConstructorWith(
  win: PageWindow,
  key: WorkerKind,
  native: Constructor,
  replacement: AnyFunction,
): void {
  disguiseAsNative(replacement, native as unknown as AnyFunction, win);
  setPrototypeOf(replacement, getPrototypeOf(native) as object | null);
  const proto = native.prototype;
  defineProperty(replacement, 'prototype', {
    value: proto,
    writable: false,
    enumerable: false,
    configurable: false,
  });
  const ctor = getOwnPropertyDescriptor(proto, 'constructor');
  defineProperty(proto, 'constructor', { ...ctor, value: replacement });
  const holder = getOwnPropertyDescriptor(win, key);
  defineProperty(win, key, { ...holder, value: replacement });
}
