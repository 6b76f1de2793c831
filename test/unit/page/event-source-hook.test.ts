/**
 * The MAIN-world EventSource hook on a fake EventSource (fake-sources.ts), with the real
 * adapter registry, wire transform and core pack: a recognised stream's events reach the
 * page guarded, one for one, through `onmessage` and named-event listeners; other streams
 * are untouched; failures fail closed.
 */

import { createParser, type EventSourceMessage } from 'eventsource-parser';
import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { detectAdapter } from '../../../src/core/wire/adapter-registry.ts';
import type { WireProbe, WireRecogniser } from '../../../src/core/wire/wire-event.ts';
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
import { cut, cutsArbitrary } from '../../support/text-arbitraries.ts';

const token = fakeGithubToken();

function hookedRealm(
  createWireGuard?: (recogniser: WireRecogniser) => ByteGuard,
  detect: (probe: WireProbe) => WireRecogniser | undefined = detectAdapter,
) {
  const fakes = createFakeEventSourceRealm();
  const native = fakes.EventSource;
  const stats = newFetchHookStats();
  const target = { ...fakes, MessageEvent, Event, Function };
  /** The recognisers the hook opened a guard with, in order. */
  const opened: string[] = [];
  installEventSourceHook(target as unknown as EventSourceHookTarget, {
    detectAdapter: detect,
    createWireGuard: (recogniser) => {
      opened.push(recogniser.id);
      return (createWireGuard ?? localWireGuard)(recogniser);
    },
    stats,
  });
  return { EventSource: target.EventSource, EventTarget: fakes.EventTarget, native, stats, opened };
}

/** An SSE body as the events EventSource would deliver. */
function eventsOf(sse: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  parser.feed(sse);
  return events;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

/** The answer text OpenAI chat events carry (their content deltas). */
function contentOf(datas: string[]): string {
  return datas
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data) as { choices: { delta: { content?: string } }[] })
    .map((chunk) => chunk.choices[0]?.delta.content ?? '')
    .join('');
}

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

  describe('a stream no adapter claims: the generic adapter guards it (issue 18)', () => {
    /** Plain-text pieces of an answer, as the data of named `chunk` events. */
    const answerText = `The deploy token is ${token}. Rotate it.`;

    it('guards from the first event; the audit format is generic; nothing passes raw', async () => {
      const { EventSource, stats, opened } = hookedRealm();
      const source = new EventSource('/ticks');
      const received: string[] = [];
      source.addEventListener('tick', (event) => received.push((event as MessageEvent).data));
      source.onmessage = (event) => received.push((event as MessageEvent).data as string);
      source.emit('message', `{"note":"${token}"}`);
      // Not the browser's own event: the guarded copy comes after the guard's hop.
      expect(received).toEqual([]);
      source.emit('tick', 'a');
      source.giveUp();
      await vi.waitFor(() => expect(received).toHaveLength(2));
      expect(received[0]).toBe('{"note":"[redacted:github-pat]"}');
      expect(received[1]).toBe('a');
      expect(opened).toEqual(['generic']);
      expect(stats).toMatchObject({ unrecognised: 0, wireGuarded: 1 });
    });

    it('redacts a secret split across non-JSON data events whole, for any split', async () => {
      getCorePack();
      await fc.assert(
        fc.asyncProperty(cutsArbitrary, async (cuts) => {
          const { EventSource } = hookedRealm();
          const source = new EventSource('/api/notes');
          const received: string[] = [];
          let errors = 0;
          source.addEventListener('chunk', (event) => received.push((event as MessageEvent).data));
          source.onerror = () => errors++;
          for (const piece of cut(answerText, cuts)) source.emit('chunk', piece);
          source.giveUp();
          await vi.waitFor(() => expect(errors).toBe(1));
          const text = received.join('');
          expect(text).toBe('The deploy token is [redacted:github-pat]. Rotate it.');
        }),
        { numRuns: 15 },
      );
    });

    it('keeps one guard across a reconnection: a secret cut at the drop is redacted whole', async () => {
      const { EventSource, opened } = hookedRealm();
      const source = new EventSource('/api/notes');
      const received: string[] = [];
      let errors = 0;
      source.addEventListener('chunk', (event) => received.push((event as MessageEvent).data));
      source.onerror = () => errors++;
      const cut = answerText.indexOf(token) + 9;
      source.emit('chunk', answerText.slice(0, cut), '1');
      await settle();
      source.drop();
      source.emit('chunk', answerText.slice(cut), '2');
      source.emit('end', 'done', '3');
      source.giveUp();
      await vi.waitFor(() => expect(errors).toBe(2));
      expect(received.join('')).toBe('The deploy token is [redacted:github-pat]. Rotate it.');
      expect(opened).toEqual(['generic']);
    });

    it("stays the browser's own when not even the generic adapter claims it", () => {
      const { EventSource, stats } = hookedRealm(undefined, () => undefined);
      const source = new EventSource('/ticks');
      const received: string[] = [];
      source.onmessage = (event) => received.push((event as MessageEvent).data as string);
      source.emit('message', 'one');
      source.emit('message', 'two');
      expect(received).toEqual(['one', 'two']);
      expect(stats).toMatchObject({ unrecognised: 1, wireGuarded: 0 });
    });
  });

  it('a {"status":"connected"} first event: guarded generic, the OpenAI shape committed after', async () => {
    const { EventSource, stats, opened } = hookedRealm();
    const source = new EventSource('/api/stream');
    const seen: string[] = [];
    source.onmessage = (event) => seen.push((event as MessageEvent<string>).data);
    source.emit('message', '{"status":"connected"}');
    for (const event of eventsOf(openAiChatSse(scriptedAnswer('secret')))) {
      source.emit('message', event.data);
    }
    source.giveUp();
    await vi.waitFor(() => expect(seen.at(-1)).toBe('[DONE]'));
    expect(seen[0]).toBe('{"status":"connected"}');
    const text = contentOf(seen.slice(1));
    expect(text).toContain('[redacted:github-pat]');
    expect(text).not.toContain(token.slice(4, 14));
    expect(opened).toEqual(['generic']);
    expect(stats).toMatchObject({ wireGuarded: 1 });
  });

  describe('one guard per EventSource, across reconnections (issue 18 §3)', () => {
    /** The secret's events, cut after the event that carries the token's first half. */
    function cutInsideSecret() {
      const events = eventsOf(openAiChatSse(scriptedAnswer('secret')));
      let text = '';
      for (let i = 0; i < events.length; i++) {
        text += contentOf([events[i]!.data]);
        const at = text.indexOf(token.slice(0, 4));
        if (at >= 0 && !text.includes(token)) {
          return { before: events.slice(0, i + 1), after: events.slice(i + 1) };
        }
      }
      throw new Error('the token is in one event');
    }

    it('a secret cut at a drop is redacted whole, the held tail carried over', async () => {
      const { EventSource, stats } = hookedRealm();
      const source = new EventSource('/v1/chat/completions');
      const seen: string[] = [];
      source.onmessage = (event) => seen.push((event as MessageEvent<string>).data);
      source.onerror = () => seen.push('<error>');
      const { before, after } = cutInsideSecret();
      before.forEach((event, i) => source.emit('message', event.data, `m${i}`));
      await settle();
      source.drop();
      // The page hears of the drop at once; the browser reconnects (Last-Event-ID).
      expect(seen.at(-1)).toBe('<error>');
      after.forEach((event, i) => source.emit('message', event.data, `m${before.length + i}`));
      source.giveUp();
      await vi.waitFor(() => expect(seen.filter((s) => s === '<error>')).toHaveLength(2));
      expect(seen.at(-1)).toBe('<error>');
      const text = contentOf(seen.filter((s) => s !== '<error>'));
      expect(text).toContain('[redacted:github-pat]');
      for (let at = 0; at + 8 <= token.length; at++) {
        expect(text).not.toContain(token.slice(at, at + 8));
      }
      expect(stats).toMatchObject({ wireGuarded: 1, guardFailures: 0 });
    });

    it('the page closing in onerror still gets what the guard held, after the error', async () => {
      const { EventSource } = hookedRealm();
      const source = new EventSource('/v1/chat/completions');
      const seen: string[] = [];
      source.onmessage = (event) => seen.push((event as MessageEvent<string>).data);
      source.onerror = () => {
        seen.push('<error>');
        source.close();
      };
      const events = eventsOf(openAiChatSse(scriptedAnswer('hello')));
      // Without [DONE], the last words may still be held when the connection drops.
      for (const event of events.slice(0, -1)) source.emit('message', event.data);
      await settle();
      source.drop();
      await settle();
      expect(seen).toContain('<error>');
      expect(source.readyState).toBe(2);
      expect(contentOf(seen.filter((s) => s !== '<error>'))).toBe(scriptedAnswer('hello').text);
    });

    it('the browser giving up ends the stream: the held events first, then the error', async () => {
      const { EventSource } = hookedRealm();
      const source = new EventSource('/v1/chat/completions');
      const seen: string[] = [];
      source.onmessage = (event) => seen.push((event as MessageEvent<string>).data);
      source.onerror = () => seen.push('<error>');
      const events = eventsOf(openAiChatSse(scriptedAnswer('hello')));
      for (const event of events.slice(0, -1)) source.emit('message', event.data);
      source.giveUp();
      await vi.waitFor(() => expect(seen.at(-1)).toBe('<error>'));
      expect(seen.filter((s) => s === '<error>')).toHaveLength(1);
      expect(contentOf(seen.slice(0, -1))).toBe(scriptedAnswer('hello').text);
    });
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
