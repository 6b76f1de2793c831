/**
 * The send side of the MAIN-world hooks (issue 5): the fetch hook asks this
 * module, before a request leaves, whether a request adapter recognises it;
 * if so, the body is read from a copy and handed to the ISOLATED bridge
 * (src/content/request-host.ts: paste envelopes, DLP, the person's
 * confirmation, history projection), and the request to send is built anew
 * from the bridge's verdict — the page's own Request, init and body objects
 * are never modified.
 *
 * A refused request (blocked, cancelled by the person, or the guard failed)
 * makes the page's fetch reject with a TypeError, the way a network error
 * does, so the page takes its usual failure path and never retries into an
 * unguarded copy. Fail closed: a body that cannot be read (a stream) on a
 * recognised request is refused too, and so is every recognised request
 * without the channel to the bridge. The verdict may take as long as the
 * person takes to confirm (a send is never released by time alone).
 *
 * No extension APIs here.
 */
import { recogniseRequest } from '../core/wire/requests/request-recognisers.ts';
import type { OutgoingRequest } from '../core/wire/requests/request-text.ts';
import { byteBodyCodec } from './body-codec.ts';
import { weakMap } from './intrinsics.ts';
import type { RequestVerdict } from './remote-guard.ts';

type FetchArgs = [input: RequestInfo | URL, init?: RequestInit];

export interface OutgoingHookDeps {
  /** The bridge's verdict on a recognised request's body (remote-guard.ts `request`). */
  guard(request: OutgoingRequest, body: string): Promise<RequestVerdict>;
  /** The document's base URL (what fetch and XHR resolve relative URLs against). */
  baseUrl(): string;
  /** Issue 20: the status a guarded request (its verdict's `id`) was answered with. */
  answered?(id: string, status: number): void;
  /** A request refused because deciding whether it is a chat send threw (shown as a notice). */
  undecided?(): void;
}

export interface OutgoingHook {
  /**
   * For a request a request adapter recognises: a promise of the arguments to
   * send (a new Request), rejecting with a TypeError when the send is refused.
   * Undefined for every other request (sent untouched, without delay).
   */
  prepare(input: RequestInfo | URL, init: RequestInit | undefined): Promise<FetchArgs> | undefined;
  /**
   * Issue 20: `input` was sent and answered with `status`; passed on for a Request
   * this hook built (so the bridge can tell a site that refuses rewritten requests).
   */
  answered(input: unknown, status: number): void;
  /**
   * The body text of a Request this hook built (the guarded text it put there), for
   * one whose format is text; undefined for any other input.
   */
  sentText(input: unknown): string | undefined;
}
function headersOf(input: RequestInfo | URL, init: RequestInit | undefined): Headers {
  if (init?.headers !== undefined) return new Headers(init.headers);
  if (input instanceof Request) return input.headers;
  return new Headers();
}

function methodOf(input: RequestInfo | URL, init: RequestInit | undefined): string {
  if (init?.method !== undefined) return String(init.method).toUpperCase();
  if (input instanceof Request) return input.method.toUpperCase();
  return 'GET';
}

function urlOf(input: RequestInfo | URL, base: string): string | undefined {
  try {
    if (input instanceof Request) return input.url;
    return new URL(input instanceof URL ? input.href : String(input), base).href;
  } catch {
    return undefined;
  }
}

/** The body text the request would send, read from copies; throws when it cannot be read. */
async function bodyText(input: RequestInfo | URL, init: RequestInit | undefined): Promise<string> {
  const body = init?.body;
  if (body !== undefined && body !== null) {
    if (typeof body === 'string') return body;
    // A stream can be read only once: reading it would take it from the page.
    if (body instanceof ReadableStream) throw new TypeError('stream body');
    return new Response(body).text();
  }
  if (input instanceof Request) return input.clone().text();
  return '';
}

/**
 * A byte-level request body (request-text.ts `bytes`: Kimi's Connect envelope) as
 * a byte string, read from copies as `bodyText` reads text.
 */
async function bodyBytes(input: RequestInfo | URL, init: RequestInit | undefined): Promise<string> {
  const body = init?.body;
  if (body instanceof ReadableStream) throw new TypeError('stream body');
  const copy =
    body !== undefined && body !== null
      ? new Response(body)
      : input instanceof Request
        ? input.clone()
        : new Response('');
  return byteBodyCodec().decode(new Uint8Array(await copy.arrayBuffer()));
}

/** A byte string back to the bytes it stands for. */
function bytesOf(text: string): Uint8Array<ArrayBuffer> {
  const codec = byteBodyCodec();
  codec.add(text);
  return codec.take();
}

function refusal(): TypeError {
  return new TypeError('Failed to fetch');
}

export function createOutgoingHook(deps: OutgoingHookDeps): OutgoingHook {
  /** The Requests built from a verdict → the verdict's id and, for a text format, its body. */
  const sent = weakMap<object, { id: string | undefined; text: string | undefined }>();
  const guard = async (
    request: OutgoingRequest,
    bytes: boolean,
    input: RequestInfo | URL,
    init: RequestInit | undefined,
  ): Promise<FetchArgs> => {
    let verdict: RequestVerdict;
    try {
      const body = bytes ? await bodyBytes(input, init) : await bodyText(input, init);
      verdict = await deps.guard(request, body);
    } catch {
      verdict = { send: false };
    }
    if (!verdict.send) throw refusal();
    // A new Request: the page's input and init keep what the page put in them (its
    // Request is cloned, so even its body stays unread).
    const base = new Request(input instanceof Request ? input.clone() : request.url, init);
    const guarded = new Request(base, { body: bytes ? bytesOf(verdict.body) : verdict.body });
    sent.set(guarded, { id: verdict.id, text: bytes ? undefined : verdict.body });
    return [guarded];
  };

  return {
    answered(input, status) {
      // WeakMap.get answers undefined for a key that is no object (a URL string).
      const id = sent.get(input as object)?.id;
      if (id !== undefined) deps.answered?.(id, status);
    },
    sentText: (input) => sent.get(input as object)?.text,
    prepare(input, init) {
      let request: OutgoingRequest;
      let bytes: boolean;
      try {
        const method = methodOf(input, init);
        if (method === 'GET' || method === 'HEAD') return undefined;
        const url = urlOf(input, deps.baseUrl());
        if (url === undefined) return undefined;
        const contentType = headersOf(input, init).get('content-type') ?? '';
        request = { url, method, contentType };
        const recogniser = recogniseRequest(request);
        if (recogniser === undefined) return undefined;
        bytes = recogniser.bytes === true;
      } catch {
        // Fail closed (DESIGN.md invariant: no silent path past the hooks): a decision that
        // threw — a site route missing from the bridge's table (page-site-routes.ts), a
        // method, URL or headers fetch itself would refuse — cannot tell a chat send from
        // any other, so nothing leaves unguarded; the page sees a network error.
        deps.undecided?.();
        return Promise.reject(refusal());
      }
      // The resolved URL (against the document's base, as fetch and XHR resolve it).
      return guard(request, bytes, input, init);
    },
  };
}
