/**
 * The send side of the XMLHttpRequest hook (issue 5): DeepSeek and Gemini web send
 * their prompts with XHR (WIRE-FORMATS.md §3, §4). `open`, `setRequestHeader` and
 * `send` are wrapped on the prototype (over whatever xhr-hook.ts installed, which
 * guards the answer); for a request the send hook recognises (outgoing-hook.ts), the
 * native `send` is called only once the guarded copy of the body is ready, with that
 * copy. The page's body object is never modified.
 *
 * Refused (blocked, cancelled, guard failed): the native request is never sent; the
 * instance is reset (`abort()` before send fires nothing) and the page gets `error`
 * then `loadend`, as for a network error. Synchronous requests cannot wait for the
 * person: a recognised one fails closed with a NetworkError at once, and the person is
 * told (`reportFailure`, issue 18 §3).
 *
 * Issue 18 §4: the built-ins it calls (`Reflect.apply`, the WeakMap, the event and
 * exception constructors) are captured at install (document_start, intrinsics.ts), so
 * page code that replaces them later cannot stop a plain send or release a raw copy.
 *
 * No extension APIs here.
 */
import { recogniseRequest } from '../core/wire/requests/request-recognisers.ts';
import { apply, weakMap } from './intrinsics.ts';
import { replaceMethod } from './native-patch.ts';
import type { OutgoingHook } from './outgoing-hook.ts';

export interface XhrOutgoingTarget {
  XMLHttpRequest: typeof XMLHttpRequest;
  ProgressEvent: typeof ProgressEvent;
  DOMException: typeof DOMException;
  EventTarget: typeof EventTarget;
  Function: FunctionConstructor;
}

interface OpenedRequest {
  method: string;
  url: string;
  async: boolean;
  headers: [string, string][];
}

export function installXhrOutgoingHook(
  target: XhrOutgoingTarget,
  hook: Pick<OutgoingHook, 'prepare'> &
    Partial<Pick<OutgoingHook, 'answered'>> & {
      /**
       * For a synchronous request, which cannot wait for anything: decided with what is at
       * hand (main-world.ts: page-site-routes.ts `decideNow`); `prepare` by default.
       */
      prepareNow?: OutgoingHook['prepare'];
    },
  reportFailure?: (hook: string, reason: string) => void,
): void {
  const proto = target.XMLHttpRequest.prototype;
  const opened = weakMap<XMLHttpRequest, OpenedRequest>();
  const nativeAbort = proto.abort;
  const nativeDispatch = target.EventTarget.prototype.dispatchEvent;
  const nativeListen = target.EventTarget.prototype.addEventListener;
  const { ProgressEvent, DOMException } = target;
  const NativeDocument = typeof Document === 'undefined' ? undefined : Document;
  type AnyMethod = (this: XMLHttpRequest, ...args: never[]) => unknown;

  replaceMethod<AnyMethod>(proto, 'open', target, (nativeOpen) => {
    return {
      open(this: XMLHttpRequest, ...args: unknown[]): void {
        apply(nativeOpen, this, args);
        opened.set(this, {
          method: `${args[0] as string}`,
          url: `${args[1] as string}`,
          async: args.length < 3 || !!args[2],
          headers: [],
        });
      },
    }.open as AnyMethod;
  });

  replaceMethod<AnyMethod>(proto, 'setRequestHeader', target, (nativeSetHeader) => {
    return {
      setRequestHeader(this: XMLHttpRequest, name: string, value: string): void {
        apply(nativeSetHeader, this, [name, value]);
        const headers = opened.get(this)?.headers;
        if (headers !== undefined) headers[headers.length] = [`${name}`, `${value}`];
      },
    }.setRequestHeader as AnyMethod;
  });

  const fail = (xhr: XMLHttpRequest) => {
    apply(nativeAbort, xhr, []);
    apply(nativeDispatch, xhr, [new ProgressEvent('error')]);
    apply(nativeDispatch, xhr, [new ProgressEvent('loadend')]);
  };

  replaceMethod<AnyMethod>(proto, 'send', target, (nativeSend) => {
    return {
      send(this: XMLHttpRequest, body?: Document | XMLHttpRequestBodyInit | null): void {
        const request = opened.get(this);
        let prepared: Promise<Parameters<typeof fetch>> | undefined;
        const isDocument = NativeDocument !== undefined && body instanceof NativeDocument;
        if (request !== undefined && body !== undefined && body !== null && !isDocument) {
          const init = { method: request.method, headers: request.headers, body: body as BodyInit };
          prepared =
            request.async || hook.prepareNow === undefined
              ? hook.prepare(request.url, init)
              : hook.prepareNow(request.url, init);
        }
        if (prepared === undefined) {
          apply(nativeSend, this, [body]);
          return;
        }
        if (request?.async === false) {
          prepared.catch(() => undefined);
          reportFailure?.('xhr', 'synchronous-send');
          throw new DOMException('Failed to execute send', 'NetworkError');
        }
        prepared
          .then(
            async ([guarded]) => {
              // A byte-level body (request-text.ts `bytes`: Kimi's Connect envelope) goes as bytes.
              const copy = guarded as Request;
              const probe = { url: copy.url, method: copy.method, contentType: '' };
              const bytes = recogniseRequest(probe)?.bytes === true;
              const body = bytes ? await copy.arrayBuffer() : await copy.text();
              apply(nativeSend, this, [body]);
              // Issue 20: the answer's status, as the fetch hook reports it (0: no answer).
              apply(nativeListen, this, ['loadend', () => hook.answered?.(copy, this.status)]);
            },
            () => fail(this),
          )
          // The page aborted or re-opened the request meanwhile: nothing is sent.
          .catch(() => undefined);
      },
    }.send as AnyMethod;
  });
}
