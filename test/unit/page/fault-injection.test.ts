/**
 * Issue 18 §4: page code cannot break or open the hooks. Each hook (fetch, XHR,
 * EventSource, WebSocket) is installed as main-world.ts installs it, with its guards
 * remote (src/page/remote-guard.ts) behind a stand-in bridge (fake-bridge.ts); then,
 * AFTER the hooks are in, page code breaks a built-in: a TextDecoder polyfill that throws,
 * a polluted Object.prototype (values and getters that throw), a broken
 * RegExp.prototype.exec, a polyfilled ReadableStream, replaced Response and JSON.parse,
 * lying string and collection methods. A chat answer carrying a secret then arrives. Each
 * time the page either reads the guarded answer or gets a failure the person is told of
 * (a `hook-failed` report): never one character of the raw secret.
 *
 * The fake network and the page's reading side stand for the browser's own code, which
 * page scripts cannot change: they use built-ins captured before any fault, and what the
 * page read is decoded and checked only after the fault is undone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { recognisers, recogniseResponse } from '../../../src/core/wire/wire-recognisers.ts';
import { installEventSourceHook } from '../../../src/page/event-source-hook.ts';
import type { EventSourceHookTarget } from '../../../src/page/event-source-hook.ts';
import { installFetchHook, newFetchHookStats } from '../../../src/page/fetch-hook.ts';
import type { FetchHookTarget } from '../../../src/page/fetch-hook.ts';
import { snapshotLanguage } from '../../../src/page/intrinsics.ts';
import type { PageHookOptions } from '../../../src/page/page-hook-options.ts';
import { installWebSocketHook } from '../../../src/page/web-socket-hook.ts';
import type { WebSocketHookTarget } from '../../../src/page/web-socket-hook.ts';
import { installXhrHook, type XhrHookTarget } from '../../../src/page/xhr-hook.ts';
import { fakeGithubToken } from '../../mock-chat/scripted-answers.ts';
import { bridgedOptions, createFakeBridge } from './fake-bridge.ts';
import { createFakeEventSourceRealm, FakeCloseEvent } from './fake-sources.ts';
import { createFakeXhrClass, FakeEventTarget, FakeProgressEvent } from './fake-xhr.ts';

// The browser's own code (network, the page's reading side) is out of the page's reach.
const Net = {
  Response,
  Headers,
  ReadableStream,
  TextEncoder,
  TextDecoder,
  apply: Reflect.apply,
};
const SECRET = fakeGithubToken(77);
const encoded = (text: string) => new Net.TextEncoder().encode(text);

const chunk = (content: string) =>
  `data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}}}]}\n\n`;
const SSE = `: ok\n\n${chunk('Here is the key: ')}${chunk(`${SECRET} keep it safe`)}data: [DONE]\n\n`;
const CHAT_BODY = JSON.stringify({ messages: [{ role: 'user', content: 'the key?' }] });
const SOCKET_MESSAGES = [
  '0{"sid":"s","upgrades":[],"pingInterval":25000,"pingTimeout":20000}',
  '40{"sid":"k"}',
  `42${JSON.stringify(['events', { chat_id: 'c', message_id: 'm', data: { type: 'chat:completion', data: { choices: [{ delta: { content: `key ${SECRET}` } }] } } }])}`,
];

/** What the page could read, and whether the hook stopped the answer and said so. */
interface Outcome {
  read: string;
  failed: boolean;
  reports: string[];
}

/**
 * Lets the hooks' promise jobs run (the stand-in bridge answers in microtasks, streams
 * move in microtasks), without giving a macrotask a turn: vitest's own messages, which
 * the faults would break, wait until the fault is undone.
 */
async function settle(turns = 2_000): Promise<void> {
  for (let i = 0; i < turns; i++) await null;
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 50 && !done(); i++) await settle(200);
}

function hookOptions(reports: string[]): PageHookOptions {
  const bridge = createFakeBridge(SECRET);
  return {
    ...bridgedOptions(bridge, recogniseResponse),
    createSocketGuard: (probe, sink) =>
      recognisers.openWebUiSocket.detect(probe)
        ? bridge.remote.socket(recognisers.openWebUiSocket, probe, sink)
        : undefined,
    stats: newFetchHookStats(),
    reportFailure: (hook, reason) => reports.push(`${hook}:${reason}`),
  };
}

/** Each hook, installed; `ask` runs once the fault is in and returns what the page read. */
type Scenario = () => { ask(): Promise<Outcome> };

/** An XHR through the hook: POST `path` (with a JSON `body` if given), answered with the SSE as `contentType`. */
function xhrScenario(request: { path: string; contentType: string; body?: string }) {
  const reports: string[] = [];
  const target = {
    XMLHttpRequest: createFakeXhrClass(),
    ProgressEvent: FakeProgressEvent,
    Event,
    EventTarget: FakeEventTarget,
    Function,
    location: { href: 'http://127.0.0.1:8080/chat' },
  };
  installXhrHook(target as unknown as XhrHookTarget, hookOptions(reports));
  return {
    async ask() {
      const xhr = new target.XMLHttpRequest();
      const views: string[] = [];
      let end = '';
      xhr.addEventListener('progress', () => views.push(xhr.responseText));
      for (const type of ['load', 'error']) xhr.addEventListener(type, () => (end = type));
      xhr.open('POST', request.path);
      if (request.body === undefined) {
        xhr.send();
      } else {
        xhr.setRequestHeader('content-type', 'application/json');
        xhr.send(request.body);
      }
      xhr.respond(200, { 'content-type': request.contentType });
      xhr.receive(SSE);
      xhr.finish();
      await until(() => end !== '');
      views.push(xhr.responseText);
      return { read: views.join('\n'), failed: end === 'error', reports };
    },
  };
}

const scenarios: Record<string, Scenario> = {
  fetch() {
    const reports: string[] = [];
    // Made now: Node's Response and Headers are JavaScript that the faults would reach.
    const answer = new Net.Response(
      new Net.ReadableStream({
        start(controller) {
          controller.enqueue(encoded(SSE));
          controller.close();
        },
      }),
      { headers: { 'content-type': 'text/event-stream' } },
    );
    const target = {
      fetch: () => Promise.resolve(answer),
      location: { href: 'http://127.0.0.1:8080/chat', origin: 'http://127.0.0.1:8080' },
      Function,
    };
    installFetchHook(target as unknown as FetchHookTarget, hookOptions(reports));
    return {
      async ask() {
        const bytes: Uint8Array[] = [];
        try {
          const response = await (target.fetch as typeof fetch)('/v1/chat/completions', {
            method: 'POST',
          });
          const reader = response.body!.getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            bytes.push(value);
          }
        } catch {
          return { read: readBytes(bytes), failed: true, reports };
        }
        return { read: readBytes(bytes), failed: false, reports };
      },
    };
  },
  xhr: () => xhrScenario({ path: '/v1/chat/completions', contentType: 'text/event-stream' }),
  // Issue 18 §1: a chat-shaped request to a path no adapter claims, answered as text/plain.
  'xhr (chat request, no adapter claims)': () =>
    xhrScenario({ path: '/api/stream', contentType: 'text/plain', body: CHAT_BODY }),
  'event-source'() {
    const reports: string[] = [];
    const fakes = createFakeEventSourceRealm();
    const target = { ...fakes, MessageEvent, Event, Function };
    installEventSourceHook(target as unknown as EventSourceHookTarget, hookOptions(reports));
    return {
      async ask() {
        const source = new target.EventSource('/v1/chat/completions');
        const read: string[] = [];
        let failed = false;
        source.addEventListener('message', (event) => read.push(`${(event as MessageEvent).data}`));
        source.addEventListener('error', () => {
          failed = source.readyState === 2 && read.length === 0;
          source.close();
        });
        for (const event of SSE.split('\n\n').slice(1, -1)) {
          source.emit('message', event.slice('data: '.length));
        }
        source.drop();
        await until(() => source.readyState === 2);
        await settle();
        return { read: read.join('\n'), failed, reports };
      },
    };
  },
  'web-socket'() {
    const reports: string[] = [];
    const fakes = createFakeEventSourceRealm();
    const target = { ...fakes, MessageEvent, CloseEvent: FakeCloseEvent, Event, Function };
    installWebSocketHook(target as unknown as WebSocketHookTarget, hookOptions(reports));
    return {
      async ask() {
        const socket = new target.WebSocket('ws://127.0.0.1:8080/ws/socket.io/?EIO=4');
        const read: string[] = [];
        let closed = false;
        socket.addEventListener('message', (event) => read.push(`${(event as MessageEvent).data}`));
        socket.addEventListener('close', () => (closed = true));
        for (const message of SOCKET_MESSAGES) socket.emit(message);
        await settle();
        const failed = socket.closedWith !== undefined;
        if (!failed) socket.closeFromServer();
        await until(() => closed || failed);
        return { read: read.join('\n'), failed, reports };
      },
    };
  },
  // Issue 18 §3: OpenAI-style JSON frames on a socket no format claims (generic adapter).
  'web-socket (JSON frames, generic adapter)'() {
    const reports: string[] = [];
    const fakes = createFakeEventSourceRealm();
    const target = { ...fakes, MessageEvent, CloseEvent: FakeCloseEvent, Event, Function };
    installWebSocketHook(target as unknown as WebSocketHookTarget, hookOptions(reports));
    return {
      async ask() {
        const socket = new target.WebSocket('ws://127.0.0.1:8080/realtime');
        const read: string[] = [];
        let closed = false;
        socket.addEventListener('message', (event) => read.push(`${(event as MessageEvent).data}`));
        socket.addEventListener('close', () => (closed = true));
        socket.send(CHAT_BODY);
        for (const event of SSE.split('\n\n').slice(1, -2)) socket.emit(event.slice(6));
        await settle();
        const failed = socket.closedWith !== undefined;
        if (!failed) socket.closeFromServer();
        await until(() => closed || failed);
        return { read: read.join('\n'), failed, reports };
      },
    };
  },
};

const netDecode = Net.TextDecoder.prototype.decode;

function readBytes(parts: Uint8Array[]): string {
  const decoder = new Net.TextDecoder();
  let text = '';
  for (const part of parts) text += Net.apply(netDecode, decoder, [part, { stream: true }]);
  return text + Net.apply(netDecode, decoder, []);
}

/** A fault page code brings in after the hooks: returns how to undo it. */
type Fault = () => () => void;

/** Replaces `holder[key]` (keeping its flags); the returned function puts it back. */
function replace(holder: object, key: PropertyKey, value: unknown): () => void {
  const before = Object.getOwnPropertyDescriptor(holder, key)!;
  Object.defineProperty(holder, key, { ...before, value });
  return () => Object.defineProperty(holder, key, before);
}

function throws(): never {
  throw new Error('polyfill failure');
}

const faults: Record<string, Fault> = {
  'a TextDecoder polyfill that throws': () => {
    const undo = [
      replace(globalThis, 'TextDecoder', function TextDecoder() {
        throws();
      }),
      replace(Net.TextDecoder.prototype, 'decode', throws),
      replace(Net.TextEncoder.prototype, 'encode', throws),
    ];
    return () => undo.forEach((u) => u());
  },
  'a polluted Object.prototype (values and getters that throw)': () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.choices = [{ delta: { content: 'x' } }];
    proto.object = 'chat.completion.chunk';
    for (const key of ['delta', 'content', 'message', 'head', 'contentType']) {
      Object.defineProperty(proto, key, { get: throws, configurable: true });
    }
    return () => {
      for (const key of ['choices', 'object', 'delta', 'content', 'message', 'head']) {
        delete proto[key];
      }
      delete proto.contentType;
    };
  },
  'a RegExp.prototype.exec that never matches': () => replace(RegExp.prototype, 'exec', () => null),
  'a RegExp.prototype.exec that throws': () => replace(RegExp.prototype, 'exec', throws),
  'string methods that lie': () => {
    const undo = [
      replace(String.prototype, 'includes', () => false),
      replace(String.prototype, 'startsWith', () => false),
      replace(String.prototype, 'toLowerCase', () => ''),
    ];
    return () => undo.forEach((u) => u());
  },
  'a polyfilled ReadableStream (web-streams-polyfill)': () =>
    replace(
      globalThis,
      'ReadableStream',
      class ReadableStream {
        getReader() {
          return { read: () => Promise.resolve({ done: true, value: undefined }) };
        }
      },
    ),
  'Response, Headers and JSON.parse replaced': () => {
    const undo = [
      replace(globalThis, 'Response', throws),
      replace(globalThis, 'Headers', throws),
      replace(JSON, 'parse', throws),
    ];
    return () => undo.forEach((u) => u());
  },
  'WeakMap, WeakSet and Map methods that lie': () => {
    const undo = [
      replace(WeakMap.prototype, 'get', () => undefined),
      replace(WeakSet.prototype, 'has', () => false),
      replace(Map.prototype, 'get', () => undefined),
    ];
    return () => undo.forEach((u) => u());
  },
  'Reflect.apply and Object.assign replaced (they lie)': () => {
    const undo = [
      replace(Reflect, 'apply', () => undefined),
      replace(Object, 'assign', (target: object) => target),
    ];
    return () => undo.forEach((u) => u());
  },
};

/**
 * A built-in the page replaced and made non-configurable: the hooks cannot put it back
 * for a decision, so they fail closed and say so. (Writable, so the test can undo it;
 * each hook's test takes another built-in, since a property stays non-configurable.)
 */
const LOCKED: Record<string, [object, string]> = {
  fetch: [RegExp.prototype, 'exec'],
  xhr: [RegExp.prototype, 'test'],
  'event-source': [String.prototype, 'includes'],
  'web-socket': [String.prototype, 'startsWith'],
  'xhr (chat request, no adapter claims)': [Array.prototype, 'some'],
  'web-socket (JSON frames, generic adapter)': [String.prototype, 'search'],
};

function lockedFault(hook: string): Fault {
  return () => {
    const [holder, key] = LOCKED[hook]!;
    const native = (holder as Record<string, unknown>)[key];
    Object.defineProperty(holder, key, { value: () => null, writable: true, configurable: false });
    return () => {
      (holder as Record<string, unknown>)[key] = native;
    };
  };
}

describe.each(Object.keys(scenarios))('fault injection: the %s hook', (hook) => {
  let undo: (() => void) | undefined;
  afterEach(() => {
    undo?.();
    undo = undefined;
  });

  async function attempt(fault: Fault): Promise<Outcome> {
    const scenario = scenarios[hook]!();
    snapshotLanguage();
    undo = fault();
    try {
      return await scenario.ask();
    } finally {
      undo();
      undo = undefined;
    }
  }

  it('with nothing broken: guarded', async () => {
    const outcome = await attempt(() => () => undefined);
    expect(outcome).toMatchObject({ failed: false, reports: [] });
    expect(outcome.read).toContain('[redacted]');
    expect(outcome.read).not.toContain(SECRET.slice(4, 14));
  });

  // Node's Response is JavaScript that reads the global ReadableStream when it runs, so
  // with a polyfill in place Node's own bodies break; a browser's Response is native. The
  // fetch hook with a polyfilled ReadableStream is tested in real browsers instead
  // (test/e2e/page-hooks.test.ts).
  const applicable = Object.keys(faults).filter(
    (name) => !(hook === 'fetch' && name.includes('ReadableStream')),
  );

  it.each(applicable)('%s: guarded as if nothing were broken', async (name) => {
    const outcome = await attempt(faults[name]!);
    expect(outcome.read).not.toContain(SECRET.slice(4, 14));
    expect(outcome).toMatchObject({ failed: false, reports: [] });
    expect(outcome.read).toContain('[redacted]');
  });

  it('a built-in replaced for good (non-configurable): stopped, with a notice', async () => {
    const outcome = await attempt(lockedFault(hook));
    expect(outcome.read).not.toContain(SECRET.slice(4, 14));
    expect(outcome.failed).toBe(true);
    // The report names the hook (`xhr`, `web-socket`), not the scenario.
    expect(outcome.reports).toEqual([`${hook.split(' ')[0]}:decision`]);
  });
});
