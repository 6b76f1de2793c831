/**
 * The engine dock (src/content/engine-dock.ts): the bridge keeps the page's
 * messages, in order, until the guard engine docks, and fails them closed if it
 * never does (issue 4: the engine runs in a later task than the page's first parse).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEngineDock, type DockedEngine } from '../../../src/content/engine-dock.ts';
import type { BridgeToPage, GuardKind, PageToBridge } from '../../../src/protocol/page-channel.ts';

function recorder() {
  const answers: BridgeToPage[] = [];
  const received: PageToBridge[] = [];
  const engine: DockedEngine = { receive: (message) => received.push(message) };
  return { answers, received, engine, toPage: (message: BridgeToPage) => answers.push(message) };
}

const probe = { url: 'https://chat.example/api', contentType: 'text/event-stream', head: '' };
const open = (streamId: string): PageToBridge => ({
  v: 1,
  type: 'guard-open',
  streamId,
  kind: 'wire',
  recogniser: 'openai-sse',
  probe,
});
const chunk = (streamId: string, text: string): PageToBridge => ({
  v: 1,
  type: 'guard-chunk',
  streamId,
  bytes: new TextEncoder().encode(text),
  last: true,
});
const close = (streamId: string): PageToBridge => ({ v: 1, type: 'guard-close', streamId });
const cancel = (streamId: string): PageToBridge => ({ v: 1, type: 'guard-cancel', streamId });
const socketMessage = (streamId: string, message: string): PageToBridge => ({
  v: 1,
  type: 'guard-message',
  streamId,
  message,
});
const hello: PageToBridge = { v: 1, type: 'hello', hooks: ['fetch'] };
const request = (requestId: string): PageToBridge => ({
  v: 1,
  type: 'request-guard',
  requestId,
  request: { url: 'https://chat.example/api', method: 'POST', contentType: 'application/json' },
  body: '{"prompt":"hi"}',
});

/** What a refused message must be answered with (written out here, not taken from the module). */
function expectedRefusals(messages: readonly PageToBridge[]): BridgeToPage[] {
  const out: BridgeToPage[] = [];
  for (const message of messages) {
    if (message.type === 'guard-open') {
      out.push({ v: 1, type: 'guard-failed', streamId: message.streamId });
    } else if (message.type === 'request-guard') {
      out.push({ v: 1, type: 'request-verdict', requestId: message.requestId, send: false });
    }
  }
  return out;
}

describe('createEngineDock', () => {
  it('queues until docked, then hands over the queue and every later message in order', () => {
    const r = recorder();
    const dock = createEngineDock(r.toPage);
    const before = [hello, open('s1'), chunk('s1', 'a'), request('r1')];
    const after = [chunk('s1', 'b'), close('s1'), open('s2')];
    for (const message of before) dock.receive(message);
    expect(dock.state()).toBe('waiting');
    expect(dock.waiting()).toBe(before.length);
    expect(r.received).toEqual([]);

    const toPage = dock.dock(r.engine);
    expect(toPage).toBe(r.toPage);
    expect(dock.state()).toBe('docked');
    expect(dock.waiting()).toBe(0);
    expect(r.received).toEqual(before);

    for (const message of after) dock.receive(message);
    expect(r.received).toEqual([...before, ...after]);
    expect(dock.waiting()).toBe(0);
    // A docked dock never answers on its own: answering is the engine's job.
    expect(r.answers).toEqual([]);
  });

  it('gives the engine the way back before it hands over what waited', () => {
    const page = recorder();
    const early = { pageConfig: Promise.resolve(undefined), pagePack: Promise.resolve(undefined) };
    const dock = createEngineDock(page.toPage, early);
    dock.receive(open('s1'));
    const order: string[] = [];
    let answer: ((message: BridgeToPage) => void) | undefined;
    dock.dock({
      start: (toPage, asked) => {
        order.push('start');
        answer = toPage;
        // And the background's answers the bridge asked for early.
        expect(asked).toBe(early);
      },
      receive: (message) => {
        order.push(message.type);
        // The guard answering while the waiting messages are handed over.
        if (message.type === 'guard-open') {
          answer?.({ v: 1, type: 'guard-failed', streamId: message.streamId });
        }
      },
    });
    expect(order).toEqual(['start', 'guard-open']);
    expect(page.answers).toEqual([{ v: 1, type: 'guard-failed', streamId: 's1' }]);
  });

  it('accepts only the first engine', () => {
    const r = recorder();
    const second = recorder();
    const dock = createEngineDock(r.toPage);
    dock.receive(open('s1'));
    expect(dock.dock(r.engine)).toBe(r.toPage);
    expect(dock.dock(second.engine)).toBeUndefined();
    dock.receive(chunk('s1', 'x'));
    expect(second.received).toEqual([]);
    expect(r.received).toEqual([open('s1'), chunk('s1', 'x')]);
    expect(dock.state()).toBe('docked');
  });

  it('refuses an engine that comes after the dock expired', () => {
    const r = recorder();
    const dock = createEngineDock(r.toPage);
    dock.expire();
    expect(dock.dock(r.engine)).toBeUndefined();
    expect(dock.state()).toBe('expired');
    dock.receive(open('s1'));
    expect(r.received).toEqual([]);
  });

  it('on expiry answers each waiting open and request exactly once and ignores the rest', () => {
    const r = recorder();
    const dock = createEngineDock(r.toPage);
    const waiting = [
      hello,
      open('s1'),
      chunk('s1', 'a'),
      socketMessage('s1', 'm'),
      request('r1'),
      close('s1'),
      open('s2'),
      cancel('s2'),
      request('r2'),
    ];
    for (const message of waiting) dock.receive(message);
    expect(r.answers).toEqual([]);
    dock.expire();
    expect(r.answers).toEqual([
      { v: 1, type: 'guard-failed', streamId: 's1' },
      { v: 1, type: 'request-verdict', requestId: 'r1', send: false },
      { v: 1, type: 'guard-failed', streamId: 's2' },
      { v: 1, type: 'request-verdict', requestId: 'r2', send: false },
    ]);
    expect(dock.waiting()).toBe(0);
    expect(dock.state()).toBe('expired');
    // A second expiry answers nothing again.
    dock.expire();
    expect(r.answers).toHaveLength(4);
  });

  it('after expiry refuses new opens and requests at once, and nothing else', () => {
    const r = recorder();
    const dock = createEngineDock(r.toPage);
    dock.expire();
    dock.receive(chunk('s9', 'late'));
    dock.receive(hello);
    expect(r.answers).toEqual([]);
    dock.receive(open('s3'));
    expect(r.answers).toEqual([{ v: 1, type: 'guard-failed', streamId: 's3' }]);
    dock.receive(request('r3'));
    expect(r.answers).toEqual([
      { v: 1, type: 'guard-failed', streamId: 's3' },
      { v: 1, type: 'request-verdict', requestId: 'r3', send: false },
    ]);
    expect(dock.waiting()).toBe(0);
  });

  it('ignores an expiry after the engine docked', () => {
    const r = recorder();
    const dock = createEngineDock(r.toPage);
    dock.receive(open('s1'));
    dock.dock(r.engine);
    dock.expire();
    expect(dock.state()).toBe('docked');
    dock.receive(request('r1'));
    expect(r.answers).toEqual([]);
    expect(r.received).toEqual([open('s1'), request('r1')]);
  });

  it('counts the waiting messages', () => {
    const dock = createEngineDock(() => undefined);
    expect(dock.waiting()).toBe(0);
    dock.receive(hello);
    dock.receive(open('s1'));
    expect(dock.waiting()).toBe(2);
    dock.receive(chunk('s1', ''));
    expect(dock.waiting()).toBe(3);
  });
});

/** Any valid PageToBridge message (every member of the union). */
const id = fc.string({ minLength: 1, maxLength: 6 });
const guardKind = fc.constantFrom<GuardKind>('wire', 'plain-text', 'socket');
const pageMessage: fc.Arbitrary<PageToBridge> = fc.oneof(
  fc.record({
    v: fc.constant(1 as const),
    type: fc.constant('hello' as const),
    hooks: fc.array(fc.constantFrom('fetch', 'xhr', 'websocket', 'eventsource'), { maxLength: 4 }),
  }),
  fc.record({
    v: fc.constant(1 as const),
    type: fc.constant('guard-open' as const),
    streamId: id,
    kind: guardKind,
    recogniser: fc.string({ maxLength: 12 }),
    probe: fc.record({ url: fc.webUrl(), contentType: fc.string(), head: fc.string() }),
  }),
  fc.record({
    v: fc.constant(1 as const),
    type: fc.constant('guard-chunk' as const),
    streamId: id,
    bytes: fc.uint8Array({ maxLength: 16 }),
    last: fc.boolean(),
  }),
  fc.record({
    v: fc.constant(1 as const),
    type: fc.constant('guard-message' as const),
    streamId: id,
    message: fc.string(),
  }),
  fc.record({
    v: fc.constant(1 as const),
    type: fc.constant('guard-close' as const),
    streamId: id,
  }),
  fc.record({
    v: fc.constant(1 as const),
    type: fc.constant('guard-cancel' as const),
    streamId: id,
  }),
  fc.record({
    v: fc.constant(1 as const),
    type: fc.constant('request-guard' as const),
    requestId: id,
    request: fc.record({
      url: fc.webUrl(),
      method: fc.constantFrom('POST', 'PUT'),
      contentType: fc.string(),
    }),
    body: fc.string(),
  }),
);

/** A sequence of messages and a position in it (0 … length). */
const sequenceAndCut = fc
  .array(pageMessage, { maxLength: 30 })
  .chain((messages) =>
    fc.tuple(fc.constant(messages), fc.integer({ min: 0, max: messages.length })),
  );

describe('createEngineDock, for any sequence of page messages', () => {
  it('the engine receives the whole sequence in order, wherever it docks', () => {
    fc.assert(
      fc.property(sequenceAndCut, ([messages, at]) => {
        const r = recorder();
        const dock = createEngineDock(r.toPage);
        messages.slice(0, at).forEach((message) => dock.receive(message));
        expect(dock.waiting()).toBe(at);
        expect(dock.dock(r.engine)).toBe(r.toPage);
        messages.slice(at).forEach((message) => dock.receive(message));
        expect(r.received).toEqual(messages);
        expect(r.answers).toEqual([]);
      }),
    );
  });

  it('an expiry anywhere refuses exactly the opens and requests, once each, in order', () => {
    fc.assert(
      fc.property(sequenceAndCut, ([messages, at]) => {
        const r = recorder();
        const dock = createEngineDock(r.toPage);
        messages.slice(0, at).forEach((message) => dock.receive(message));
        expect(r.answers).toEqual([]);
        dock.expire();
        expect(r.answers).toEqual(expectedRefusals(messages.slice(0, at)));
        messages.slice(at).forEach((message) => dock.receive(message));
        expect(r.answers).toEqual(expectedRefusals(messages));
        expect(dock.dock(r.engine)).toBeUndefined();
        expect(r.received).toEqual([]);
      }),
    );
  });
});
