/**
 * A stand-in for the browser's XMLHttpRequest, for Node (which has none), shaped like the
 * real one where the hook touches it: response members are accessors on the prototype,
 * `on*` handler properties register a listener when first set (so they run after
 * listeners added before), events fire in the order of the XHR standard ("process
 * response body chunk", "handle response end-of-body", "request error steps", `abort()`).
 * The test drives the network side with `respond`, `receive`, `finish` and `failNetwork`;
 * a synchronous request is answered inside `send()` with what `answerSynchronously` set.
 * Binary response types (`arraybuffer`, `blob`) give the UTF-8 bytes of the text at DONE.
 */

export class FakeProgressEvent extends Event {
  readonly lengthComputable: boolean;
  readonly loaded: number;
  readonly total: number;
  constructor(type: string, init: ProgressEventInit = {}) {
    super(type, init);
    this.lengthComputable = init.lengthComputable ?? false;
    this.loaded = init.loaded ?? 0;
    this.total = init.total ?? 0;
  }
}

/** Base class per realm, so a hook patching EventTarget.prototype touches only this one. */
export class FakeEventTarget extends EventTarget {}

type Handler = ((this: EventTarget, event: Event) => unknown) | null;

interface Network {
  status: number;
  statusText: string;
  headers: [string, string][];
  url: string;
  text: string;
  error: boolean;
}

const HANDLERS = ['readystatechange', 'progress', 'load', 'loadend', 'error', 'abort'] as const;

/** A fresh XMLHttpRequest-like class (each hook install patches its own prototype). */
export function createFakeXhrClass() {
  class FakeXhr extends FakeEventTarget {
    declare readonly readyState: number;
    declare readonly status: number;
    declare readonly statusText: string;
    declare readonly responseURL: string;
    declare responseType: XMLHttpRequestResponseType;
    declare readonly responseText: string;
    declare readonly response: unknown;
    declare onreadystatechange: Handler;
    declare onprogress: Handler;
    declare onload: Handler;
    declare onloadend: Handler;
    declare onerror: Handler;
    declare onabort: Handler;

    static readonly UNSENT = 0;
    static readonly OPENED = 1;
    static readonly HEADERS_RECEIVED = 2;
    static readonly LOADING = 3;
    static readonly DONE = 4;

    /** Every FakeXhr constructed, newest last (the test's handle on the network side). */
    static readonly instances: FakeXhr[] = [];

    #state = 0;
    #type: XMLHttpRequestResponseType = '';
    #sendFlag = false;
    #net: Network = { status: 0, statusText: '', headers: [], url: '', text: '', error: false };
    #handlers = new Map<string, { current: Handler }>();
    /** What `open` received (method, url, async). */
    opened: { method: string; url: string; async: boolean } | undefined;
    /** True once the request was aborted (by the page or the hook). */
    aborted = false;
    #sync: { status: number; headers: Record<string, string>; text: string } | undefined;
    /** The binary `response` once made (the browser returns the same object). */
    #typed: unknown;

    constructor() {
      super();
      FakeXhr.instances.push(this);
    }

    open(method: string, url: string, async = true): void {
      this.opened = { method, url, async };
      this.requestHeaders = [];
      this.#net = { status: 0, statusText: '', headers: [], url: '', text: '', error: false };
      this.#sendFlag = false;
      this.#state = 1;
      this.dispatchEvent(new Event('readystatechange'));
    }

    /** Headers the page set, in order. */
    requestHeaders: [string, string][] = [];

    setRequestHeader(name: string, value: string): void {
      if (this.#state !== 1 || this.#sendFlag) {
        throw new DOMException('not opened', 'InvalidStateError');
      }
      this.requestHeaders.push([String(name), String(value)]);
    }

    send(_body?: unknown): void {
      if (this.#state !== 1) throw new DOMException('not opened', 'InvalidStateError');
      if (this.opened?.async === false) {
        // Synchronous (XHR "send" step 12): no loadstart, no progress, no state 2 or 3 events.
        const answer = this.#sync;
        if (answer === undefined) throw new DOMException('no answer', 'NetworkError');
        this.#net = {
          status: answer.status,
          statusText: answer.status === 200 ? 'OK' : 'Other',
          headers: Object.entries(answer.headers),
          url: '',
          text: answer.text,
          error: false,
        };
        this.#typed = undefined;
        this.#state = 4;
        this.dispatchEvent(new Event('readystatechange'));
        const loaded = answer.text.length;
        this.dispatchEvent(new FakeProgressEvent('load', { loaded }));
        this.dispatchEvent(new FakeProgressEvent('loadend', { loaded }));
        return;
      }
      this.#sendFlag = true;
      this.dispatchEvent(new FakeProgressEvent('loadstart'));
    }

    /** What the server answers a synchronous request (call before `send()`). */
    answerSynchronously(status: number, headers: Record<string, string>, text: string): void {
      this.#sync = { status, headers, text };
    }

    abort(): void {
      this.aborted = true;
      if ((this.#state === 1 && this.#sendFlag) || this.#state === 2 || this.#state === 3) {
        this.#errorSteps('abort');
      }
      if (this.#state === 4) {
        this.#state = 0;
        this.#net.text = '';
      }
    }

    getResponseHeader(name: string): string | null {
      if (this.#state < 2 || this.#net.error) return null;
      const values = this.#net.headers
        .filter(([key]) => key.toLowerCase() === name.toLowerCase())
        .map(([, value]) => value);
      return values.length === 0 ? null : values.join(', ');
    }

    getAllResponseHeaders(): string {
      if (this.#state < 2 || this.#net.error) return '';
      return this.#net.headers.map(([k, v]) => `${k.toLowerCase()}: ${v}\r\n`).join('');
    }

    // --- the network side, driven by the test -------------------------------------------

    respond(status: number, headers: Record<string, string>, url = ''): void {
      this.#typed = undefined;
      this.#net.status = status;
      this.#net.statusText = status === 200 ? 'OK' : 'Other';
      this.#net.headers = Object.entries(headers);
      this.#net.url = url;
      this.#state = 2;
      this.dispatchEvent(new Event('readystatechange'));
    }

    receive(text: string): void {
      if (this.#state !== 2 && this.#state !== 3) return;
      this.#net.text += text;
      this.#state = 3;
      this.dispatchEvent(new Event('readystatechange'));
      this.dispatchEvent(new FakeProgressEvent('progress', { loaded: this.#net.text.length }));
    }

    finish(): void {
      if (this.#state !== 2 && this.#state !== 3) return;
      const loaded = this.#net.text.length;
      this.dispatchEvent(new FakeProgressEvent('progress', { loaded }));
      this.#state = 4;
      this.#sendFlag = false;
      this.dispatchEvent(new Event('readystatechange'));
      this.dispatchEvent(new FakeProgressEvent('load', { loaded }));
      this.dispatchEvent(new FakeProgressEvent('loadend', { loaded }));
    }

    failNetwork(): void {
      if (this.#state !== 2 && this.#state !== 3) return;
      this.#errorSteps('error');
    }

    #errorSteps(type: 'error' | 'abort'): void {
      this.#state = 4;
      this.#sendFlag = false;
      this.#net.error = true;
      this.#net.status = 0;
      this.#net.text = '';
      this.dispatchEvent(new Event('readystatechange'));
      this.dispatchEvent(new FakeProgressEvent(type));
      this.dispatchEvent(new FakeProgressEvent('loadend'));
    }

    static {
      const accessors: Record<string, PropertyDescriptor> = {
        readyState: {
          get(this: FakeXhr) {
            return this.#state;
          },
        },
        status: {
          get(this: FakeXhr) {
            return this.#state < 2 ? 0 : this.#net.status;
          },
        },
        statusText: {
          get(this: FakeXhr) {
            return this.#state < 2 || this.#net.error ? '' : this.#net.statusText;
          },
        },
        responseURL: {
          get(this: FakeXhr) {
            return this.#net.url;
          },
        },
        responseType: {
          get(this: FakeXhr) {
            return this.#type;
          },
          set(this: FakeXhr, value: XMLHttpRequestResponseType) {
            if (this.#state === 3 || this.#state === 4) {
              throw new DOMException('too late', 'InvalidStateError');
            }
            if (['', 'text', 'json', 'arraybuffer', 'blob', 'document'].includes(value)) {
              this.#type = value;
            }
          },
        },
        responseText: {
          get(this: FakeXhr) {
            if (this.#type !== '' && this.#type !== 'text') {
              throw new DOMException('wrong type', 'InvalidStateError');
            }
            return this.#state === 3 || this.#state === 4 ? this.#net.text : '';
          },
        },
        response: {
          get(this: FakeXhr) {
            if (this.#type === '' || this.#type === 'text') {
              return this.#state === 3 || this.#state === 4 ? this.#net.text : '';
            }
            if (this.#state !== 4 || this.#net.error) return null;
            if (this.#type === 'json') {
              try {
                return JSON.parse(this.#net.text) as unknown;
              } catch {
                return null;
              }
            }
            if (this.#typed === undefined) {
              const bytes = new TextEncoder().encode(this.#net.text);
              const type = this.getResponseHeader('content-type') ?? '';
              if (this.#type === 'arraybuffer') this.#typed = bytes.buffer;
              else if (this.#type === 'blob') this.#typed = new Blob([bytes], { type });
              else return null;
            }
            return this.#typed;
          },
        },
      };
      for (const type of HANDLERS) {
        accessors[`on${type}`] = {
          get(this: FakeXhr) {
            return this.#handlers.get(type)?.current ?? null;
          },
          set(this: FakeXhr, handler: Handler) {
            let slot = this.#handlers.get(type);
            if (!slot) {
              const created = { current: handler };
              slot = created;
              this.#handlers.set(type, created);
              this.addEventListener(type, (event) => created.current?.call(this, event));
            }
            slot.current = handler;
          },
        };
      }
      for (const [key, descriptor] of Object.entries(accessors)) {
        Object.defineProperty(FakeXhr.prototype, key, {
          ...descriptor,
          enumerable: true,
          configurable: true,
        });
      }
    }
  }
  return FakeXhr;
}

export type FakeXhrClass = ReturnType<typeof createFakeXhrClass>;
export type FakeXhr = InstanceType<FakeXhrClass>;
