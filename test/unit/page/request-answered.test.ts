/**
 * Issue 20 §1, the MAIN world's part: the status of each guarded send's answer
 * goes to the bridge under the id of the verdict that let it go (remote-guard.ts,
 * outgoing-hook.ts `answered`, fetch-hook.ts), and only for a Request the send
 * hook built; the bridge decides whether it was a refused rewrite.
 */
import { describe, expect, it } from 'vitest';
import { createOutgoingHook } from '../../../src/page/outgoing-hook.ts';
import { createRemoteGuards } from '../../../src/page/remote-guard.ts';
import { installFetchHook } from '../../../src/page/fetch-hook.ts';
import { installXhrOutgoingHook } from '../../../src/page/xhr-outgoing-hook.ts';
import type { PageToBridge } from '../../../src/protocol/page-channel.ts';

const URL_CHAT = 'https://chat.example/v1/chat/completions';
const init = (content: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content }] }),
});

describe('the status of a guarded send', () => {
  it('the verdict carries its channel id, and `answered` sends id and status only', async () => {
    const sent: PageToBridge[] = [];
    const remote = createRemoteGuards({
      send: (m) => {
        sent.push(m);
        return true;
      },
      newId: () => 'req1',
    });
    const verdict = remote.request({ url: URL_CHAT, method: 'POST', contentType: '' }, '{}');
    remote.receive({
      v: 1,
      type: 'request-verdict',
      requestId: 'req1',
      send: true,
      body: '{"x":1}',
    });
    expect(await verdict).toEqual({ send: true, body: '{"x":1}', id: 'req1' });
    remote.answered('req1', 403);
    expect(sent.at(-1)).toEqual({ v: 1, type: 'request-answered', requestId: 'req1', status: 403 });
  });

  it('passes on the status for a Request the send hook built, not for any other input', async () => {
    const answered: [string, number][] = [];
    const hook = createOutgoingHook({
      guard: (_request, body) =>
        Promise.resolve({ send: true, body: body.toUpperCase(), id: 'v1' }),
      baseUrl: () => 'https://chat.example/c/1',
      answered: (id, status) => answered.push([id, status]),
    });
    const args = await hook.prepare(URL_CHAT, init('hello'));
    expect(args).toBeDefined();
    hook.answered(args![0], 403);
    hook.answered(new Request(URL_CHAT, init('hello')), 403);
    hook.answered(URL_CHAT, 400);
    hook.answered(undefined, 400);
    expect(answered).toEqual([['v1', 403]]);
  });

  it('the fetch hook reports each response status with the input it sent', async () => {
    const seen: [unknown, number][] = [];
    const input = new Request('https://chat.example/other', { method: 'POST', body: 'x' });
    const target = {
      fetch: (() => Promise.resolve(new Response('no', { status: 422 }))) as typeof fetch,
      location: { href: 'https://chat.example/', origin: 'https://chat.example' },
      Function,
    };
    installFetchHook(target, { answered: (i, status) => seen.push([i, status]) });
    const response = await target.fetch(input);
    expect(response.status).toBe(422);
    expect(seen).toEqual([[input, 422]]);
  });

  it('the XHR send hook reports the status of its guarded send once it has loaded', async () => {
    const answered: [string, number][] = [];
    const hook = createOutgoingHook({
      guard: (_request, body) => Promise.resolve({ send: true, body, id: 'x1' }),
      baseUrl: () => 'https://chat.example/c/1',
      answered: (id, status) => answered.push([id, status]),
    });
    const sends: unknown[] = [];
    class FakeXhr extends EventTarget {
      status = 0;
      open(..._args: unknown[]): void {}
      setRequestHeader(_name: string, _value: string): void {}
      send(body?: unknown): void {
        sends.push(body);
      }
      abort(): void {}
    }
    installXhrOutgoingHook(
      {
        XMLHttpRequest: FakeXhr as unknown as typeof XMLHttpRequest,
        ProgressEvent: Event as unknown as typeof ProgressEvent,
        DOMException,
        EventTarget,
        Function,
      },
      {
        prepare: (input, requestInit) => hook.prepare(input, requestInit),
        answered: hook.answered,
      },
    );
    const xhr = new FakeXhr();
    const page = xhr as unknown as XMLHttpRequest;
    page.open('POST', '/v1/chat/completions');
    page.setRequestHeader('content-type', 'application/json');
    page.send(init('hello').body as string);
    await expect.poll(() => sends.length, { timeout: 10_000 }).toBe(1);
    expect(answered).toEqual([]);
    xhr.status = 412;
    xhr.dispatchEvent(new Event('loadend'));
    expect(answered).toEqual([['x1', 412]]);
  });
});
