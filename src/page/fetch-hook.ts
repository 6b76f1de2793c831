/**
 * The `fetch` hook of the MAIN world.
 *
 * Which responses are guarded:
 * - A response a wire adapter recognises (URL + method + content type + first bytes):
 *   its body is piped through the adapter's byte transform (`createWireGuard`). To see
 *   the first bytes, the hook peeks at a clone of the body (response-peek.ts) when the
 *   content type is one an adapter could want (event stream, NDJSON, JSON, plain text)
 *   or when an adapter already claims the URL. The page's `fetch` promise resolves once
 *   the head is known.
 * - The local mock chat's plain-text stream (a same-origin POST whose path ends in
 *   `/api/chat`, answered as `text/plain`), the format the demo shows and that
 *   self-hosted UIs built on plain text streams use: it is not a provider wire format,
 *   so it is decoded, run through the text guard (`plainTextGuard`) and re-encoded.
 *   This special case is decided before any peek.
 *
 * Every other response reaches the page as the very Response object the native fetch
 * resolved with: the peek reads a clone, so even a response that was peeked at and not
 * recognised is passed on untouched (same object, same body bytes, content-length kept).
 *
 * Never break the page: an exception in the hook's own decision logic passes the
 * original response through and is counted (no console output, no content anywhere).
 * Fail closed once guarding: a guard that cannot be built or fails mid-stream errors
 * the page's body (guarded-response.ts).
 *
 * No extension APIs here: this code runs in the page's own world.
 */

import type { WireProbe, WireRecogniser } from '../core/wire/wire-event.ts';
import {
  GUARD_FAILURE_MESSAGE,
  guardedBody,
  responseLike,
  type ByteGuard,
} from './guarded-response.ts';
import {
  apply,
  Body,
  call,
  defineProperty,
  getOwnPropertyDescriptor,
  HeadersOf,
  NativePromise,
  NativeReadableStream,
  NativeRequest,
  NativeTypeError,
  NativeUrl,
  pristine,
  RequestOf,
  Stream,
  UrlOf,
  weakMap,
} from './intrinsics.ts';
import { disguiseAsNative } from './native-function.ts';
import type { RequestVerdict } from './chat-request-probe.ts';
import {
  BodyFailedWhilePeeked,
  headIsDecisive,
  isCandidateContentType,
  normaliseContentType,
  peekHead,
} from './response-peek.ts';

export interface FetchHookTarget {
  fetch: typeof fetch;
  location: { href: string; origin: string };
  Function: FunctionConstructor;
}

/** Counters of what the hook did, for the bridge to report. Numbers only, never content. */
export interface FetchHookStats {
  /** Plain-text mock chat answers guarded. */
  plainTextGuarded: number;
  /** Responses an adapter recognised and that were guarded. */
  wireGuarded: number;
  /** Responses peeked at that no adapter recognised (passed through untouched). */
  unrecognised: number;
  /** Peeks cut short by the body failing (network error, abort): passed through. */
  peekFailed: number;
  /** Exceptions in the hook's own decision logic: the response was stopped (fail closed). */
  decisionErrors: number;
  /** Guards that could not be built or failed mid-stream (the page's body errored). */
  guardFailures: number;
}

export function newFetchHookStats(): FetchHookStats {
  return {
    plainTextGuarded: 0,
    wireGuarded: 0,
    unrecognised: 0,
    peekFailed: 0,
    decisionErrors: 0,
    guardFailures: 0,
  };
}

export interface FetchHookOptions {
  /** Byte guard for the plain-text chat endpoint; without it that special case is off. */
  plainTextGuard?: (probe: WireProbe) => ByteGuard;
  /** Path suffix of the plain-text chat endpoint (default `/api/chat`). */
  pathSuffix?: string;
  /** Recognises a response (wire-recognisers.ts `recogniseResponse`). */
  detectAdapter?: (probe: WireProbe) => WireRecogniser | undefined;
  /** Builds the byte guard for one recognised response (remote-guard.ts `wire`). */
  createWireGuard?: (adapter: WireRecogniser, probe: WireProbe) => ByteGuard;
  /** Counters to update (default: a private set). */
  stats?: FetchHookStats;
  /**
   * Issue 5 (outgoing-hook.ts): for a request a request adapter recognises, the
   * arguments to send instead (a guarded copy), or a rejection when the send is
   * refused; undefined for every other request (sent as is, without delay).
   */
  prepareOutgoing?: (
    input: RequestInfo | URL,
    init: RequestInit | undefined,
  ) => Promise<Parameters<typeof fetch>> | undefined;
  /**
   * Issue 18 §1: whether the request looks like a chat request (chat-request-probe.ts),
   * asked before it is sent. Its answer's probe then says so (`WireProbe.chatRequest`),
   * so the generic adapter guards it even when no adapter claims it.
   */
  chatRequest?: (
    input: RequestInfo | URL,
    init: RequestInit | undefined,
  ) => Promise<boolean | RequestVerdict>;
  /**
   * A promise to wait on before any decision, while the data the recognisers read has not
   * arrived (page-site-routes.ts `siteRoutesReady`); undefined when there is nothing to wait for.
   */
  ready?: () => Promise<void> | undefined;
  /**
   * Issue 18 §4: a hook stopped a response itself (its decision threw, or it cannot be
   * guarded): the bridge shows the failure notice and logs it. `hook` names the hook.
   */
  reportFailure?: (hook: string, reason: string) => void;
  /**
   * Issue 20: every response's status, with the input it answers (the send hook's
   * guarded Request when there was one: outgoing-hook.ts `answered`).
   */
  answered?: (input: unknown, status: number) => void;
}

const DEFAULT_PATH_SUFFIX = '/api/chat';

/** guarded fetch → the native fetch it wraps. */
const INSTALLED = weakMap<object, typeof fetch>();

function requestMethod(input: RequestInfo | URL, init: RequestInit | undefined): string {
  if (init?.method !== undefined) return `${init.method}`.toUpperCase();
  if (input instanceof NativeRequest) return call<string>(RequestOf.method, input).toUpperCase();
  return 'GET';
}

/** The request's absolute URL (href, origin, pathname), or undefined when it has none. */
function requestUrl(
  input: RequestInfo | URL,
  base: string,
): { href: string; origin: string; pathname: string } | undefined {
  try {
    const url = new NativeUrl(
      input instanceof NativeRequest ? call<string>(RequestOf.url, input) : `${input as string}`,
      base,
    );
    const part = (key: keyof typeof UrlOf) => call<string>(UrlOf[key], url);
    return { href: part('href'), origin: part('origin'), pathname: part('pathname') };
  } catch {
    return undefined;
  }
}

/** True when the request goes to the plain-text chat endpoint (same-origin POST …/api/chat). */
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

/** The response's body, through the getter captured at document_start. */
const bodyOf = (response: Response) => call<ReadableStream<Uint8Array> | null>(Body.body, response);

/** The response's normalised content type. */
const contentTypeOf = (response: Response) =>
  normaliseContentType(
    call<string | null>(HeadersOf.get, call(Body.headers, response), 'content-type'),
  );

/**
 * The response headers recognisers read (wire-recognisers.ts): the AI SDK's stream
 * markers (WIRE-FORMATS-2.md §1), lower-case; undefined when the response has none.
 */
const MARKER_HEADERS = ['x-vercel-ai-ui-message-stream', 'x-vercel-ai-data-stream'] as const;

function markerHeadersOf(response: Response): Record<string, string> | undefined {
  let found: Record<string, string> | undefined;
  for (const name of MARKER_HEADERS) {
    const value = call<string | null>(HeadersOf.get, call(Body.headers, response), name);
    if (value !== null) (found ??= {})[name] = value;
  }
  return found;
}

/** True when the response carries a body the plain-text path can guard. */
export function isGuardedResponse(response: Response): boolean {
  return bodyOf(response) !== null && contentTypeOf(response).startsWith('text/plain');
}

/**
 * Returns a new Response whose body is `response`'s body through the byte guard
 * `createGuard()` builds, dressed like `response` (guarded-response.ts).
 */
export function guardResponse(
  response: Response,
  createGuard: () => ByteGuard,
  onGuardFailure?: (error: unknown) => void,
): Response {
  const source =
    bodyOf(response) ??
    new NativeReadableStream<Uint8Array>({
      __proto__: null,
      start: (c: ReadableStreamDefaultController) => c.close(),
    } as UnderlyingDefaultSource<Uint8Array>);
  return responseLike(response, guardedBody(source, createGuard, { onGuardFailure }));
}

/** What the hook knows about the request when its response arrives. */
interface RequestFacts {
  method: string;
  /** Absolute URL, or '' when it could not be resolved. */
  url: string;
  plainTextEndpoint: boolean;
}

function requestFacts(
  input: RequestInfo | URL,
  init: RequestInit | undefined,
  location: { href: string; origin: string },
  pathSuffix: string,
): RequestFacts {
  return {
    method: requestMethod(input, init),
    url: requestUrl(input, location.href)?.href ?? '',
    plainTextEndpoint: isGuardedRequest(input, init, location, pathSuffix),
  };
}

/**
 * Replaces `target.fetch` by a guarded one that looks native. Returns the original.
 * Installing twice on the same target is a no-op (returns the first original).
 */
export function installFetchHook(
  target: FetchHookTarget,
  options: FetchHookOptions = {},
): typeof fetch {
  const pathSuffix = options.pathSuffix ?? DEFAULT_PATH_SUFFIX;
  const { plainTextGuard, detectAdapter, createWireGuard } = options;
  const stats = options.stats ?? newFetchHookStats();
  const nativeFetch = target.fetch;
  const installed = INSTALLED.get(nativeFetch);
  if (installed) return installed;

  const countGuardFailure = () => {
    stats.guardFailures++;
  };

  /**
   * The Response the page gets for `response`. Throws only from decision logic. Each
   * synchronous step of the decision runs with the built-ins of document_start
   * (intrinsics.ts `pristine`): what page code replaced cannot change a verdict.
   */
  const decide = async (
    response: Response,
    request: RequestFacts,
    chat?: Promise<boolean | RequestVerdict>,
  ): Promise<Response> => {
    const waiting = options.ready?.();
    if (waiting !== undefined) await waiting;
    const verdict = chat === undefined ? false : await chat;
    const chatRequest = typeof verdict === 'boolean' ? verdict : verdict.chat;
    const requestShape = typeof verdict === 'boolean' ? undefined : verdict.shape;
    if (bodyOf(response) === null) return response;
    let contentType = '';
    let headers: Record<string, string> | undefined;
    const probeWith = (head: string): WireProbe => ({
      url: call<string>(Body.url, response) || request.url,
      method: request.method,
      contentType,
      head,
      ...(chatRequest ? { chatRequest } : {}),
      ...(requestShape !== undefined ? { requestShape } : {}),
      ...(headers !== undefined ? { headers } : {}),
    });
    // One `pristine` walk (about 185 built-in members) for the headers and the first
    // verdict, not four in a row: each was cold code before a first token (issue 19 §4).
    // Nothing runs between them, so the decision is the same.
    const plainText = plainTextGuard && request.plainTextEndpoint;
    const wire = detectAdapter !== undefined && createWireGuard !== undefined;
    const first = pristine((): WireRecogniser | null | undefined | 'plain' => {
      contentType = contentTypeOf(response);
      headers = markerHeadersOf(response);
      if (plainText && contentType.startsWith('text/plain')) return 'plain';
      if (!wire) return null;
      return isCandidateContentType(contentType)
        ? undefined
        : (detectAdapter(probeWith('')) ?? null);
    });
    if (first === 'plain' && plainTextGuard) {
      stats.plainTextGuarded++;
      const probe = probeWith('');
      return guardResponse(response, () => plainTextGuard(probe), countGuardFailure);
    }
    if (first === null || first === 'plain' || !detectAdapter || !createWireGuard) return response;
    let adapter = first;

    let head: string;
    try {
      ({ head } = await peekHead(response, (soFar) =>
        pristine(() => {
          adapter = detectAdapter(probeWith(soFar));
          return adapter !== undefined || headIsDecisive(contentType, soFar);
        }),
      ));
    } catch (error) {
      if (!(error instanceof BodyFailedWhilePeeked)) throw error;
      // The body failed while peeked (network error, abort): the page sees the same failure.
      stats.peekFailed++;
      return response;
    }
    const probe = probeWith(head);
    const chosen = adapter ?? pristine(() => detectAdapter(probe));
    if (chosen === undefined) {
      stats.unrecognised++;
      return response;
    }
    const guarded = guardResponse(
      response,
      () => createWireGuard(chosen, probe),
      countGuardFailure,
    );
    stats.wireGuarded++;
    return guarded;
  };

  /**
   * Fail closed (issue 18 §4): the hook could not decide about `response`, so the page
   * gets none of it (a network error, as `fetch` rejects), and the person is told.
   */
  const failClosed = (response: Response): Promise<never> => {
    stats.decisionErrors++;
    options.reportFailure?.('fetch', 'decision');
    try {
      call<Promise<void>>(Stream.cancel, bodyOf(response)).catch(() => undefined);
    } catch {
      // No body, or it is locked: nothing more to stop.
    }
    return NativePromise.reject(new NativeTypeError(GUARD_FAILURE_MESSAGE));
  };

  /** Sends `args` natively and guards the response. */
  const send = async function (
    this: unknown,
    ...args: Parameters<typeof fetch>
  ): Promise<Response> {
    let request: RequestFacts | undefined;
    try {
      request = pristine(() => requestFacts(args[0], args[1], target.location, pathSuffix));
    } catch {
      // Decided below, once the native fetch has answered (it may refuse the same input).
    }
    // Issue 18 §1: asked before the native fetch, which consumes a Request's body.
    let chat: Promise<boolean | RequestVerdict> | undefined;
    try {
      chat = options.chatRequest?.(args[0], args[1]);
    } catch {
      // Not known to be a chat request: its answer is recognised as before.
    }
    const response = await (apply(nativeFetch, this, args) as Promise<Response>);
    // Issue 20: the status of a guarded send (outgoing-hook.ts `answered`; it does not throw).
    options.answered?.(args[0], call<number>(Body.status, response));
    try {
      if (request !== undefined) return await decide(response, request, chat);
    } catch {
      // Fall through: fail closed.
    }
    return failClosed(response);
  };

  const guardedFetch = {
    fetch(this: unknown, ...args: Parameters<typeof fetch>): Promise<Response> {
      // Issue 5: a recognised request leaves only as its guarded copy (or not at all).
      const outgoing = options.prepareOutgoing?.(args[0], args[1]);
      if (outgoing === undefined) return apply(send, this, args);
      return outgoing.then((guarded) => apply(send, this, guarded));
    },
  }.fetch;
  disguiseAsNative(guardedFetch, nativeFetch, target);
  INSTALLED.set(guardedFetch, nativeFetch);

  const descriptor = getOwnPropertyDescriptor(target, 'fetch');
  if (descriptor && 'value' in descriptor) {
    defineProperty(target, 'fetch', { ...descriptor, value: guardedFetch });
  } else {
    target.fetch = guardedFetch as typeof fetch;
  }
  return nativeFetch;
}
