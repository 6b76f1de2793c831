/**
 * Replacing built-in constructors, accessors and methods of the page's world so that the
 * replacement looks like the built-in (native-function.ts): same `name`, `length` and
 * source text, same property flags, and for a constructor the very same `prototype`
 * object, so `instanceof`, subclassing (`class X extends XMLHttpRequest`), static
 * constants and `prototype.constructor` keep working.
 *
 * Why a constructor wrapper rather than prototype patches alone: the hooks must register
 * their own event listener on each instance BEFORE any page code can, so that listener
 * runs first and can hold a native event back (stopImmediatePropagation) until the guard
 * has decided the text it carries. Only the constructor sees the instance that early.
 *
 * MAIN world only; no extension APIs.
 */

import { apply, type AnyFunction } from './intrinsics.ts';
import { disguiseAsNative } from './native-function.ts';

const { construct } = Reflect;
type Constructor = abstract new (...args: never[]) => object;

interface RealmGlobals {
  Function: FunctionConstructor;
}

/**
 * Replaces `holder[key]` (a built-in constructor) by one that constructs the native
 * object and hands it to `onConstruct` before returning it. Calling it without `new`
 * throws the native TypeError (the native constructor is called the same way).
 * Returns the native constructor.
 */
export function replaceConstructor<C extends Constructor>(
  holder: object,
  key: string,
  realm: RealmGlobals,
  onConstruct: (instance: InstanceType<C>) => void,
): C {
  const native = Reflect.get(holder, key) as C;
  const replacement = function (this: unknown, ...args: unknown[]): unknown {
    if (new.target === undefined) return apply(native as never, this, args);
    const instance = construct(native, args, new.target) as InstanceType<C>;
    onConstruct(instance);
    return instance;
  };
  disguiseAsNative(replacement as AnyFunction, native as unknown as AnyFunction, realm);
  // Same parent as the built-in (XMLHttpRequestEventTarget, EventTarget…), and the
  // built-in's own statics (XMLHttpRequest.DONE, WebSocket.OPEN…) copied over.
  Object.setPrototypeOf(replacement, Object.getPrototypeOf(native) as object | null);
  for (const own of Reflect.ownKeys(native)) {
    if (own === 'length' || own === 'name' || own === 'prototype') continue;
    const descriptor = Object.getOwnPropertyDescriptor(native, own);
    if (descriptor) Object.defineProperty(replacement, own, descriptor);
  }
  const proto = (native as unknown as { prototype: object }).prototype;
  // Built-in classes have a non-writable, non-configurable `prototype`.
  Object.defineProperty(replacement, 'prototype', {
    value: proto,
    writable: false,
    enumerable: false,
    configurable: false,
  });
  const constructorDescriptor = Object.getOwnPropertyDescriptor(proto, 'constructor');
  Object.defineProperty(proto, 'constructor', {
    value: replacement,
    writable: constructorDescriptor?.writable ?? true,
    enumerable: constructorDescriptor?.enumerable ?? false,
    configurable: constructorDescriptor?.configurable ?? true,
  });
  replaceOwnValue(holder, key, replacement);
  return native;
}

function replaceOwnValue(holder: object, key: string, value: unknown): void {
  const descriptor = Object.getOwnPropertyDescriptor(holder, key);
  if (descriptor && 'value' in descriptor) {
    Object.defineProperty(holder, key, { ...descriptor, value });
  } else {
    Reflect.set(holder, key, value);
  }
}

/** A native accessor's getter and setter, to call with `Reflect.apply`. */
export interface NativeAccessor {
  get: (this: unknown) => unknown;
  set: ((this: unknown, value: unknown) => void) | undefined;
}

/**
 * Replaces the getter (and, when `makeSetter` is given, the setter) of the accessor
 * `key` on `proto`. The replacements receive the native pair to delegate to.
 */
export function replaceAccessor(
  proto: object,
  key: string,
  realm: RealmGlobals,
  makeGetter: (native: NativeAccessor) => (this: unknown) => unknown,
  makeSetter?: (native: NativeAccessor) => (this: unknown, value: unknown) => void,
): NativeAccessor {
  const descriptor = Object.getOwnPropertyDescriptor(proto, key);
  if (!descriptor?.get) throw new TypeError(`${key} is not an accessor`);
  const native: NativeAccessor = {
    get: descriptor.get as NativeAccessor['get'],
    set: descriptor.set as NativeAccessor['set'],
  };
  // Method shorthand: like a built-in getter, no `prototype` and not a constructor.
  const innerGetter = makeGetter(native);
  const getter = {
    get(this: unknown): unknown {
      return apply(innerGetter, this, []);
    },
  }.get;
  disguiseAsNative(getter as AnyFunction, descriptor.get as AnyFunction, realm);
  let setter = descriptor.set;
  if (makeSetter && descriptor.set) {
    const innerSetter = makeSetter(native);
    setter = {
      set(this: unknown, value: unknown): void {
        apply(innerSetter, this, [value]);
      },
    }.set;
    disguiseAsNative(setter as AnyFunction, descriptor.set as AnyFunction, realm);
  }
  Object.defineProperty(proto, key, { ...descriptor, get: getter, set: setter });
  return native;
}

/** Replaces the method `key` of `proto`; `make` receives the native method. */
export function replaceMethod<F extends AnyFunction>(
  proto: object,
  key: string,
  realm: RealmGlobals,
  make: (native: F) => F,
): F {
  const native = Reflect.get(proto, key) as F;
  const replacement = make(native);
  disguiseAsNative(replacement, native, realm);
  replaceOwnValue(proto, key, replacement);
  return native;
}
