/**
 * Issue 18 §2: the parent's MAIN world reaches a same-origin child window the page uses
 * before the child's own scripts run (src/page/frame-hooks.ts). In Chromium 156 and
 * Firefox ESR 153 the registered scripts already run in an about:blank frame or popup
 * the moment the page creates it (test/e2e/contexts.test.ts sees the frame's own hooks
 * answer); this is the backstop for a browser that does not, tested here on a realm laid out
 * like a browser's.
 */
import { describe, expect, it } from 'vitest';
import { claimWindow, installFrameHooks, type PageWindow } from '../../../src/page/frame-hooks.ts';

describe('claimWindow', () => {
  it('claims a window once, for the first caller', () => {
    const realm = {};
    expect(claimWindow(realm)).toBe(true);
    expect(claimWindow(realm)).toBe(false);
    // Invisible to enumeration: page code iterating the window's keys does not meet it.
    expect(Object.keys(realm)).toEqual([]);
  });

  it('claims nothing it cannot reach (a cross-origin window throws on access)', () => {
    const crossOrigin = new Proxy(
      {},
      {
        getOwnPropertyDescriptor() {
          throw new DOMException('Blocked a frame', 'SecurityError');
        },
      },
    );
    expect(claimWindow(crossOrigin)).toBe(false);
    expect(claimWindow(null)).toBe(false);
  });
});

/** A realm with the frame accessors the module patches, as a browser lays them out. */
function fakeRealm() {
  const listeners: ((event: unknown) => void)[] = [];
  class Document {
    constructor(readonly view: unknown) {}
    get defaultView(): unknown {
      return this.view;
    }
  }
  class Element {
    constructor(readonly name: string) {}
    get localName(): string {
      return this.name;
    }
  }
  /** A frame element whose child window is set when it is "appended". */
  class HTMLIFrameElement extends Element {
    child: { document: Document } | null = null;
    constructor() {
      super('iframe');
    }
    get contentWindow(): unknown {
      return this.child;
    }
    get contentDocument(): unknown {
      return this.child?.document ?? null;
    }
  }
  class Event {
    constructor(readonly at: unknown) {}
    get target(): unknown {
      return this.at;
    }
  }
  class EventTarget {
    addEventListener(_type: string, listener: (event: unknown) => void): void {
      listeners.push(listener);
    }
  }
  const newChild = () => {
    const child = { document: undefined as unknown as Document };
    child.document = new Document(child);
    return child;
  };
  const popup = newChild();
  const win = {
    Function,
    Document,
    Element,
    HTMLIFrameElement,
    Event,
    EventTarget,
    document: new EventTarget(),
    open: () => popup,
  };
  const frame = () => {
    const element = new HTMLIFrameElement();
    element.child = newChild();
    return element;
  };
  const load = (target: unknown) => {
    for (const listener of listeners) listener(new Event(target));
  };
  return { win: win as unknown as PageWindow, frame, popup, load };
}

describe('installFrameHooks', () => {
  it('hooks a child window the first time the page reaches it through contentWindow', () => {
    const { win, frame } = fakeRealm();
    const hooked: unknown[] = [];
    installFrameHooks(win, (child) => {
      if (claimWindow(child)) hooked.push(child);
    });
    const element = frame();
    const child = element.contentWindow;
    expect(hooked).toEqual([child]);
    void element.contentWindow;
    expect(hooked).toEqual([child]);
  });

  it('hooks a child reached only through contentDocument, window.open or its load event', () => {
    const { win, frame, popup, load } = fakeRealm();
    const seen: unknown[] = [];
    installFrameHooks(win, (child) => seen.push(child));
    const byDocument = frame();
    void byDocument.contentDocument;
    expect(seen).toEqual([byDocument.child]);
    const opened = (win as unknown as { open(): unknown }).open();
    expect(opened).toBe(popup);
    expect(seen).toEqual([byDocument.child, popup]);
    const byIndex = frame();
    // A load event on a frame (Chromium: synchronous on insertion) reaches its window
    // with the getter as it was, so the page never sees an extra call.
    load(byIndex);
    expect(seen).toEqual([byDocument.child, popup, byIndex.child]);
    // The document's own load, and a non-frame element's, reach nothing.
    load({});
    load(new (win as unknown as { Element: new (name: string) => object }).Element('img'));
    expect(seen).toHaveLength(3);
  });

  it('leaves the replaced getters looking native', () => {
    const { win } = fakeRealm();
    const proto = (win as unknown as { HTMLIFrameElement: { prototype: object } }).HTMLIFrameElement
      .prototype;
    const before = Object.getOwnPropertyDescriptor(proto, 'contentWindow')!.get!;
    installFrameHooks(win, () => undefined);
    const after = Object.getOwnPropertyDescriptor(proto, 'contentWindow')!.get!;
    expect(after).not.toBe(before);
    expect(after.name).toBe(before.name);
    expect(Function.prototype.toString.call(after)).toBe(Function.prototype.toString.call(before));
  });
});
