/**
 * The `fetch` hook of the MAIN world (shell version).
 *
 * Which responses are guarded: the answer to a same-origin POST whose path ends in
 * `/api/chat` and whose content type is `text/plain` (the local mock chat's wire
 * format; provider adapters come later). Their body is decoded, piped through the
 * guard and re-encoded; every other request and response passes through untouched
 * (the very promise the native `fetch` returned).
 *
 * No extension APIs here: this code runs in the page's own world.
 */

import { disguiseAsNative } from './native-function.ts';

/** Builds a fresh guard for one response body (one stream, one pack version). */
export type GuardFactory = () => TransformStream<string, string>;

export interface FetchHookTarget {
  fetch: typeof fetch;
  location: { href: string; origin: string };
  Function: FunctionConstructor;
}

export interface FetchHookOptions {
  /** Path suffix of the guarded endpoint. */
  pathSuffix?: string;
}

const DEFAULT_PATH_SUFFIX = '/api/chat';

/** Headers the browser already applied to the body; the new body has neither. */
const STALE_HEADERS = ['content-length', 'content-encoding'];

/** guarded fetch → the native fetch it wraps. */
const INSTALLED = new WeakMap<object, typeof fetch>();

function requestMethod(input: RequestInfo | URL, init: RequestInit | undefined): string {
  if (init?.method !== undefined) return String(init.method).toUpperCase();
  if (typeof Request !== 'undefined' && input instanceof Request) return input.method.toUpperCase();
  return 'GET';
}

function requestUrl(input: RequestInfo | URL, base: string): URL | undefined {
  try {
    if (typeof Request !== 'undefined' && input instanceof Request) return new URL(input.url);
    if (input instanceof URL) return input;
    return new URL(String(input), base);
  } catch {
    return undefined;
  }
}

/** True when the request's answer is one the shell guards. */
export function isGuardedRequest(
  input: RequestInfo | URL,
  init: RequestInit | undefined,
  location: { href: string; origin: string },
  pathSuffix: string = DEFAULT_PATH_SUFFIX,
): boolean {
  if (requestMethod(input, init) !== 'POST') return false;
  const url = requestUrl(input, location.href);
  if (!url) return false;
  return url.origin === location.origin && url.pathname.endsWith(pathSuffix);
}

/** True when the response carries a body the shell can guard as plain text. */
export function isGuardedResponse(response: Response): boolean {
  if (response.body === null) return false;
  const type = response.headers.get('content-type') ?? '';
  return type.trim().toLowerCase().startsWith('text/plain');
}

/** A body that fails at once: fail closed when the guard cannot even be built. */
function failedBody(reason: unknown): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.error(reason);
    },
  });
}

/**
 * Returns a new Response whose body is `response`'s body decoded, guarded and
 * re-encoded as UTF-8. Status, status text and headers (less content-length and
 * content-encoding) are kept; `url`, `redirected` and `type` are defined back, since
 * `new Response()` resets them.
 */
export function guardResponse(response: Response, createGuard: GuardFactory): Response {
  let body: ReadableStream<Uint8Array>;
  try {
    const guard = createGuard();
    // TS 5.9: a byte stream must be cast before piping into TextDecoderStream.
    body = (response.body as ReadableStream<BufferSource>)
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(guard)
      .pipeThrough(new TextEncoderStream());
  } catch (error) {
    // Fail closed: no raw byte of this body reaches the page.
    void response.body?.cancel(error).catch(() => undefined);
    body = failedBody(error);
  }
  const headers = new Headers(response.headers);
  for (const name of STALE_HEADERS) headers.delete(name);
  const guarded = new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
  Object.defineProperties(guarded, {
    url: { value: response.url, enumerable: true, configurable: true },
    redirected: { value: response.redirected, enumerable: true, configurable: true },
    type: { value: response.type, enumerable: true, configurable: true },
  });
  return guarded;
}

/**
 * Replaces `target.fetch` by a guarded one that looks native. Returns the original.
 * Installing twice on the same target is a no-op (returns the first original).
 */
export function installFetchHook(
  target: FetchHookTarget,
  createGuard: GuardFactory,
  options: FetchHookOptions = {},
): typeof fetch {
  const pathSuffix = options.pathSuffix ?? DEFAULT_PATH_SUFFIX;
  const nativeFetch = target.fetch;
  const installed = INSTALLED.get(nativeFetch);
  if (installed) return installed;

  const guardedFetch = {
    fetch(this: unknown, ...args: Parameters<typeof fetch>): Promise<Response> {
      const [input, init] = args;
      let guarded: boolean;
      try {
        guarded = isGuardedRequest(input, init, target.location, pathSuffix);
      } catch {
        guarded = false;
      }
      const pending = Reflect.apply(nativeFetch, this, args) as Promise<Response>;
      if (!guarded) return pending;
      return pending.then((response) =>
        isGuardedResponse(response) ? guardResponse(response, createGuard) : response,
      );
    },
  }.fetch;
  disguiseAsNative(guardedFetch, nativeFetch, target);
  INSTALLED.set(guardedFetch, nativeFetch);

  const descriptor = Object.getOwnPropertyDescriptor(target, 'fetch');
  if (descriptor && 'value' in descriptor) {
    Object.defineProperty(target, 'fetch', { ...descriptor, value: guardedFetch });
  } else {
    target.fetch = guardedFetch as typeof fetch;
  }
  return nativeFetch;
}
