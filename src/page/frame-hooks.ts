/**
 * Issue 18 §2 (every context): the hooks in same-origin child windows the page creates
 * and uses before any content script can run in them.
 *
 * The registration's origin fallback (src/background/script-registration.ts) runs the
 * MAIN-world script in about:blank, srcdoc and blob: frames, but only once the browser
 * gets to it: a page can append an iframe and call `frame.contentWindow.fetch(...)` in
 * the same task, while the frame still holds its initial about:blank document, whose
 * `fetch` is the browser's own. So the parent's MAIN world installs the same hooks (the
 * same options: the same private channel, the parent's notices and audit records) into
 * a child window the first time the page can reach it:
 * - the `contentWindow` and `contentDocument` getters of iframes, frames and objects;
 * - `window.open` (a same-origin popup, `window.open('')` included);
 * - the load event of a frame, captured on the document: Chromium fires it
 *   synchronously when an about:blank iframe is inserted, which covers
 *   `window[0].fetch(...)` (an indexed access no getter sees) right after `appendChild`;
 *   Firefox fires it in a later task.
 * Cross-origin windows are left alone (their own MAIN-world script hooks them, if their
 * site is switched on). Each realm is hooked once, by whichever comes first: this or
 * the frame's own MAIN-world script (`claimWindow`).
 *
 * Everything a hook in a child window decides fails closed as in the page: the hooks
 * are the same code. A child whose hooks could not be installed is reported
 * (`hook-failed`), never left silently unhooked.
 *
 * MAIN world only; no extension APIs.
 */

import {
  apply,
  call,
  defineProperty,
  getOwnPropertyDescriptor,
  getPrototypeOf,
  type AnyFunction,
} from './intrinsics.ts';
import { replaceAccessor, replaceMethod } from './native-patch.ts';

export type PageWindow = Window & typeof globalThis;

/**
 * The mark of a realm whose hooks are in. A registered symbol, because the frame's own
 * MAIN-world script is another bundle instance and must see it too; non-enumerable.
 * Setting it first only switches the guard off in that frame, which page code can do
 * anyway (a malicious site is out of scope, DESIGN.md §1).
 */
const HOOKED = Symbol.for('chat-stream-guard.hooked');

/**
 * Claims `win` for hooking: true once, for the first caller; false when it is already
 * hooked or cannot be reached (cross-origin: the access throws).
 */
export function claimWindow(win: unknown): boolean {
  try {
    if (win === null || typeof win !== 'object') return false;
    if (getOwnPropertyDescriptor(win, HOOKED) !== undefined) return false;
    return defineProperty(win, HOOKED, { value: true });
  } catch {
    return false;
  }
}

/** The nearest prototype from `proto` up that has its own getter `key`. */
function ownerOf(proto: object | null, key: string): object | undefined {
  for (let at = proto; at !== null; at = getPrototypeOf(at) as object | null) {
    if (getOwnPropertyDescriptor(at, key)?.get !== undefined) return at;
  }
  return undefined;
}

/** The getter of `key` on `proto` or the nearest prototype that has one. */
function getterOf(proto: object | null, key: string): AnyFunction | undefined {
  const owner = ownerOf(proto, key);
  return owner === undefined
    ? undefined
    : (getOwnPropertyDescriptor(owner, key)!.get as AnyFunction);
}

/** The frame elements whose child window the page can reach. */
const FRAME_ELEMENTS = ['HTMLIFrameElement', 'HTMLFrameElement', 'HTMLObjectElement'] as const;

/**
 * Makes every same-origin child window of `win` reachable by page code go through
 * `hook` first (`hook` claims it and installs the hooks, this module included).
 */
export function installFrameHooks(win: PageWindow, hook: (child: PageWindow) => void): void {
  const reach = (child: unknown): void => {
    if (child !== null && child !== undefined && child !== win) hook(child as PageWindow);
  };
  const viewOf = getterOf(win.Document.prototype, 'defaultView');
  const reachDocument = (doc: unknown): void => {
    if (doc !== null && viewOf !== undefined) reach(call(viewOf, doc));
  };
  // Read before the replacement: the load listener calls the browser's own getter.
  const frameWindow = getterOf(win.HTMLIFrameElement?.prototype ?? null, 'contentWindow');
  const patched: { owner: object; key: string }[] = [];
  /** Replaces the getter `key` where it lives (once per owner); `seen` gets its value. */
  const patch = (proto: object, key: string, seen: (value: unknown) => void): void => {
    const owner = ownerOf(proto, key);
    if (owner === undefined || patched.some((p) => p.owner === owner && p.key === key)) return;
    patched.push({ owner, key });
    replaceAccessor(
      owner,
      key,
      win,
      (native) =>
        function (this: unknown) {
          const value = apply(native.get, this, []);
          seen(value);
          return value;
        },
    );
  };
  for (const name of FRAME_ELEMENTS) {
    const proto = (win[name] as { prototype: object } | undefined)?.prototype;
    if (proto === undefined) continue;
    patch(proto, 'contentWindow', reach);
    patch(proto, 'contentDocument', reachDocument);
  }
  if (frameWindow !== undefined) watchFrameLoads(win, (frame) => call(frameWindow, frame), reach);
  replaceMethod(
    win,
    'open',
    win,
    (native: (...args: unknown[]) => unknown) =>
      function (this: unknown, ...args: unknown[]) {
        const child = apply(native, this, args);
        reach(child);
        return child;
      },
  );
}

/** Hooks the window of every iframe that fires `load` in `win`'s document. */
function watchFrameLoads(
  win: PageWindow,
  windowOf: (frame: unknown) => unknown,
  reach: (child: unknown) => void,
): void {
  const targetOf = getterOf(win.Event.prototype, 'target');
  const localNameOf = getterOf(win.Element.prototype, 'localName');
  if (targetOf === undefined || localNameOf === undefined) return;
  const listen = win.EventTarget.prototype.addEventListener;
  apply(listen, win.document, [
    'load',
    (event: Event) => {
      try {
        const target = call(targetOf, event);
        if (call(localNameOf, target) === 'iframe') reach(windowOf(target));
      } catch {
        // Not an element (the document's own load): nothing to reach.
      }
    },
    true,
  ]);
}
