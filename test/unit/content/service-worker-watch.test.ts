/**
 * Issue 18 §2: a page a service worker controls, or is active for, is reported once
 * (service-worker-watch.ts), whichever sign comes first and however many come; a page
 * without one, or where the container cannot be read, is not.
 */
import { describe, expect, it } from 'vitest';
import {
  type ServiceWorkerNavigator,
  watchServiceWorker,
} from '../../../src/content/service-worker-watch.ts';

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A container as the ISOLATED world sees it; `ready` left out as Chromium refuses it there. */
function container(controller: unknown = null, ready?: Promise<unknown>) {
  const listeners: (() => void)[] = [];
  const self = {
    controller,
    ...(ready === undefined ? {} : { ready }),
    addEventListener: (_type: 'controllerchange', listener: () => void) => listeners.push(listener),
    /** The page got a controller (a worker claimed it). */
    claim(worker: unknown) {
      self.controller = worker;
      for (const listener of listeners) listener();
    },
  };
  return self;
}

function watch(nav: ServiceWorkerNavigator) {
  const counter = { reports: 0 };
  watchServiceWorker(nav, () => counter.reports++);
  return counter;
}

describe('watchServiceWorker', () => {
  it('reports once when a service worker comes to control the page (Chromium: no ready)', async () => {
    const serviceWorker = container();
    const counter = watch({ serviceWorker });
    await settle();
    expect(counter.reports).toBe(0);
    serviceWorker.claim({});
    serviceWorker.claim({});
    await settle();
    expect(counter.reports).toBe(1);
  });

  it('reports once when the page is controlled from the start', async () => {
    const counter = watch({ serviceWorker: container({}) });
    await settle();
    expect(counter.reports).toBe(1);
  });

  it('reports once when ready resolves (Firefox), even if control follows', async () => {
    let activate!: (registration: unknown) => void;
    const serviceWorker = container(null, new Promise((resolve) => (activate = resolve)));
    const counter = watch({ serviceWorker });
    activate({ scope: '/' });
    await settle();
    expect(counter.reports).toBe(1);
    serviceWorker.claim({});
    await settle();
    expect(counter.reports).toBe(1);
  });

  it('reports nothing without a container, or when it cannot be read or ready fails', async () => {
    const throwing = {
      get serviceWorker(): never {
        throw new DOMException('denied', 'SecurityError');
      },
    };
    const refusing = {
      controller: null,
      get ready(): Promise<unknown> {
        throw new DOMException("'ready' is only supported in pages.", 'NotSupportedError');
      },
    };
    const counters = [
      watch({}),
      watch({ serviceWorker: undefined }),
      watch(throwing),
      watch({ serviceWorker: refusing }),
      watch({ serviceWorker: container(null, Promise.reject(new Error('no'))) }),
    ];
    await settle();
    expect(counters.map((c) => c.reports)).toEqual([0, 0, 0, 0, 0]);
  });

  /** A container whose `ready` is refused, as Chromium's in this world; counts its reads. */
  function refusingContainer() {
    const listeners: (() => void)[] = [];
    const self = {
      reads: 0,
      controller: null as unknown,
      get ready(): Promise<unknown> {
        self.reads++;
        return Promise.reject(new DOMException("'ready' is only supported in pages."));
      },
      addEventListener: (_type: 'controllerchange', listener: () => void) =>
        listeners.push(listener),
      claim(worker: unknown) {
        self.controller = worker;
        for (const listener of listeners) listener();
      },
    };
    return self;
  }

  it('does not read ready where the world refuses it (Chromium), and still reports control', async () => {
    // Issue 19 §4: reading `ready` there costs a DOMException per page and frame.
    const serviceWorker = refusingContainer();
    const counter = { reports: 0 };
    watchServiceWorker({ serviceWorker }, () => counter.reports++, false);
    await settle();
    expect(serviceWorker.reads).toBe(0);
    serviceWorker.claim({});
    expect(counter.reports).toBe(1);
    // Asked (Firefox), it is read once.
    const asked = refusingContainer();
    watchServiceWorker({ serviceWorker: asked }, () => undefined);
    await settle();
    expect(asked.reads).toBe(1);
  });
});
