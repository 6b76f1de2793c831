/**
 * Issue 18 §2: a page a service worker controls, or gets registered for, is reported
 * once (service-worker-watch.ts); a page without one, or where the container cannot be
 * read, is not; the page's registration is not touched.
 */
import { describe, expect, it } from 'vitest';
import { watchServiceWorker } from '../../../src/content/service-worker-watch.ts';

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('watchServiceWorker', () => {
  it('reports once when a service worker becomes ready for the page', async () => {
    let activate!: (registration: unknown) => void;
    const ready = new Promise((resolve) => (activate = resolve));
    let reports = 0;
    watchServiceWorker({ serviceWorker: { ready } }, () => reports++);
    await settle();
    expect(reports).toBe(0);
    activate({ scope: '/' });
    await settle();
    expect(reports).toBe(1);
  });

  it('reports nothing without a service worker container (not a secure context)', async () => {
    let reports = 0;
    watchServiceWorker({}, () => reports++);
    watchServiceWorker({ serviceWorker: undefined }, () => reports++);
    await settle();
    expect(reports).toBe(0);
  });

  it('reports nothing when the container cannot be read (an opaque origin) or ready fails', async () => {
    let reports = 0;
    const throwing = {
      get serviceWorker(): never {
        throw new DOMException('denied', 'SecurityError');
      },
    };
    expect(() => watchServiceWorker(throwing, () => reports++)).not.toThrow();
    watchServiceWorker(
      { serviceWorker: { ready: Promise.reject(new Error('x')) } },
      () => reports++,
    );
    await settle();
    expect(reports).toBe(0);
  });
});
