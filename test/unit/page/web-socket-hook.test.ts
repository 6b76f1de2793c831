/**
 * The MAIN-world WebSocket hook on a fake WebSocket (fake-sources.ts), with Open WebUI's
 * real socket guard and the core pack: a recognised socket's text messages reach the
 * page guarded, through `onmessage` and `message` listeners, in order; other sockets and
 * binary messages are untouched; a guard failure closes the socket.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import {
  OpenWebUiSocketGuard,
  openWebUiSocket,
} from '../../../src/core/wire/adapters/open-webui-socket.ts';
import { newFetchHookStats } from '../../../src/page/fetch-hook.ts';
import type { SocketMessageGuard } from '../../../src/page/page-hook-options.ts';
import type { SocketSink } from '../../../src/page/remote-guard.ts';
import {
  installWebSocketHook,
  type WebSocketHookTarget,
} from '../../../src/page/web-socket-hook.ts';
import { fakeGithubToken, scriptedAnswer } from '../../mock-chat/scripted-answers.ts';
import { openWebUiSocketMessages, textOfSocketMessages } from '../../mock-chat/socket-answers.ts';
import { createFakeEventSourceRealm, FakeCloseEvent } from './fake-sources.ts';

const token = fakeGithubToken();

/** A socket guard that answers synchronously (the extension's answers come later). */
interface LocalSocketGuard {
  push(message: string): string[];
  end(): string[];
}

/**
 * `inner` as the hook sees a guard: its output goes to the sink, now or (`later`)
 * in a microtask, the way the ISOLATED world's answers arrive over the port.
 */
function asHookGuard(
  inner: LocalSocketGuard,
  sink: SocketSink,
  later: boolean,
): SocketMessageGuard {
  const run = (work: () => void) => (later ? queueMicrotask(work) : work());
  return {
    push: (message) => {
      const out = inner.push(message);
      run(() => sink.deliver(out));
    },
    end: () => {
      const out = inner.end();
      run(() => {
        sink.deliver(out);
        sink.done();
      });
    },
  };
}

function hookedRealm(makeGuard?: () => LocalSocketGuard, later = false) {
  const fakes = createFakeEventSourceRealm();
  const native = fakes.WebSocket;
  const stats = newFetchHookStats();
  const target = { ...fakes, MessageEvent, CloseEvent: FakeCloseEvent, Event, Function };
  installWebSocketHook(target as unknown as WebSocketHookTarget, {
    createSocketGuard: (probe, sink) =>
      openWebUiSocket.detect(probe)
        ? asHookGuard(makeGuard?.() ?? new OpenWebUiSocketGuard(getCorePack()), sink, later)
        : undefined,
    stats,
  });
  return { WebSocket: target.WebSocket, native, stats };
}

function listen(socket: EventTarget & { onmessage: unknown; onclose: unknown }) {
  const viaProperty: unknown[] = [];
  const viaListener: unknown[] = [];
  const closes: number[] = [];
  socket.onmessage = (event: Event) => viaProperty.push((event as MessageEvent).data);
  socket.addEventListener('message', (event) => viaListener.push((event as MessageEvent).data));
  socket.onclose = (event: Event) => closes.push((event as CloseEvent).code);
  return { viaProperty, viaListener, closes };
}

describe('installWebSocketHook', () => {
  // Compiling the core pack once takes seconds on a loaded machine: not a test's time.
  beforeAll(() => {
    getCorePack();
  }, 60_000);

  it('guards Open WebUI socket events: the page never sees the secret', () => {
    const { WebSocket, stats } = hookedRealm();
    const socket = new WebSocket('ws://127.0.0.1:8080/ws/socket.io/?EIO=4&transport=websocket');
    const seen = listen(socket);
    const messages = openWebUiSocketMessages(scriptedAnswer('secret'));
    for (const message of messages) socket.emit(message);
    socket.closeFromServer(1000);
    const got = seen.viaProperty as string[];
    expect(seen.viaListener).toEqual(got);
    expect(got.join('\n')).not.toContain(token.slice(4, 14));
    expect(textOfSocketMessages(got)).toContain('[redacted:github-pat]');
    expect(textOfSocketMessages(got)).toContain('Remember to rotate it');
    // Handshake packets first, untouched; every message delivered, in order, before close.
    expect(got.slice(0, 2)).toEqual(messages.slice(0, 2));
    expect(got.length).toBe(messages.length);
    expect(seen.closes).toEqual([1000]);
    expect(stats.wireGuarded).toBe(1);
  });

  it('with answers that come later: every message in order, then the close event', async () => {
    const { WebSocket } = hookedRealm(undefined, true);
    const socket = new WebSocket('ws://127.0.0.1:8080/ws/socket.io/');
    const seen = listen(socket);
    const messages = openWebUiSocketMessages(scriptedAnswer('secret'));
    for (const message of messages) socket.emit(message);
    socket.closeFromServer(1000);
    // Nothing yet: the guard's answers have not arrived, and the close waits for them.
    expect(seen.closes).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    const got = seen.viaProperty as string[];
    expect(got.length).toBe(messages.length);
    expect(textOfSocketMessages(got)).toContain('[redacted:github-pat]');
    expect(got.join('\n')).not.toContain(token.slice(4, 14));
    expect(seen.closes).toEqual([1000]);
  });

  it('delivers a benign answer unchanged', () => {
    const { WebSocket } = hookedRealm();
    const socket = new WebSocket('ws://127.0.0.1:8080/ws/socket.io/');
    const seen = listen(socket);
    const messages = openWebUiSocketMessages(scriptedAnswer('hello “there” 😀'));
    for (const message of messages) socket.emit(message);
    socket.closeFromServer();
    expect(seen.viaProperty).toEqual(messages);
  });

  it('leaves other sockets and binary messages untouched (in the page’s binaryType)', async () => {
    const { WebSocket, stats } = hookedRealm();
    const socket = new WebSocket('ws://127.0.0.1:8080/feed');
    const seen = listen(socket);
    socket.emit(`{"note":"${token}"}`);
    socket.emitBinary(new Uint8Array([1, 2, 3]));
    // binaryType "blob", the default: a Blob of the same bytes.
    const blob = seen.viaProperty[1] as Blob;
    expect(blob).toBeInstanceOf(Blob);
    expect([...new Uint8Array(await blob.arrayBuffer())]).toEqual([1, 2, 3]);
    socket.binaryType = 'arraybuffer';
    socket.emitBinary(new Uint8Array([4, 5]));
    expect([...new Uint8Array(seen.viaProperty[2] as ArrayBuffer)]).toEqual([4, 5]);
    expect(seen.viaProperty[0]).toBe(`{"note":"${token}"}`);
    expect(seen.viaListener).toEqual(seen.viaProperty);
    socket.closeFromServer(1001);
    expect(seen.closes).toEqual([1001]);
    expect(stats.wireGuarded).toBe(0);
  });

  it('keeps binaryType per socket for the page; the native one reads ArrayBuffers', () => {
    const { WebSocket } = hookedRealm();
    const socket = new WebSocket('ws://127.0.0.1:8080/feed');
    expect(socket.binaryType).toBe('blob');
    socket.binaryType = 'arraybuffer';
    expect(socket.binaryType).toBe('arraybuffer');
    socket.binaryType = 'nonsense' as BinaryType;
    expect(socket.binaryType).toBe('arraybuffer');
    socket.binaryType = 'blob';
    expect(socket.binaryType).toBe('blob');
    expect((socket as unknown as { _binaryType: string })._binaryType).toBe('arraybuffer');
  });

  it.each(['blob', 'arraybuffer'] as const)(
    'guards Open WebUI events sent as binary frames, handed over as %s',
    async (binaryType) => {
      const { WebSocket, stats } = hookedRealm();
      const socket = new WebSocket('ws://127.0.0.1:8080/ws/socket.io/?EIO=4');
      socket.binaryType = binaryType;
      const seen = listen(socket);
      const messages = openWebUiSocketMessages(scriptedAnswer('secret'));
      // The Engine.IO handshake as text, the chat events as binary frames.
      socket.emit(messages[0]);
      socket.emit(messages[1]);
      for (const message of messages.slice(2)) socket.emitBinary(new TextEncoder().encode(message));
      socket.closeFromServer(1000);
      const got: string[] = [];
      for (const data of seen.viaProperty) {
        if (typeof data === 'string') got.push(data);
        else if (data instanceof Blob) got.push(await data.text());
        else got.push(new TextDecoder().decode(data as ArrayBuffer));
      }
      expect(got.slice(0, 2)).toEqual(messages.slice(0, 2));
      const kinds = seen.viaProperty.slice(2).map((d) => (d instanceof Blob ? 'blob' : typeof d));
      expect(new Set(kinds)).toEqual(new Set([binaryType === 'blob' ? 'blob' : 'object']));
      expect(got.join('\n')).not.toContain(token.slice(4, 14));
      expect(textOfSocketMessages(got)).toContain('[redacted:github-pat]');
      expect(got.length).toBe(messages.length);
      expect(seen.closes).toEqual([1000]);
      expect(stats.wireGuarded).toBe(1);
    },
  );

  it('recognises a socket by a chat event in a binary frame', async () => {
    const { WebSocket, stats } = hookedRealm();
    const socket = new WebSocket('ws://127.0.0.1:8080/events');
    const seen = listen(socket);
    const messages = openWebUiSocketMessages(scriptedAnswer('secret')).slice(2);
    for (const message of messages) socket.emitBinary(new TextEncoder().encode(message));
    socket.closeFromServer(1000);
    const got = await Promise.all(seen.viaProperty.map((d) => (d as Blob).text()));
    expect(textOfSocketMessages(got)).toContain('[redacted:github-pat]');
    expect(got.join('\n')).not.toContain(token.slice(4, 14));
    expect(stats.wireGuarded).toBe(1);
  });

  it('fails closed when the guard throws: the socket closes, nothing more arrives', () => {
    let calls = 0;
    const { WebSocket, stats } = hookedRealm(() => ({
      push: (message) => {
        if (++calls === 3) throw new Error('guard crashed');
        return [message];
      },
      end: () => [],
    }));
    const socket = new WebSocket('ws://127.0.0.1:8080/ws/socket.io/');
    const seen = listen(socket);
    const messages = openWebUiSocketMessages(scriptedAnswer('secret'));
    for (const message of messages) socket.emit(message);
    expect(seen.viaProperty).toEqual(messages.slice(0, 2));
    expect(socket.closedWith).toBe(1005);
    expect(stats.guardFailures).toBe(1);
  });

  it('looks native', () => {
    const { WebSocket, native } = hookedRealm();
    expect(WebSocket).not.toBe(native);
    expect(WebSocket.name).toBe(native.name);
    expect(WebSocket.length).toBe(native.length);
    expect(WebSocket.OPEN).toBe(1);
    expect(Function.prototype.toString.call(WebSocket)).toBe(
      Function.prototype.toString.call(native),
    );
    const socket = new WebSocket('ws://127.0.0.1:8080/x', ['chat']);
    expect(socket).toBeInstanceOf(native);
    expect(socket.constructor).toBe(WebSocket);
  });
});
