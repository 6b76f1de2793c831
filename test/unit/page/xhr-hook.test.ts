/**
 * The MAIN-world XMLHttpRequest hook on a standard-shaped fake XHR (fake-xhr.ts), with the
 * real adapter registry, wire transform and core pack: which responses are guarded, what
 * the page sees while a guarded answer streams (progressive responseText, events), and
 * that everything else, errors and aborts behave as the browser's own.
 */

import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { detectAdapter } from '../../../src/core/wire/adapter-registry.ts';
import type { WireRecogniser, WireProbe } from '../../../src/core/wire/wire-event.ts';
import { newFetchHookStats } from '../../../src/page/fetch-hook.ts';
import type { ByteGuard } from '../../../src/page/guarded-response.ts';
import { installXhrHook, type XhrHookTarget } from '../../../src/page/xhr-hook.ts';
import { fakeGithubToken, scriptedAnswer } from '../../mock-chat/scripted-answers.ts';
import { openAiChatJson, openAiChatSse } from '../../mock-chat/wire-answers.ts';
import { cut, cutsArbitrary, PROPERTY_RUNS } from '../../support/text-arbitraries.ts';
import { fixture } from '../../support/wire-harness.ts';
import {
  createFakeXhrClass,
  FakeEventTarget,
  FakeProgressEvent,
  type FakeXhr,
  type FakeXhrClass,
} from './fake-xhr.ts';
import { localWireGuard } from '../../support/local-guards.ts';

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'x-request-id': 'r-7' };
const token = fakeGithubToken();
const secretSse = () => openAiChatSse(scriptedAnswer('secret'));

interface Options {
  createWireGuard?: (adapter: WireRecogniser, probe: WireProbe) => ByteGuard;
  detectAdapter?: (probe: WireProbe) => WireRecogniser | undefined;
  reportFailure?: (hook: string, reason: string) => void;
}

function hookedRealm(overrides: Options = {}) {
  const stats = newFetchHookStats();
  const probes: WireProbe[] = [];
  const target = {
    XMLHttpRequest: createFakeXhrClass(),
    ProgressEvent: FakeProgressEvent,
    Event,
    EventTarget: FakeEventTarget,
    Function,
    location: { href: 'http://127.0.0.1:8080/chat/1' },
  };
  const native = target.XMLHttpRequest;
  installXhrHook(target as unknown as XhrHookTarget, {
    detectAdapter: (probe) => {
      probes.push(probe);
      return detectAdapter(probe);
    },
    createWireGuard: localWireGuard,
    stats,
    ...overrides,
  });
  const Xhr = target.XMLHttpRequest;
  return { Xhr, native, stats, probes };
}

/** What the page's listeners saw, in order. */
interface Seen {
  type: string;
  readyState: number;
  text: string;
  loaded?: number;
}

/** A page-side XHR with listeners (property handlers and addEventListener) recording. */
function pageRequest(Xhr: FakeXhrClass, method = 'POST', url = '/v1/chat/completions') {
  const xhr = new Xhr();
  const seen: Seen[] = [];
  const record = (event: Event) => {
    let text: string;
    try {
      text = xhr.responseText;
    } catch {
      text = '<throws>';
    }
    const entry: Seen = { type: event.type, readyState: xhr.readyState, text };
    if (event instanceof FakeProgressEvent) entry.loaded = event.loaded;
    seen.push(entry);
  };
  xhr.onreadystatechange = record;
  xhr.onprogress = record;
  for (const type of ['load', 'loadend', 'error', 'abort']) xhr.addEventListener(type, record);
  xhr.open(method, url);
  xhr.send();
  return { xhr, seen };
}

/** Lets the guard's streams run (they resolve over a few microtask/macrotask turns). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

async function stream(
  xhr: FakeXhr,
  parts: string[],
  headers: Record<string, string> = SSE_HEADERS,
  url = '',
) {
  xhr.respond(200, { ...headers, 'content-length': '999' }, url);
  for (const part of parts) {
    xhr.receive(part);
    await settle();
  }
  xhr.finish();
  // The guard's streams settle over several turns; under load, more than a few ms.
  await vi.waitFor(() => expect(xhr.readyState).toBe(4));
  await settle();
}

describe('installXhrHook: guarded answers', () => {
  // Compiling the core pack once takes seconds on a loaded machine: not a test's time.
  beforeAll(() => {
    getCorePack();
  }, 60_000);

  it('redacts a secret split across SSE events; responseText grows, never shows it', async () => {
    const { Xhr, stats } = hookedRealm();
    const { xhr, seen } = pageRequest(Xhr);
    await stream(xhr, cut(secretSse(), [0.1, 0.33, 0.5, 0.52, 0.7, 0.9]));
    expect(xhr.readyState).toBe(4);
    expect(xhr.status).toBe(200);
    expect(xhr.responseText).toContain('[redacted:github-pat]');
    expect(xhr.responseText).not.toContain(token.slice(4, 14));
    expect(xhr.response).toBe(xhr.responseText);
    expect(xhr.responseText.endsWith('data: [DONE]\n\n')).toBe(true);
    // Every view the page had is a prefix of the final text and holds no part of the token.
    for (const entry of seen) {
      expect(xhr.responseText.startsWith(entry.text)).toBe(true);
      expect(entry.text).not.toContain(token.slice(4, 14));
    }
    // Event shape as the browser's: readyState 3 repeated with progress, then the end.
    const types = seen.map((s) => `${s.type}:${s.readyState}`);
    expect(types.slice(0, 2)).toEqual(['readystatechange:1', 'readystatechange:2']);
    expect(types.filter((t) => t === 'readystatechange:3').length).toBeGreaterThan(1);
    expect(types.slice(-4)).toEqual(['progress:3', 'readystatechange:4', 'load:4', 'loadend:4']);
    const loads = seen.filter((s) => s.type === 'load');
    expect(loads[0]!.loaded).toBe(new TextEncoder().encode(xhr.responseText).byteLength);
    expect(stats).toMatchObject({ wireGuarded: 1, guardFailures: 0, decisionErrors: 0 });
  });

  it.each([
    [
      'DeepSeek (SSE, sticky-cursor patches)',
      'deepseek-web/secret-split.sse',
      '/api/v0/chat/completion',
      'text/event-stream; charset=utf-8',
      // The search-results fragment quotes the token too; the adapter leaves it (by design).
      'Your token ghp_EXAMPLEexam',
    ],
    [
      'Gemini web (length-prefixed frames)',
      'gemini-web/secret-split.txt',
      '/_/BardChatUi/data/assistant.lamda.BardFrontendService/StreamGenerate?rt=c',
      'text/plain; charset=utf-8',
      'EXAMPLEexam',
    ],
  ])('guards %s from the first byte, claimed by the URL', async (_name, path, url, type, leak) => {
    const body = fixture(path);
    const { Xhr, stats, probes } = hookedRealm();
    const { xhr, seen } = pageRequest(Xhr, 'POST', url);
    const parts = cut(body, [0.15, 0.3, 0.45, 0.5, 0.55, 0.7, 0.85]);
    xhr.respond(200, { 'content-type': type });
    // Decided at HEADERS_RECEIVED on the URL alone: nothing to peek at.
    expect(probes.at(-1)).toMatchObject({ url: `http://127.0.0.1:8080${url}`, head: '' });
    await stream(xhr, parts, { 'content-type': type });
    expect(stats.wireGuarded).toBe(1);
    expect(xhr.responseText).toContain('[redacted:github-pat]');
    for (const entry of seen) expect(entry.text).not.toContain(leak);
    expect(xhr.responseText).not.toContain(leak);
  });

  it('keeps headers and status, less content-length', async () => {
    const { Xhr } = hookedRealm();
    const { xhr } = pageRequest(Xhr);
    await stream(xhr, [secretSse()]);
    expect(xhr.getResponseHeader('x-request-id')).toBe('r-7');
    expect(xhr.getResponseHeader('Content-Type')).toBe('text/event-stream; charset=utf-8');
    expect(xhr.getResponseHeader('content-length')).toBeNull();
    expect(xhr.getAllResponseHeaders()).toBe(
      'content-type: text/event-stream; charset=utf-8\r\nx-request-id: r-7\r\n',
    );
    expect(xhr.statusText).toBe('OK');
  });

  it('gives the same final text for any split of the body (chunking invariance)', async () => {
    const body = secretSse();
    const whole = hookedRealm();
    const reference = pageRequest(whole.Xhr);
    await stream(reference.xhr, [body]);
    const expected = reference.xhr.responseText;
    await fc.assert(
      fc.asyncProperty(cutsArbitrary, async (fractions) => {
        const { Xhr } = hookedRealm();
        const { xhr, seen } = pageRequest(Xhr);
        await stream(xhr, cut(body, fractions));
        expect(xhr.responseText).toBe(expected);
        for (const entry of seen) expect(expected.startsWith(entry.text)).toBe(true);
      }),
      { numRuns: Math.min(PROPERTY_RUNS, 60) },
    );
  }, 120_000);

  it('guards responseType json: null until done, then the guarded document', async () => {
    const { Xhr, stats } = hookedRealm();
    const xhr = new Xhr();
    xhr.open('POST', '/v1/chat/completions');
    xhr.responseType = 'json';
    xhr.send();
    expect(xhr.responseType).toBe('json');
    xhr.respond(200, { 'content-type': 'application/json' });
    const json = openAiChatJson(scriptedAnswer('secret'));
    xhr.receive(json.slice(0, 40));
    await settle();
    expect(xhr.response).toBeNull();
    expect(() => xhr.responseText).toThrow();
    xhr.receive(json.slice(40));
    xhr.finish();
    await settle();
    const answer = xhr.response as { choices: { message: { content: string } }[] };
    expect(answer.choices[0]!.message.content).toContain('[redacted:github-pat]');
    expect(JSON.stringify(answer)).not.toContain(token.slice(4, 14));
    expect(xhr.response).toBe(answer);
    expect(stats.wireGuarded).toBe(1);
  });

  it('fails closed when the guard fails mid-stream: error event, nothing after it', async () => {
    let calls = 0;
    const { Xhr, stats } = hookedRealm({
      createWireGuard: (recogniser) => {
        const inner = localWireGuard(recogniser);
        const breaker = new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            if (++calls === 3) throw new Error('rule crashed');
            controller.enqueue(chunk);
          },
        });
        return { writable: breaker.writable, readable: breaker.readable.pipeThrough(inner) };
      },
    });
    const { xhr, seen } = pageRequest(Xhr);
    const body = secretSse();
    await stream(xhr, cut(body, [0.1, 0.2, 0.3, 0.4, 0.6]));
    const types = seen.map((s) => s.type);
    expect(types.slice(-3)).toEqual(['readystatechange', 'error', 'loadend']);
    expect(types).not.toContain('load');
    expect(xhr.status).toBe(0);
    expect(xhr.responseText).toBe('');
    expect(xhr.readyState).toBe(4);
    // The network request was stopped.
    expect(xhr.aborted).toBe(true);
    expect(stats.guardFailures).toBe(1);
  });

  it('fails closed when the guard cannot be built', async () => {
    const { Xhr, stats } = hookedRealm({
      createWireGuard: () => {
        throw new Error('no pack');
      },
    });
    const { xhr, seen } = pageRequest(Xhr);
    await stream(xhr, [secretSse()]);
    expect(seen.map((s) => s.type)).toEqual([
      'readystatechange',
      'readystatechange',
      'error',
      'loadend',
    ]);
    expect(xhr.responseText).toBe('');
    expect(stats.guardFailures).toBe(1);
  });

  it('propagates the page’s abort(): native abort events, no guarded event after them', async () => {
    const { Xhr } = hookedRealm();
    const { xhr, seen } = pageRequest(Xhr);
    xhr.respond(200, SSE_HEADERS);
    xhr.receive(secretSse().slice(0, 300));
    await settle();
    xhr.abort();
    const afterAbort = seen.length;
    xhr.receive('data: {"late":true}\n\n');
    await settle();
    expect(seen.length).toBe(afterAbort);
    expect(seen.slice(-3).map((s) => s.type)).toEqual(['readystatechange', 'abort', 'loadend']);
    expect(xhr.aborted).toBe(true);
    expect(xhr.readyState).toBe(0);
    expect(xhr.status).toBe(0);
  });

  it('surfaces a network error as the browser’s own error event', async () => {
    const { Xhr, stats } = hookedRealm();
    const { xhr, seen } = pageRequest(Xhr);
    xhr.respond(200, SSE_HEADERS);
    xhr.receive(secretSse().slice(0, 200));
    await settle();
    xhr.failNetwork();
    await settle();
    expect(seen.slice(-3).map((s) => s.type)).toEqual(['readystatechange', 'error', 'loadend']);
    expect(xhr.status).toBe(0);
    expect(stats.guardFailures).toBe(0);
  });

  it('serves a reused instance (open() again) fresh', async () => {
    const { Xhr } = hookedRealm();
    const { xhr } = pageRequest(Xhr);
    await stream(xhr, [secretSse()]);
    xhr.open('GET', '/api/status');
    xhr.send();
    xhr.respond(200, { 'content-type': 'text/html' });
    xhr.receive('<p>plain</p>');
    xhr.finish();
    expect(xhr.responseText).toBe('<p>plain</p>');
  });
});

describe('installXhrHook: everything else is native', () => {
  it('leaves a non-candidate content type untouched, synchronously, content-length kept', () => {
    const { Xhr, stats } = hookedRealm();
    const { xhr, seen } = pageRequest(Xhr, 'GET', '/page.html');
    xhr.respond(200, { 'content-type': 'text/html', 'content-length': '12' });
    xhr.receive('<p>');
    // No waiting: the page saw the chunk as it came.
    expect(seen.at(-1)).toMatchObject({ type: 'progress', readyState: 3, text: '<p>' });
    xhr.receive(`${token}</p>`);
    xhr.finish();
    expect(xhr.responseText).toBe(`<p>${token}</p>`);
    expect(xhr.getResponseHeader('content-length')).toBe('12');
    expect(stats).toMatchObject({ wireGuarded: 0, unrecognised: 0 });
  });

  it('peeks at an unrelated event stream, then replays the held events in order', async () => {
    const { Xhr, stats } = hookedRealm();
    const { xhr, seen } = pageRequest(Xhr, 'GET', '/events');
    xhr.respond(200, { 'content-type': 'text/event-stream' });
    xhr.receive('data: {"tick"');
    expect(seen.at(-1)?.type).toBe('readystatechange');
    expect(xhr.readyState).toBe(2);
    expect(xhr.responseText).toBe('');
    xhr.receive(`:1,"note":"${token}"}\n\n`);
    const types = seen.map((s) => `${s.type}:${s.readyState}`);
    expect(types.slice(2)).toEqual([
      'readystatechange:3',
      'progress:3',
      'readystatechange:3',
      'progress:3',
    ]);
    xhr.finish();
    expect(xhr.responseText).toBe(`data: {"tick":1,"note":"${token}"}\n\n`);
    expect(stats).toMatchObject({ unrecognised: 1, wireGuarded: 0 });
  });

  it('parses an unrecognised json response like the browser', () => {
    const { Xhr } = hookedRealm();
    const xhr = new Xhr();
    xhr.open('GET', '/api/status');
    xhr.responseType = 'json';
    xhr.send();
    xhr.respond(200, { 'content-type': 'application/json' });
    xhr.receive('{"ok":true}');
    expect(xhr.response).toBeNull();
    xhr.finish();
    expect(xhr.response).toEqual({ ok: true });
    expect(xhr.response).toBe(xhr.response);
  });

  it('fails closed, with a report, when its own decision logic throws', async () => {
    const reports: string[][] = [];
    const { Xhr, stats } = hookedRealm({
      detectAdapter: () => {
        throw new Error('bug');
      },
      reportFailure: (hook, reason) => reports.push([hook, reason]),
    });
    const { xhr, seen } = pageRequest(Xhr);
    xhr.respond(200, SSE_HEADERS);
    xhr.receive(secretSse());
    await settle();
    // A network error, as the page knows it: nothing of the answer, status 0, error events.
    expect(xhr.readyState).toBe(4);
    expect(xhr.status).toBe(0);
    expect(xhr.responseText).toBe('');
    expect(xhr.getAllResponseHeaders()).toBe('');
    expect(xhr.aborted).toBe(true);
    expect(seen.map((s) => s.type).slice(-3)).toEqual(['readystatechange', 'error', 'loadend']);
    for (const entry of seen) expect(entry.text).toBe('');
    expect(stats.decisionErrors).toBe(1);
    expect(reports).toEqual([['xhr', 'decision']]);
  });
});

/** A request read as `type`; what the page's listeners saw, in order. */
function typedRequest(Xhr: FakeXhrClass, type: XMLHttpRequestResponseType, url: string) {
  const xhr = new Xhr();
  const seen: string[] = [];
  const responses: unknown[] = [];
  for (const event of ['readystatechange', 'progress', 'load', 'loadend', 'error']) {
    xhr.addEventListener(event, () => {
      seen.push(`${event}:${xhr.readyState}`);
      responses.push(xhr.response);
    });
  }
  xhr.open('POST', url);
  xhr.responseType = type;
  xhr.send();
  return { xhr, seen, responses };
}

describe('installXhrHook: every reading path (issue 18 §3)', () => {
  beforeAll(() => {
    getCorePack();
  }, 60_000);

  it.each(['arraybuffer', 'blob'] as const)(
    'guards responseType %s: nothing before DONE, then the guarded bytes',
    async (type) => {
      const { Xhr, stats } = hookedRealm();
      const { xhr, seen, responses } = typedRequest(Xhr, type, '/v1/chat/completions');
      xhr.respond(200, { ...SSE_HEADERS, 'content-length': '999' });
      for (const part of cut(secretSse(), [0.3, 0.6])) xhr.receive(part);
      xhr.finish();
      // A progress event after DONE (Chromium throttles them): the body was read whole.
      await Promise.resolve();
      xhr.dispatchEvent(new FakeProgressEvent('progress', { loaded: 1 }));
      await vi.waitFor(() => expect(seen.at(-1)).toBe('loadend:4'));
      const response = xhr.response as ArrayBuffer | Blob;
      const text =
        type === 'blob'
          ? await (response as Blob).text()
          : new TextDecoder().decode(response as ArrayBuffer);
      expect(text).toContain('[redacted:github-pat]');
      expect(text).not.toContain(token.slice(4, 14));
      expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
      if (type === 'blob') {
        expect(response).toBeInstanceOf(Blob);
        expect((response as Blob).type).toBe(SSE_HEADERS['content-type']);
      } else {
        expect(response).toBeInstanceOf(ArrayBuffer);
      }
      // The same object every time, as the browser's; nothing readable before DONE (the
      // first view is at open(), before the page set the type).
      expect(xhr.response).toBe(response);
      expect(responses.slice(1, -3).every((r) => r === null)).toBe(true);
      expect(seen.slice(-3)).toEqual(['readystatechange:4', 'load:4', 'loadend:4']);
      expect(() => xhr.responseText).toThrow();
      expect(xhr.getResponseHeader('content-length')).toBeNull();
      expect(stats).toMatchObject({ wireGuarded: 1, unrecognised: 0 });
    },
  );

  it('leaves an unrecognised arraybuffer answer the browser’s own: same bytes, same events', async () => {
    const { Xhr, stats } = hookedRealm();
    const { xhr, seen } = typedRequest(Xhr, 'arraybuffer', '/api/status');
    const json = '{"service":"status","ok":true}';
    xhr.respond(200, { 'content-type': 'application/json', 'content-length': '30' });
    xhr.receive(json);
    xhr.finish();
    await vi.waitFor(() => expect(seen.at(-1)).toBe('loadend:4'));
    expect(new TextDecoder().decode(xhr.response as ArrayBuffer)).toBe(json);
    expect(xhr.getResponseHeader('content-length')).toBe('30');
    expect(seen.slice(-3)).toEqual(['readystatechange:4', 'load:4', 'loadend:4']);
    expect(stats).toMatchObject({ wireGuarded: 0, unrecognised: 1 });
  });

  it('leaves responseType document and binary answers of other types alone, at once', () => {
    const { Xhr, stats, probes } = hookedRealm();
    const { xhr } = typedRequest(Xhr, 'document', '/v1/chat/completions');
    xhr.respond(200, SSE_HEADERS);
    const image = typedRequest(Xhr, 'blob', '/logo.png').xhr;
    image.respond(200, { 'content-type': 'image/png' });
    image.receive('PNG');
    image.finish();
    expect(image.readyState).toBe(4);
    expect(image.response).toBeInstanceOf(Blob);
    expect(stats).toMatchObject({ wireGuarded: 0, unrecognised: 0 });
    // Each decided at its headers, on the bare probe: no peek, nothing held.
    expect(probes.map((p) => p.head)).toEqual(['', '']);
  });

  it('refuses a synchronous chat request with a notice: a network error, nothing of the answer', () => {
    const reports: string[][] = [];
    const { Xhr } = hookedRealm({ reportFailure: (hook, reason) => reports.push([hook, reason]) });
    const xhr = new Xhr();
    const seen: string[] = [];
    for (const type of ['readystatechange', 'load', 'loadend', 'error']) {
      xhr.addEventListener(type, () => seen.push(`${type}:${xhr.readyState}`));
    }
    xhr.open('POST', '/v1/chat/completions', false);
    xhr.answerSynchronously(200, SSE_HEADERS, secretSse());
    let thrown: unknown;
    try {
      xhr.send();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DOMException);
    expect((thrown as DOMException).name).toBe('NetworkError');
    expect(xhr.readyState).toBe(4);
    expect(xhr.status).toBe(0);
    expect(xhr.responseText).toBe('');
    expect(xhr.getAllResponseHeaders()).toBe('');
    expect(seen).toEqual(['readystatechange:1']);
    expect(reports).toEqual([['xhr', 'synchronous']]);
  });

  it('leaves a synchronous request that is no chat answer to the browser', () => {
    const { Xhr, stats } = hookedRealm();
    const xhr = new Xhr();
    xhr.open('GET', '/api/status', false);
    xhr.answerSynchronously(200, { 'content-type': 'application/json' }, '{"ok":true}');
    xhr.send();
    expect(xhr.status).toBe(200);
    expect(xhr.responseText).toBe('{"ok":true}');
    expect(stats.decisionErrors + stats.guardFailures).toBe(0);
  });
});

describe('installXhrHook: looks native', () => {
  it('keeps name, length, source text, prototype, statics and instanceof', () => {
    const { Xhr, native } = hookedRealm();
    expect(Xhr).not.toBe(native);
    expect(Xhr.name).toBe('FakeXhr');
    expect(Xhr.length).toBe(native.length);
    expect(Function.prototype.toString.call(Xhr)).toBe(Function.prototype.toString.call(native));
    expect(Xhr.prototype).toBe(native.prototype);
    expect(Xhr.prototype.constructor).toBe(Xhr);
    expect(Object.getPrototypeOf(Xhr)).toBe(Object.getPrototypeOf(native));
    expect(Xhr.DONE).toBe(4);
    const xhr = new Xhr();
    expect(xhr).toBeInstanceOf(Xhr);
    expect(xhr).toBeInstanceOf(native);
    // No own property added to the instance (the fake's own test fields aside).
    expect(Object.getOwnPropertyNames(xhr)).toEqual(
      Object.getOwnPropertyNames(new (createFakeXhrClass())()),
    );
    class Sub extends Xhr {}
    expect(new Sub()).toBeInstanceOf(Xhr);
    expect(() => (Xhr as unknown as () => unknown)()).toThrow(TypeError);
    const getter = Object.getOwnPropertyDescriptor(Xhr.prototype, 'responseText')!.get!;
    const unpatched = Object.getOwnPropertyDescriptor(
      createFakeXhrClass().prototype,
      'responseText',
    )!;
    expect(getter.name).toBe(unpatched.get!.name);
    expect(Function.prototype.toString.call(getter)).toBe(
      Function.prototype.toString.call(unpatched.get),
    );
    expect('prototype' in getter).toBe(false);
    expect(Xhr.prototype.open.name).toBe('open');
    expect(Xhr.prototype.open.length).toBe(native.prototype.open.length);
  });
});
