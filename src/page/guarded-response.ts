/**
 * The Response the page gets for a guarded answer: the original's body piped through a
 * guard, dressed like the original (status, statusText, headers less content-length and
 * content-encoding, `url`, `redirected`, `type`; see ../shared/TOOLCHAIN.md "Smaller
 * facts": `new Response()` resets the last three).
 *
 * Errors surface where the page expects them:
 * - the network failed or the page aborted (its AbortSignal): the page's reader rejects
 *   with the very error the native body raised (an SDK recognises its `AbortError`);
 * - the guard failed: fail closed, the page's reader rejects with a generic `TypeError`
 *   that carries no content, and no byte after the failure point reaches the page.
 * Cancelling the page's body cancels the guard and, through it, the network stream.
 *
 * MAIN world: no extension APIs.
 */

import {
  Body,
  call,
  defineProperties,
  getReader,
  HeadersOf,
  NativeHeaders,
  NativeReadableStream,
  NativeResponse,
  NativeTypeError,
  Reader,
  readChunk,
  Stream,
} from './intrinsics.ts';
import { disguiseAsNative } from './native-function.ts';

/** A byte-to-byte guard: a TransformStream, or any writable/readable pair. */
export type ByteGuard = ReadableWritablePair<Uint8Array, Uint8Array>;

/** Headers the browser already applied to the body; the new body has neither. */
export const STALE_HEADERS = ['content-length', 'content-encoding'];

/** The message of the error the page sees when the guard failed. Never holds content. */
export const GUARD_FAILURE_MESSAGE = 'Chat Stream Guard stopped this response: the guard failed';

export interface GuardedBodyHooks {
  /** The guard could not be built or failed mid-stream (the body is already errored). */
  onGuardFailure?(error: unknown): void;
}

/**
 * `source` piped through the guard `createGuard()` builds, as a byte stream (BYOB
 * readers work as on a network body). Nothing happens until the page first reads: the
 * guard is built then, and the source is locked then.
 */
export function guardedBody(
  source: ReadableStream<Uint8Array>,
  createGuard: () => ByteGuard,
  hooks: GuardedBodyHooks = {},
): ReadableStream<Uint8Array> {
  let guarded: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let upstreamFailure: { reason: unknown } | undefined;
  let failed = false;

  const fail = (error: unknown): never => {
    if (!failed) {
      failed = true;
      hooks.onGuardFailure?.(error);
    }
    throw new NativeTypeError(GUARD_FAILURE_MESSAGE);
  };

  const open = (): ReadableStreamDefaultReader<Uint8Array> => {
    if (guarded) return guarded;
    const upstream = getReader(source);
    // Re-reads the source so that its own errors (network, abort) can be told apart
    // from the guard's: they reach the page unchanged. (Dictionaries without a
    // prototype: a polluted Object.prototype adds no `type` or `size` to them.)
    const tapped = new NativeReadableStream<Uint8Array>(
      {
        __proto__: null,
        async pull(controller: ReadableStreamDefaultController<Uint8Array>) {
          let result: ReadableStreamReadResult<Uint8Array>;
          try {
            result = await readChunk(upstream);
          } catch (reason) {
            upstreamFailure = { reason };
            throw reason;
          }
          if (result.done) controller.close();
          else controller.enqueue(result.value);
        },
        cancel: (reason: unknown) => call(Reader.cancel, upstream, reason),
      } as UnderlyingDefaultSource<Uint8Array>,
      { __proto__: null, highWaterMark: 0 } as QueuingStrategy<Uint8Array>,
    );
    let guard: ByteGuard;
    try {
      guard = createGuard();
    } catch (error) {
      // Fail closed: not one raw byte of this body reaches the page.
      call<Promise<void>>(Stream.cancel, tapped, error).catch(() => undefined);
      return fail(error);
    }
    guarded = getReader(call<ReadableStream<Uint8Array>>(Stream.pipeThrough, tapped, guard));
    return guarded;
  };

  const byteSource = {
    __proto__: null,
    type: 'bytes',
    async pull(controller: ReadableByteStreamController) {
      const reader = open();
      for (;;) {
        let result: ReadableStreamReadResult<Uint8Array>;
        try {
          result = await readChunk(reader);
        } catch (reason) {
          if (upstreamFailure !== undefined && reason === upstreamFailure.reason) throw reason;
          return fail(reason);
        }
        if (result.done) {
          controller.close();
          // A pending BYOB request must be answered with zero bytes once closed.
          controller.byobRequest?.respond(0);
          return;
        }
        // A byte stream refuses empty chunks; read on instead (pull must deliver).
        if (result.value.byteLength > 0) {
          // Guards emit freshly encoded chunks, never shared memory.
          controller.enqueue(result.value as Uint8Array<ArrayBuffer>);
          return;
        }
      }
    },
    cancel(reason: unknown) {
      if (guarded) return call(Reader.cancel, guarded, reason);
      return call(Stream.cancel, source, reason);
    },
  } as UnderlyingByteSource;
  return new NativeReadableStream(byteSource);
}

/** What `new Response()` resets and a guarded Response must keep. */
interface ResponseOrigin {
  url: string;
  redirected: boolean;
  type: ResponseType;
}

/**
 * Defines `url`, `redirected` and `type` back on `copy` (own, read-only, like the
 * prototype getters they shadow), and a `clone()` that does the same on every clone:
 * the native `clone()` would build a Response with an empty `url` (a fidelity gap a
 * page using `res.clone().url` would see). The `clone` looks native (native-function.ts).
 */
function dressLike(copy: Response, origin: ResponseOrigin): Response {
  const nativeClone = Body.clone;
  const clone = {
    clone(this: Response): Response {
      return dressLike(call<Response>(nativeClone, this), origin);
    },
  }.clone;
  disguiseAsNative(clone, nativeClone);
  defineProperties(copy, {
    url: { value: origin.url, enumerable: true, configurable: true },
    redirected: { value: origin.redirected, enumerable: true, configurable: true },
    type: { value: origin.type, enumerable: true, configurable: true },
    clone: { value: clone, writable: true, enumerable: false, configurable: true },
  });
  return copy;
}

/** A Response like `original` whose body is `body` (metadata kept, see `dressLike`). */
export function responseLike(original: Response, body: ReadableStream<Uint8Array>): Response {
  const read = <T>(getter: keyof typeof Body) => call<T>(Body[getter], original);
  const headers = new NativeHeaders(read<Headers>('headers'));
  for (let i = 0; i < STALE_HEADERS.length; i++) call(HeadersOf.delete, headers, STALE_HEADERS[i]);
  const copy = new NativeResponse(body, {
    __proto__: null,
    status: read('status'),
    statusText: read('statusText'),
    headers,
  } as ResponseInit);
  return dressLike(copy, {
    url: read('url'),
    redirected: read('redirected'),
    type: read('type'),
  });
}
