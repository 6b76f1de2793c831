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
 * No extension APIs here.
 */
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
  hook: OutgoingHook,
  reportFailure?: (hook: string, reason: string) => void,
): void {
  const proto = target.XMLHttpRequest.prototype;
  const opened = new WeakMap<XMLHttpRequest, OpenedRequest>();
  const nativeAbort = proto.abort;
  const nativeDispatch = target.EventTarget.prototype.dispatchEvent;
  type AnyMethod = (this: XMLHttpRequest, ...args: never[]) => unknown;

  replaceMethod<AnyMethod>(proto, 'open', target, (nativeOpen) => {
    return {
      open(this: XMLHttpRequest, ...args: unknown[]): void {
        Reflect.apply(nativeOpen, this, args);
        opened.set(this, {
          method: String(args[0]),
          url: String(args[1]),
          async: args.length < 3 || Boolean(args[2]),
          headers: [],
        });
      },
    }.open as AnyMethod;
  });

  replaceMethod<AnyMethod>(proto, 'setRequestHeader', target, (nativeSetHeader) => {
    return {
      setRequestHeader(this: XMLHttpRequest, name: string, value: string): void {
        Reflect.apply(nativeSetHeader, this, [name, value]);
        opened.get(this)?.headers.push([String(name), String(value)]);
      },
    }.setRequestHeader as AnyMethod;
  });

  const fail = (xhr: XMLHttpRequest) => {
    Reflect.apply(nativeAbort, xhr, []);
    for (const type of ['error', 'loadend']) {
      Reflect.apply(nativeDispatch, xhr, [new target.ProgressEvent(type)]);
    }
  };

  replaceMethod<AnyMethod>(proto, 'send', target, (nativeSend) => {
    return {
      send(this: XMLHttpRequest, body?: Document | XMLHttpRequestBodyInit | null): void {
        const request = opened.get(this);
        let prepared: Promise<Parameters<typeof fetch>> | undefined;
        const isDocument = typeof Document !== 'undefined' && body instanceof Document;
        if (request !== undefined && body !== undefined && body !== null && !isDocument) {
          prepared = hook.prepare(request.url, {
            method: request.method,
            headers: request.headers,
            body: body as BodyInit,
          });
        }
        if (prepared === undefined) {
          Reflect.apply(nativeSend, this, [body]);
          return;
        }
        if (request?.async === false) {
          prepared.catch(() => undefined);
          reportFailure?.('xhr', 'synchronous-send');
          throw new target.DOMException('Failed to execute send', 'NetworkError');
        }
        prepared
          .then(
            async ([guarded]) => {
              const text = await (guarded as Request).text();
              Reflect.apply(nativeSend, this, [text]);
            },
            () => fail(this),
          )
          // The page aborted or re-opened the request meanwhile: nothing is sent.
          .catch(() => undefined);
      },
    }.send as AnyMethod;
  });
}
