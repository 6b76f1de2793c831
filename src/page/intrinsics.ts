/**
 * The built-ins the MAIN world's hooks and its port use, captured when this module is
 * evaluated: main-world.ts reaches it first, at document_start, before any page script
 * runs (issue 18 §4). Page code shares this world and may later replace globals
 * (web-streams-polyfill replaces `ReadableStream`; a `TextDecoder` polyfill may throw;
 * zone.js replaces `Promise`; core-js may replace `RegExp.prototype.exec`) or pollute
 * `Object.prototype`. The hooks read none of those afterwards:
 *
 * - Constructors, `Reflect`, `Object` and `JSON` functions, and the platform's prototype
 *   methods and getters the hooks call (streams, `Response`, `Headers`, `TextDecoder`,
 *   events' `data`…) are taken from here and called with `call`.
 * - A decision (is this response a chat answer?) runs inside `pristine`: the recognisers
 *   (core/wire) use regular expressions, string and array methods and property lookups,
 *   so for the time of that synchronous call the language's prototypes are put back as
 *   they were at document_start, and keys the page added to them are taken off.
 * - What the hooks hand to the platform as a dictionary (event inits, underlying
 *   sources) has no prototype, so a polluted `Object.prototype` adds no member to it.
 *
 * Language built-ins used while a guarded answer streams (string and typed-array
 * methods) are not captured: replacing them changes only what the guard is given,
 * never what the page gets, which comes from the guard alone; and any exception there
 * fails the stream closed (the hooks' failure paths).
 *
 * MAIN world: no extension APIs.
 */

export type AnyFunction = (...args: never[]) => unknown;

export const { apply, defineProperty, deleteProperty, getOwnPropertyDescriptor, ownKeys } = Reflect;
export const { assign, create, defineProperties, getPrototypeOf, setPrototypeOf } = Object;
export const { isArray } = Array;
export const jsonParse = JSON.parse;

export const NativeReadableStream = ReadableStream;
export const NativeWritableStream = WritableStream;
export const NativeResponse = Response;
export const NativeHeaders = Headers;
export const NativeTextDecoder = TextDecoder;
export const NativeTextEncoder = TextEncoder;
export const NativeTypeError = TypeError;
export const NativeUrl = URL;
export const NativePromise = Promise;
export const NativeDomException = DOMException;
export const NativeBlob = Blob;
export const NativeUint8Array = Uint8Array;
/** Uint8Array.prototype.slice as at document_start (call with `apply`). */
export const sliceBytes = Uint8Array.prototype.slice;
const NativeWeakMap = WeakMap;
const NativeWeakSet = WeakSet;

/** `fn` called on `self` with `args` (a captured method, never the object's current one). */
export const call = <R = unknown>(fn: AnyFunction, self: unknown, ...args: unknown[]): R =>
  apply(fn, self, args) as R;

/** The methods and getters `keys` of `proto` as they are now, in a table nothing inherits into. */
function members<K extends string>(proto: object, keys: K[]): Record<K, AnyFunction> {
  const table = create(null) as Record<K, AnyFunction>;
  for (const key of keys) {
    const descriptor = getOwnPropertyDescriptor(proto, key);
    table[key] = (descriptor?.get ?? descriptor?.value) as AnyFunction;
  }
  return table;
}

const readerProto = getPrototypeOf(new ReadableStream().getReader()) as object;
const writerProto = getPrototypeOf(new WritableStream().getWriter()) as object;

export const Stream = members(ReadableStream.prototype, ['getReader', 'pipeThrough', 'cancel']);
export const Reader = members(readerProto, ['read', 'cancel']);
export const WritableOf = members(WritableStream.prototype, ['getWriter']);
export const Writer = members(writerProto, ['write', 'close', 'abort']);
export const Body = members(Response.prototype, [
  'body',
  'headers',
  'status',
  'statusText',
  'url',
  'redirected',
  'type',
  'clone',
]);
export const HeadersOf = members(Headers.prototype, ['get', 'delete']);
export const RequestOf = members(Request.prototype, ['url', 'method']);
export const NativeRequest = Request;
export const Decoder = members(TextDecoder.prototype, ['decode']);
/** A typed array's `buffer` getter (on %TypedArray%.prototype). */
export const BytesOf = members(getPrototypeOf(Uint8Array.prototype) as object, ['buffer']);
export const Encoder = members(TextEncoder.prototype, ['encode', 'encodeInto']);
export const UrlOf = members(URL.prototype, ['href', 'origin', 'pathname']);
export const BlobOf = members(Blob.prototype, ['arrayBuffer', 'type']);

const WeakMapOf = members(NativeWeakMap.prototype, ['get', 'set', 'has']);

/** A WeakMap whose methods the page cannot replace. */
export function weakMap<K extends object, V>() {
  const map = new NativeWeakMap<K, V>();
  const { get, set, has } = WeakMapOf;
  return {
    get: (key: K) => call<V | undefined>(get, map, key),
    set: (key: K, value: V) => void call(set, map, key, value),
    has: (key: K) => call<boolean>(has, map, key),
  };
}

/** Decoder options: UTF-8 with its byte-order mark kept in the text (re-emitted as sent). */
export const KEEP_BOM = { __proto__: null, ignoreBOM: true } as TextDecoderOptions;
/** Decoding options for one chunk of a stream. */
export const STREAM = { __proto__: null, stream: true } as TextDecodeOptions;

const WeakSetOf = members(NativeWeakSet.prototype, ['add', 'has']);

/** A WeakSet whose methods the page cannot replace. */
export function weakSet<T extends object>() {
  const set = new NativeWeakSet<T>();
  const { add, has } = WeakSetOf;
  return {
    add: (value: T) => void call(add, set, value),
    has: (value: T) => call<boolean>(has, set, value),
  };
}

/** Event members the hooks read: `type`, and a message's `data`, `origin` and `lastEventId`. */
export const EventOf = members(Event.prototype, ['type', 'stopImmediatePropagation']);
export const MessageOf = members(MessageEvent.prototype, ['data', 'origin', 'lastEventId']);
export const eventType = (event: Event) => call<string>(EventOf.type, event);

/** Chunks read from a body: `read()` through the captured method. */
export const readChunk = <T>(reader: ReadableStreamDefaultReader<T>) =>
  call<Promise<ReadableStreamReadResult<T>>>(Reader.read, reader);

export const getReader = <T>(stream: ReadableStream<T>) =>
  call<ReadableStreamDefaultReader<T>>(Stream.getReader, stream);

export const decodeText = (
  decoder: TextDecoder,
  bytes?: AllowSharedBufferSource,
  options?: TextDecodeOptions,
) => call<string>(Decoder.decode, decoder, bytes, options);

// --- Decisions with the language's built-ins as they were -------------------------------

/** The objects whose members a decision may use (recognisers: strings, regexes, arrays, JSON). */
const ObjectPrototype = Object.prototype;
const LANGUAGE = [
  ObjectPrototype,
  Object,
  Array.prototype,
  Array,
  getPrototypeOf([][Symbol.iterator]()) as object,
  String.prototype,
  RegExp.prototype,
  JSON,
  Map.prototype,
  Set.prototype,
];

interface Snapshot {
  target: object;
  keys: PropertyKey[];
  /** key → its descriptor then, in a table without a prototype. */
  was: Record<PropertyKey, PropertyDescriptor>;
}

/** Taken by `snapshotLanguage()` (main-world.ts, at document_start), or at the first `pristine`. */
let snapshots: Snapshot[] | undefined;

export function snapshotLanguage(): void {
  snapshots = [];
  for (let i = 0; i < LANGUAGE.length; i++) {
    const target = LANGUAGE[i]!;
    const keys = ownKeys(target);
    const was = create(null) as Record<PropertyKey, PropertyDescriptor>;
    for (let k = 0; k < keys.length; k++)
      was[keys[k]!] = getOwnPropertyDescriptor(target, keys[k]!)!;
    snapshots[i] = { target, keys, was };
  }
}

/**
 * Runs `decide` (synchronous, on data the hooks built: no page object's code runs in it)
 * with the language's built-ins as they were at document_start: members the page replaced
 * or removed are put back, members it added to Object.prototype are taken off, and all is
 * undone afterwards,
 * before anything else can run. A replaced member that cannot be put back (the page made
 * it non-configurable) throws: the decision fails, and the hook fails closed. An added
 * member that cannot be taken off stays (it can only make absent fields look present).
 */
export function pristine<T>(decide: () => T): T {
  if (snapshots === undefined) snapshotLanguage();
  const shots = snapshots!;
  // No prototype: writing an entry meets no setter the page put on Array.prototype.
  const undo = create(null) as Record<
    number,
    [object, PropertyKey, PropertyDescriptor | undefined]
  >;
  let undone = 0;
  try {
    for (let i = 0; i < shots.length; i++) {
      const { target, keys, was } = shots[i]!;
      for (let k = 0; k < keys.length; k++) {
        const key = keys[k]!;
        const then = was[key]!;
        const now = getOwnPropertyDescriptor(target, key);
        if (now && now.value === then.value && now.get === then.get && now.set === then.set) {
          continue;
        }
        if (defineProperty(target, key, then)) undo[undone++] = [target, key, now];
        // Replaced for good: a decision could lie. (Removed for good, as by a hardened
        // JavaScript lockdown, it could only throw: the decision fails closed then.)
        else if (now) throw new NativeTypeError('intrinsics');
      }
      // Keys added elsewhere are never looked up: only Object.prototype's reach every object.
      if (target !== ObjectPrototype) continue;
      const current = ownKeys(target);
      if (current.length === keys.length) continue;
      for (let k = 0; k < current.length; k++) {
        const key = current[k]!;
        if (getOwnPropertyDescriptor(was, key) !== undefined) continue;
        const now = getOwnPropertyDescriptor(target, key);
        if (deleteProperty(target, key)) undo[undone++] = [target, key, now];
      }
    }
    return decide();
  } finally {
    while (undone > 0) {
      const entry = undo[--undone]!;
      if (entry[2] === undefined) deleteProperty(entry[0], entry[1]);
      else defineProperty(entry[0], entry[1], entry[2]);
    }
  }
}
