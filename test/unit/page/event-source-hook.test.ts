/**
 * The MAIN-world EventSource hook on a fake EventSource (fake-sources.ts), with the real
 * adapter registry, wire transform and core pack: a recognised stream's events reach the
 * page guarded, one for one, through `onmessage` and named-event listeners; other streams
 * are untouched; failures fail closed.
 */

import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { detectAdapter } from '../../../src/core/wire/adapter-registry.ts';
import type { WireRecogniser } from '../../../src/core/wire/wire-event.ts';
import {
  installEventSourceHook,
  sseTextOf,
  type EventSourceHookTarget,
} from '../../../src/page/event-source-hook.ts';
import { newFetchHookStats } from '../../../src/page/fetch-hook.ts';
import type { ByteGuard } from '../../../src/page/guarded-response.ts';
import { fakeGithubToken, scriptedAnswer } from '../../mock-chat/scripted-answers.ts';
import { anthropicSse, openAiChatSse } from '../../mock-chat/wire-answers.ts';
import { createFakeEventSourceRealm } from './fake-sources.ts';
import { localWireGuard } from '../../support/local-guards.ts';

const token = fakeGithubToken();

function hookedRealm(createWireGuard?: (recogniser: WireRecogniser) => ByteGuard) {
  const fakes = createFakeEventSourceRealm();
  const native = fakes.EventSource;
  const stats = newFetchHookStats();
  const target = { ...fakes, MessageEvent, Event, Function };
  installEventSourceHook(target as unknown as EventSourceHookTarget, {
    detectAdapter,
    createWireGuard: createWireGuard ?? localWireGuard,
    stats,
  });
  return { EventSource: target.EventSource, EventTarget: fakes.EventTarget, native, stats };
}

/** An SSE body as the events EventSource would deliver. */
function eventsOf(sse: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  parser.feed(sse);
  return events;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

interface Received {
  type: string;
  data: string;
  lastEventId: string;
}

describe('installEventSourceHook', () => {
  // Compiling the core pack once takes seconds on a loaded machine: not a test's time.
  beforeAll(() => {
    getCorePack();
  }, 60_000);

  it('guards an OpenAI stream read through onmessage, one event for one', async () => {
    const { EventSource, stats } = hookedRealm();
    const source = new EventSource('/v1/chat/completions/stream');
    const received: Received[] = [];
    source.onmessage = (event) => {
      const { type, data, lastEventId } = event as MessageEvent<string>;
      received.push({ type, data, lastEventId });
    };
    const events = eventsOf(openAiChatSse(scriptedAnswer('secret')));
    source.onerror = () => {
      received.push({ type: 'error', data: '', lastEventId: '' });
      // As many pages do: stop reconnecting once the stream dropped.
      source.close();
    };
    for (const event of events) {
      source.emit('message', event.data);
      await settle();
    }
    // The server ends the response: the guard releases what it held, then the error.
    source.drop();
    await vi.waitFor(() => expect(received.at(-1)?.type).toBe('error'));
    received.pop();
    const text = received
      .filter((r) => r.data !== '[DONE]')
      .map((r) => (JSON.parse(r.data) as { choices: { delta: { content?: string } }[] }).choices)
      .map((choices) => choices[0]?.delta.content ?? '')
      .join('');
    expect(text).toContain('[redacted:github-pat]');
    expect(text).not.toContain(token.slice(4, 14));
    expect(received.at(-1)?.data).toBe('[DONE]');
    expect(stats).toMatchObject({ wireGuarded: 1, guardFailures: 0 });
  });

  it('guards named events (addEventListener) and keeps event ids', async () => {
    const { EventSource } = hookedRealm();
    const source = new EventSource('http://127.0.0.1:8080/v1/messages');
    const received: Received[] = [];
    const record = (event: Event) => {
      const { type, data, lastEventId } = event as MessageEvent<string>;
      received.push({ type, data, lastEventId });
    };
    const events = eventsOf(anthropicSse(scriptedAnswer('secret')));
    for (const type of new Set(events.map((e) => e.event ?? 'message'))) {
      source.addEventListener(type, record);
    }
    events.forEach((event, i) => source.emit(event.event ?? 'message', event.data, `e${i}`));
    source.drop();
    await vi.waitFor(() => expect(received.length).toBe(events.length));
    expect(received.map((r) => r.type)).toEqual(events.map((e) => e.event));
    expect(received.map((r) => r.lastEventId)).toEqual(events.map((_, i) => `e${i}`));
    const all = received.map((r) => r.data).join('\n');
    expect(all).toContain('[redacted:github-pat]');
    expect(all).not.toContain(token.slice(4, 14));
  });

  it('leaves an unrecognised stream untouched and synchronous', () => {
    const { EventSource, stats } = hookedRealm();
    const source = new EventSource('/ticks');
    const received: string[] = [];
    source.addEventListener('tick', (event) => received.push((event as MessageEvent).data));
    source.onmessage = (event) => received.push((event as MessageEvent).data as string);
    source.emit('message', `{"note":"${token}"}`);
    expect(received).toEqual([`{"note":"${token}"}`]);
    source.emit('tick', 'a');
    expect(received).toEqual([`{"note":"${token}"}`, 'a']);
    expect(stats).toMatchObject({ unrecognised: 1, wireGuarded: 0 });
  });

  it('fails closed when the guard fails: closed, an error event, nothing after', async () => {
    let chunks = 0;
    const { EventSource, stats } = hookedRealm((recogniser) => {
      const inner = localWireGuard(recogniser);
      const breaker = new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (++chunks === 4) throw new Error('rule crashed');
          controller.enqueue(chunk);
        },
      });
      return { writable: breaker.writable, readable: breaker.readable.pipeThrough(inner) };
    });
    const source = new EventSource('/v1/chat/completions');
    const seen: string[] = [];
    source.onmessage = (event) => seen.push((event as MessageEvent<string>).data);
    source.onerror = () => seen.push('<error>');
    for (const event of eventsOf(openAiChatSse(scriptedAnswer('secret')))) {
      source.emit('message', event.data);
      await settle();
    }
    expect(seen.at(-1)).toBe('<error>');
    expect(seen.filter((s) => s === '<error>').length).toBe(1);
    expect(source.readyState).toBe(2);
    expect(seen.join('')).not.toContain(token.slice(4, 14));
    expect(stats.guardFailures).toBe(1);
  });

  it('delivers nothing more once the page closed the stream', async () => {
    const { EventSource } = hookedRealm();
    const source = new EventSource('/v1/chat/completions');
    const seen: string[] = [];
    source.onmessage = (event) => seen.push((event as MessageEvent<string>).data);
    const events = eventsOf(openAiChatSse(scriptedAnswer('hello')));
    source.emit('message', events[0]!.data);
    await settle();
    const before = seen.length;
    source.close();
    source.emit('message', events[1]!.data);
    await settle();
    expect(seen.length).toBe(before);
  });

  it('looks native: constructor and addEventListener', () => {
    const { EventSource, EventTarget, native } = hookedRealm();
    expect(EventSource).not.toBe(native);
    expect(EventSource.name).toBe(native.name);
    expect(EventSource.prototype).toBe(native.prototype);
    expect(Function.prototype.toString.call(EventSource)).toBe(
      Function.prototype.toString.call(native),
    );
    const source = new EventSource('/x');
    expect(source).toBeInstanceOf(native);
    expect(source.addEventListener).toBe(EventTarget.prototype.addEventListener);
    expect(EventTarget.prototype.addEventListener.name).toBe('addEventListener');
    expect(Object.prototype.hasOwnProperty.call(native.prototype, 'addEventListener')).toBe(false);
  });

  it('rebuilds an event as SSE text', () => {
    expect(sseTextOf('message', 'a\nb', '', '')).toBe('data: a\ndata: b\n\n');
    expect(sseTextOf('delta', ' x', '7', '')).toBe('event: delta\nid: 7\ndata:  x\n\n');
    expect(sseTextOf('delta', '', '7', '7')).toBe('event: delta\ndata: \n\n');
  });
});
