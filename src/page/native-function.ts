/**
 * Makes a replacement for a built-in function look like the built-in: same `name` and
 * `length`, and `Function.prototype.toString` answers the original's source text
 * (`function fetch() { [native code] }`). Pages and libraries (Sentry, analytics,
 * anti-bot scripts) probe `fetch` this way and change behaviour when it looks wrapped.
 *
 * MAIN world only; no extension APIs. One toString patch per realm, shared by every
 * disguised function.
 */

import { apply, type AnyFunction, weakMap } from './intrinsics.ts';

interface DisguiseRegistry {
  originals: ReturnType<typeof weakMap<AnyFunction, AnyFunction>>;
}

interface RealmGlobals {
  Function: FunctionConstructor;
}

/**
 * realm → its registry. Kept in this module, not on the page's global object, so the
 * page can neither see a marker property nor reach the table of originals.
 */
const REGISTRIES = weakMap<RealmGlobals, DisguiseRegistry>();

function registry(realm: RealmGlobals): DisguiseRegistry {
  const existing = REGISTRIES.get(realm);
  if (existing) return existing;
  const originals = weakMap<AnyFunction, AnyFunction>();
  const proto = realm.Function.prototype;
  const nativeToString = proto.toString;
  // A method-shorthand function has no `prototype` and is not a constructor, like the built-in.
  const replacement = {
    toString(this: unknown): string {
      const target =
        typeof this === 'function' ? (originals.get(this as AnyFunction) ?? this) : this;
      return apply(nativeToString, target, []) as string;
    },
  }.toString;
  originals.set(replacement, nativeToString);
  copyNameAndLength(replacement, nativeToString);
  const descriptor = Object.getOwnPropertyDescriptor(proto, 'toString');
  Object.defineProperty(proto, 'toString', {
    value: replacement,
    writable: descriptor?.writable ?? true,
    enumerable: descriptor?.enumerable ?? false,
    configurable: descriptor?.configurable ?? true,
  });
  const created: DisguiseRegistry = { originals };
  REGISTRIES.set(realm, created);
  return created;
}

function copyNameAndLength(target: AnyFunction, source: AnyFunction): void {
  for (const key of ['name', 'length'] as const) {
    const descriptor = Object.getOwnPropertyDescriptor(source, key);
    if (descriptor) Object.defineProperty(target, key, descriptor);
  }
}

/**
 * Gives `replacement` the name, length and source text of `original`. `realm` is the
 * global object whose `Function.prototype.toString` is patched (the page's window).
 */
export function disguiseAsNative<F extends AnyFunction>(
  replacement: F,
  original: AnyFunction,
  realm: RealmGlobals = globalThis as unknown as RealmGlobals,
): F {
  const { originals } = registry(realm);
  // Inherit from the realm's Function.prototype (it already does when defined in the
  // page's own world), so `String(fn)` and `fn instanceof Function` behave as there.
  Object.setPrototypeOf(replacement, realm.Function.prototype);
  copyNameAndLength(replacement, original);
  originals.set(replacement, originals.get(original) ?? original);
  return replacement;
}
