/**
 * The XHR send side (src/page/xhr-outgoing-hook.ts) on a minimal XMLHttpRequest
 * stand-in: an unrecognised send goes straight through; a recognised one is sent
 * only as its guarded copy; a refused one is never sent and ends with `error` and
 * `loadend`; a synchronous recognised send fails closed at once.
 */
import { describe, expect, it } from 'vitest';
import { installXhrOutgoingHook } from '../../../src/page/xhr-outgoing-hook.ts';
import { fakeGithubToken } from '../../mock-chat/scripted-answers.ts';
import { hookWith } from '../../support/outgoing-pair.ts';

function fakeRealm() {
  const sends: unknown[] = [];
  const aborts: number[] = [];
  class FakeXhr extends EventTarget {
    open(..._args: unknown[]): void {}
    setRequestHeader(_name: string, _value: string): void {}
    send(body?: unknown): void {
      sends.push(body);
    }
    abort(): void {
      aborts.push(1);
    }
  }
  const realm = {
    XMLHttpRequest: FakeXhr as unknown as typeof XMLHttpRequest,
    ProgressEvent: Event as unknown as typeof ProgressEvent,
    DOMException,
    EventTarget,
    Function,
  };
  return { realm, sends, aborts, FakeXhr };
}

function hook(decision: 'send' | 'cancel' = 'cancel') {
  return hookWith({
    answer: (message) =>
      message.type === 'confirm-send'
        ? [{ v: 1, type: 'send-decision', requestId: message.requestId, decision }]
        : message.type === 'outgoing-lookup'
          ? [
              {
                v: 1,
                type: 'outgoing-lookup-result',
                requestId: message.requestId,
                pasted: [],
                referenceOnly: [],
              },
            ]
          : [],
  }).hook;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
const chatBody = (content: string) =>
  JSON.stringify({ model: 'm', messages: [{ role: 'user', content }] });

describe('installXhrOutgoingHook', () => {
  it('sends unrecognised requests at once, unchanged', () => {
    const { realm, sends, FakeXhr } = fakeRealm();
    installXhrOutgoingHook(realm, hook());
    const xhr = new FakeXhr() as unknown as XMLHttpRequest;
    xhr.open('POST', '/upload');
    xhr.send('raw');
    expect(sends).toEqual(['raw']);
  });

  it('sends a recognised request only as its redacted copy', async () => {
    const token = fakeGithubToken(12);
    const { realm, sends, FakeXhr } = fakeRealm();
    installXhrOutgoingHook(realm, hook());
    const xhr = new FakeXhr() as unknown as XMLHttpRequest;
    xhr.open('POST', '/v1/chat/completions');
    xhr.setRequestHeader('content-type', 'application/json');
    xhr.send(chatBody(`key ${token}`));
    expect(sends).toEqual([]);
    // The first recognised request compiles the pack: allow for it.
    await expect.poll(() => sends.length, { timeout: 10_000 }).toBe(1);
    expect(String(sends[0])).not.toContain(token);
    expect(String(sends[0])).toContain('[redacted');
  });

  it('never sends a refused request and ends it like a network error', async () => {
    const { realm, sends, aborts, FakeXhr } = fakeRealm();
    installXhrOutgoingHook(realm, hook('cancel'));
    const xhr = new FakeXhr() as unknown as XMLHttpRequest;
    const events: string[] = [];
    for (const type of ['error', 'loadend']) xhr.addEventListener(type, () => events.push(type));
    xhr.open('POST', '/v1/chat/completions');
    xhr.send(chatBody(`mail ${['jane.doe', 'mailbox.org'].join('@')}`));
    await expect.poll(() => events.length, { timeout: 10_000 }).toBe(2);
    await settle();
    expect(sends).toEqual([]);
    expect(aborts).toHaveLength(1);
    expect(events).toEqual(['error', 'loadend']);
  });

  it('fails a synchronous recognised send closed, and says so', () => {
    const { realm, sends, FakeXhr } = fakeRealm();
    const reports: string[] = [];
    installXhrOutgoingHook(realm, hook(), (hook, reason) => reports.push(`${hook}:${reason}`));
    const xhr = new FakeXhr() as unknown as XMLHttpRequest;
    xhr.open('POST', '/v1/chat/completions', false);
    expect(() => xhr.send(chatBody('hi'))).toThrow(DOMException);
    expect(sends).toEqual([]);
    expect(reports).toEqual(['xhr:synchronous-send']);
  });

  it('page code replacing Reflect.apply and WeakMap methods after install opens nothing (issue 18 §4)', async () => {
    const token = fakeGithubToken(14);
    const { realm, sends, FakeXhr } = fakeRealm();
    installXhrOutgoingHook(realm, hook());
    const replaced = [
      [Reflect, 'apply', () => undefined],
      [WeakMap.prototype, 'get', () => undefined],
      [
        WeakMap.prototype,
        'set',
        function (this: WeakMap<object, unknown>) {
          return this;
        },
      ],
    ] as const;
    const before = replaced.map(([holder, key]) => Object.getOwnPropertyDescriptor(holder, key)!);
    replaced.forEach(([holder, key, value]) =>
      Object.defineProperty(holder, key, {
        ...before[0],
        value,
        writable: true,
        configurable: true,
      }),
    );
    let sentAtOnce: unknown[] | undefined;
    try {
      const plain = new FakeXhr() as unknown as XMLHttpRequest;
      plain.open('POST', '/upload');
      plain.send('raw');
      const chat = new FakeXhr() as unknown as XMLHttpRequest;
      chat.open('POST', '/v1/chat/completions');
      chat.setRequestHeader('content-type', 'application/json');
      chat.send(chatBody(`key ${token}`));
      sentAtOnce = sends.slice();
    } finally {
      replaced.forEach(([holder, key], i) => Object.defineProperty(holder, key, before[i]!));
    }
    expect(sentAtOnce).toEqual(['raw']);
    await expect.poll(() => sends.length, { timeout: 10_000 }).toBe(2);
    expect(String(sends[1])).not.toContain(token);
    expect(String(sends[1])).toContain('[redacted');
  });
});
