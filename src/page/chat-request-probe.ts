/**
 * Issue 18 §1, in the page: does a request the fetch hook sees look like a chat
 * request (core/wire/requests/chat-request-shape.ts)? Then its answer is guarded
 * even when no adapter claims it by URL or content type: the generic adapter
 * reads it by its structure, and an answer it cannot decode is reported and
 * stopped (`WireProbe.chatRequest`).
 *
 * The body is read from a copy, never from the page's objects: a string as it
 * is, a `Blob`, buffer or form through a `Response` made of it, a `Request`
 * through a clone taken before the native `fetch` consumes it. A stream body
 * can be read only once: such a request counts as chat-shaped only by its
 * route. Bodies are read in full only up to `MAX_READ` bytes; of a longer one,
 * its first `HEAD_READ` bytes are searched for the keys chat clients send, so a
 * file upload is never read into memory.
 *
 * Built-ins are captured when this module is evaluated (document_start, before
 * any page script); an exception anywhere makes the answer `false`, the
 * verdict of every request before issue 18 (its answer then goes through the
 * adapters' own recognition as before).
 *
 * MAIN world: no extension APIs.
 */
import { aiSdkRequestShapeOfBody } from '../core/wire/requests/ai-sdk-request-shape.ts';
import { isChatRequest } from '../core/wire/requests/chat-request-shape.ts';
import type { RequestShape } from '../core/wire/wire-event.ts';
import {
  call,
  Decoder,
  Encoder,
  getOwnPropertyDescriptor,
  HeadersOf,
  NativeBlob,
  NativeHeaders,
  NativePromise,
  NativeReadableStream,
  NativeRequest,
  NativeTextDecoder,
  NativeTextEncoder,
  NativeUrl,
  RequestOf,
  UrlOf,
} from './intrinsics.ts';

const MAX_READ = 4 * 1024 * 1024;
const HEAD_READ = 64 * 1024;

const NativeFormData = FormData;
const NativeUrlSearchParams = URLSearchParams;
const isView = ArrayBuffer.isView;
const NativeArrayBuffer = ArrayBuffer;
const { clone: requestClone, blob: requestBlob } = NativeRequest.prototype;
const requestHeaders = getOwnPropertyDescriptor(NativeRequest.prototype, 'headers')!.get!;
const promiseThen = NativePromise.prototype.then;
const { text: blobText, slice: blobSlice } = NativeBlob.prototype;
const blobSize = getOwnPropertyDescriptor(NativeBlob.prototype, 'size')!.get!;
const formForEach = NativeFormData.prototype.forEach;
const paramsToString = NativeUrlSearchParams.prototype.toString;

/** The keys of a form that chat clients use for the person's text. */
const FORM_CHAT_KEY = /^(?:f\.req|messages?|prompt|input|query|question)$/;

/** What was read of a body: all of it, or only its start (`truncated`). */
interface BodyText {
  text: string;
  truncated: boolean;
}

const whole = (text: string): BodyText => ({ text, truncated: false });

/** Text of a Blob: whole when small, else its head (for the key search only). */
function blobBody(blob: Blob): Promise<BodyText> {
  const truncated = call<number>(blobSize, blob) > MAX_READ;
  const part = truncated ? call<Blob>(blobSlice, blob, 0, HEAD_READ) : blob;
  return call(promiseThen, call<Promise<string>>(blobText, part), (text: string) => ({
    text,
    truncated,
  }));
}

/**
 * What `bodyOf` would read back from a Request whose body is the string `text` (UTF-8
 * encoded, then read through a Blob and decoded: a lone surrogate becomes U+FFFD, a
 * leading BOM is dropped), without cloning the Request and reading it; undefined when
 * it would read only the body's start (over `MAX_READ` bytes). For a Request the
 * outgoing hook built itself (main-world.ts): cloning and reading it back was 2.5 ms and
 * an asynchronous Blob read before a page's first answer (issue 19 §4).
 */
export function requestBodyAsRead(text: string): string | undefined {
  const bytes = call<Uint8Array>(Encoder.encode, new NativeTextEncoder(), text);
  if (bytes.length > MAX_READ) return undefined;
  return call<string>(Decoder.decode, new NativeTextDecoder(), bytes);
}

/**
 * Starts reading what the request would send; resolves with the body text (or
 * undefined when it cannot be read). Must be called before the native `fetch`
 * is: that consumes a `Request`'s body.
 */
function bodyOf(
  input: RequestInfo | URL,
  init: RequestInit | undefined,
): Promise<BodyText | undefined> {
  const body = init?.body;
  if (body !== undefined && body !== null) {
    if (typeof body === 'string') return NativePromise.resolve(whole(body));
    if (body instanceof NativeReadableStream) return NativePromise.resolve(undefined);
    if (body instanceof NativeUrlSearchParams) {
      return NativePromise.resolve(whole(call<string>(paramsToString, body)));
    }
    if (body instanceof NativeFormData) {
      // Only the names and text fields: files are never read.
      let chat = false;
      call(formForEach, body, (value: unknown, key: string) => {
        if (typeof value === 'string' && FORM_CHAT_KEY.test(key)) chat = true;
      });
      return NativePromise.resolve(whole(chat ? 'prompt=form' : ''));
    }
    if (body instanceof NativeBlob) return blobBody(body);
    if (isView(body) || body instanceof NativeArrayBuffer) {
      const bytes = (body as ArrayBufferLike | ArrayBufferView).byteLength;
      const blob = new NativeBlob([body as BlobPart]);
      return bytes <= MAX_READ
        ? blobBody(blob)
        : blobBody(call<Blob>(blobSlice, blob, 0, HEAD_READ));
    }
    return NativePromise.resolve(undefined);
  }
  if (input instanceof NativeRequest) {
    const copy = call<Request>(requestClone, input);
    return call(promiseThen, call<Promise<Blob>>(requestBlob, copy), blobBody);
  }
  return NativePromise.resolve(whole(''));
}

export interface ChatRequestProbeOptions {
  /** The document's base URL (what fetch resolves relative URLs against). */
  baseUrl(): string;
  /**
   * Runs the synchronous verdict (the fetch hook passes the step that restores
   * the built-ins of document_start around it); called as is by default.
   */
  judge?<T>(decide: () => T): T;
  /**
   * A promise to wait on before judging, while the routes the verdict reads have not
   * arrived (page-site-routes.ts `siteRoutesReady`); undefined when there is none.
   */
  ready?(): Promise<void> | undefined;
}

/** What a request's route and body say about its answer (issue 18 §1, issue 20 §1). */
export interface RequestVerdict {
  /** The request looks like a chat request: its answer is guarded or reported. */
  chat: boolean;
  /** The AI SDK client the body comes from, by its shape (WIRE-FORMATS-2.md §1.2). */
  shape?: RequestShape;
}

const NOT_CHAT: RequestVerdict = { chat: false };

/**
 * Whether the request looks like a chat request, by its route at once, else by its
 * body once read; and, from the same read of the body, the AI SDK client it comes
 * from (the SDK has no fixed route: its answers are known by the request's shape).
 * Never rejects, never throws.
 */
export function requestVerdictOf(
  input: RequestInfo | URL,
  init: RequestInit | undefined,
  options: ChatRequestProbeOptions,
): Promise<RequestVerdict> {
  try {
    const isRequest = input instanceof NativeRequest;
    const method = `${init?.method ?? (isRequest ? call<string>(RequestOf.method, input) : 'GET')}`;
    const upper = method.toUpperCase();
    if (upper === 'GET' || upper === 'HEAD') return NativePromise.resolve(NOT_CHAT);
    const url = isRequest
      ? call<string>(RequestOf.url, input)
      : call<string>(UrlOf.href, new NativeUrl(`${input as string}`, options.baseUrl()));
    const headers =
      init?.headers !== undefined
        ? new NativeHeaders(init.headers)
        : isRequest
          ? call<Headers>(requestHeaders, input)
          : new NativeHeaders();
    const contentType = call<string | null>(HeadersOf.get, headers, 'content-type') ?? '';
    const request = { url, method, contentType };
    const judge = options.judge ?? (<T>(decide: () => T) => decide());
    const verdict = (body: BodyText | undefined): RequestVerdict => {
      try {
        return judge(() => {
          const chat = isChatRequest(request, body?.text, body?.truncated);
          const shape =
            body === undefined || body.truncated ? undefined : aiSdkRequestShapeOfBody(body.text);
          return shape === undefined ? { chat } : { chat, shape };
        });
      } catch {
        return NOT_CHAT;
      }
    };
    // A body that cannot be read counts as none, handled now (no unhandled rejection
    // the page could observe while the verdict waits for the routes).
    const body = call<Promise<BodyText | undefined>>(
      promiseThen,
      bodyOf(input, init),
      (text: BodyText | undefined) => text,
      () => undefined,
    );
    const waiting = options.ready?.();
    const read =
      waiting === undefined
        ? body
        : call<Promise<BodyText | undefined>>(promiseThen, waiting, () => body);
    return call(promiseThen, read, verdict, () => verdict(undefined));
  } catch {
    return NativePromise.resolve(NOT_CHAT);
  }
}

/** Whether the request looks like a chat request (`requestVerdictOf`'s `chat`). */
export function chatRequestOf(
  input: RequestInfo | URL,
  init: RequestInit | undefined,
  options: ChatRequestProbeOptions,
): Promise<boolean> {
  return call(promiseThen, requestVerdictOf(input, init, options), (v: RequestVerdict) => v.chat);
}

/**
 * The same verdict for a body at hand, synchronously (for `XMLHttpRequest.send(body)`):
 * a string, form or buffer is read (a buffer up to `MAX_READ` bytes, else its start);
 * a `Blob`, a document or a stream cannot be read synchronously, so such a request
 * counts by its route only. Never throws.
 */
export function isChatRequestBody(
  request: { url: string; method: string; contentType: string },
  body: unknown,
): boolean {
  try {
    if (body === undefined || body === null) return isChatRequest(request, undefined);
    if (typeof body === 'string') return isChatRequest(request, body);
    if (body instanceof NativeUrlSearchParams) {
      return isChatRequest(request, call<string>(paramsToString, body));
    }
    if (body instanceof NativeFormData) {
      let chat = false;
      call(formForEach, body, (value: unknown, key: string) => {
        if (typeof value === 'string' && FORM_CHAT_KEY.test(key)) chat = true;
      });
      return chat || isChatRequest(request, undefined);
    }
    if (isView(body) || body instanceof NativeArrayBuffer) {
      const view = isView(body)
        ? new Uint8Array(body.buffer, body.byteOffset, body.byteLength)
        : new Uint8Array(body);
      const truncated = view.byteLength > MAX_READ;
      const text = call<string>(
        Decoder.decode,
        new NativeTextDecoder(),
        truncated ? view.subarray(0, HEAD_READ) : view,
      );
      return isChatRequest(request, text, truncated);
    }
    return isChatRequest(request, undefined);
  } catch {
    return false;
  }
}
