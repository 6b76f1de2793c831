/**
 * Issue 18 §3 through the WebSocket hook, with the real generic adapter and core pack
 * (test/support/local-guards.ts): OpenAI-style JSON answers in text frames are guarded
 * whatever the socket's URL, with continuity across frames (a secret split across
 * messages is redacted whole, for any split); a socket the page sent a chat request on
 * has every JSON answer guarded by the generic adapter; a binary message that is not
 * UTF-8 on a chat socket is reported and stops the socket (on a socket with no chat
 * sign it passes, reported once per socket); a socket with no chat sign
 * keeps the browser's own messages. Faults in these steps fail the socket closed.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import type { WireProbe, WireRecogniser } from '../../../src/core/wire/wire-event.ts';
import { newFetchHookStats } from '../../../src/page/fetch-hook.ts';
import type { ByteGuard } from '../../../src/page/guarded-response.ts';
import { oneLine } from '../../../src/page/socket-json-guard.ts';
import {
  installWebSocketHook,
  type WebSocketHookTarget,
} from '../../../src/page/web-socket-hook.ts';
import { fakeGithubToken } from '../../mock-chat/scripted-answers.ts';
import { localWireGuard } from '../../support/local-guards.ts';
import { cut, cutsArbitrary } from '../../support/text-arbitraries.ts';
import { createFakeBridge } from './fake-bridge.ts';
import { createFakeEventSourceRealm, FakeCloseEvent } from './fake-sources.ts';

const SECRET = fakeGithubToken(31);
const CHAT = JSON.stringify({ type: 'chat', messages: [{ role: 'user', content: 'the key?' }] });

interface Options {
  createWireGuard?: (recogniser: WireRecogniser, probe: WireProbe) => ByteGuard;
}

function hookedRealm(options: Options = {}) {
  const fakes = createFakeEventSourceRealm();
  const stats = newFetchHookStats();
  const opened: { recogniser: string; probe: WireProbe }[] = [];
  const reports: string[] = [];
  const target = { ...fakes, MessageEvent, CloseEvent: FakeCloseEvent, Event, Function };
  const createWireGuard =
    options.createWireGuard ?? ((recogniser: WireRecogniser) => localWireGuard(recogniser));
  installWebSocketHook(target as unknown as WebSocketHookTarget, {
    // No socket format claims these sockets (Open WebUI's is tested in web-socket-hook.test.ts).
    createSocketGuard: () => undefined,
    createWireGuard: (recogniser, probe) => {
      opened.push({ recogniser: recogniser.id, probe });
      return createWireGuard(recogniser, probe);
    },
    stats,
    reportFailure: (hook, reason) => reports.push(`${hook}:${reason}`),
  });
  return { WebSocket: target.WebSocket, stats, opened, reports };
}

type Socket = InstanceType<ReturnType<typeof createFakeEventSourceRealm>['WebSocket']>;

function listen(socket: Socket) {
  const got: unknown[] = [];
  const closes: number[] = [];
  socket.addEventListener('message', (event) => got.push((event as MessageEvent).data));
  socket.addEventListener('close', (event) => closes.push((event as CloseEvent).code));
  return { got, closes };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

/** OpenAI-style chunks over a socket, one JSON message per delta. */
const deltas = (pieces: string[]) =>
  pieces.map((content) =>
    JSON.stringify({
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { content } }],
    }),
  );

const contentOf = (messages: unknown[]) =>
  messages
    .map((m) => JSON.parse(m as string) as { choices?: { delta?: { content?: string } }[] })
    .map((m) => m.choices?.[0]?.delta?.content ?? '')
    .join('');

describe('WebSocket hook: JSON answers through the generic adapter (issue 18 §3)', () => {
  beforeAll(() => {
    getCorePack();
  }, 60_000);

  it('redacts a secret split across OpenAI-style text frames, message for message', async () => {
    const { WebSocket, stats, opened } = hookedRealm();
    const socket = new WebSocket('ws://127.0.0.1:8080/realtime');
    const seen = listen(socket);
    const messages = deltas(['The key is ', SECRET.slice(0, 9), `${SECRET.slice(9)}.`, ' Done.']);
    for (const message of messages) socket.emit(message);
    await settle();
    // Each frame comes back as one message once the guard has read it (none held whole).
    expect(seen.got.length).toBeGreaterThanOrEqual(messages.length - 1);
    socket.closeFromServer(1000);
    await settle();
    expect(seen.got).toHaveLength(messages.length);
    expect(contentOf(seen.got)).toBe('The key is [redacted:github-pat]. Done.');
    for (const message of seen.got) expect(message).not.toContain(SECRET.slice(4, 12));
    expect(seen.closes).toEqual([1000]);
    expect(stats.wireGuarded).toBe(1);
    expect(opened.map((o) => o.recogniser)).toEqual(['generic']);
  });

  it('for any split of the answer into frames, the page never reads the secret', async () => {
    getCorePack();
    const answer = `Use ${SECRET} for the deploy.`;
    await fc.assert(
      fc.asyncProperty(cutsArbitrary, async (fractions) => {
        const { WebSocket } = hookedRealm();
        const socket = new WebSocket('ws://127.0.0.1:8080/ws');
        const seen = listen(socket);
        for (const message of deltas(cut(answer, fractions))) socket.emit(message);
        socket.closeFromServer(1000);
        await settle();
        expect(contentOf(seen.got)).toBe('Use [redacted:github-pat] for the deploy.');
        expect(seen.closes).toEqual([1000]);
      }),
      { numRuns: 40 },
    );
  });

  it('a chat socket: an answer in no known shape is guarded per string field', async () => {
    const { WebSocket, opened } = hookedRealm();
    const socket = new WebSocket('ws://127.0.0.1:8080/ws');
    const seen = listen(socket);
    socket.send(CHAT);
    socket.emit(JSON.stringify({ event: 'token', data: { text: `key ${SECRET.slice(0, 10)}` } }));
    socket.emit(JSON.stringify({ event: 'token', data: { text: `${SECRET.slice(10)} ok` } }));
    socket.emit('ping');
    socket.closeFromServer(1000);
    await settle();
    const json = seen.got.filter((m) => m !== 'ping') as string[];
    const text = json.map((m) => (JSON.parse(m) as { data: { text: string } }).data.text).join('');
    expect(text).toBe('key [redacted:github-pat] ok');
    // Not JSON: not an answer frame, the browser's own message.
    expect(seen.got).toContain('ping');
    expect(opened[0]?.probe.chatRequest).toBe(true);
  });

  it('a socket with no chat sign keeps the browser’s own JSON messages', async () => {
    const { WebSocket, opened, stats } = hookedRealm();
    const socket = new WebSocket('ws://127.0.0.1:8080/presence');
    const seen = listen(socket);
    socket.send(JSON.stringify({ type: 'subscribe', room: 'r1' }));
    const message = JSON.stringify({ user: 'ann', status: SECRET });
    socket.emit(message);
    await settle();
    expect(seen.got).toEqual([message]);
    expect(opened).toEqual([]);
    expect(stats.wireGuarded).toBe(0);
  });

  it('a pretty-printed JSON message arrives on one line, its value unchanged', async () => {
    const { WebSocket } = hookedRealm();
    const socket = new WebSocket('ws://127.0.0.1:8080/ws');
    const seen = listen(socket);
    socket.send(CHAT);
    const value = { reply: 'fine', list: [1, 2] };
    socket.emit(JSON.stringify(value, null, 2));
    socket.closeFromServer(1000);
    await settle();
    expect(seen.got).toHaveLength(1);
    expect(JSON.parse(seen.got[0] as string)).toEqual(value);
    expect(oneLine('{\r\n "a": 1\n}')).toBe('{   "a": 1 }');
  });

  it('a binary message that is not UTF-8 on a chat socket: reported, and the socket stops', async () => {
    const { WebSocket, opened } = hookedRealm();
    const socket = new WebSocket('ws://127.0.0.1:8080/ws');
    socket.binaryType = 'arraybuffer';
    const seen = listen(socket);
    socket.send(CHAT);
    const secretBytes = new TextEncoder().encode(SECRET);
    socket.emitBinary(new Uint8Array([0x80, 0xff, 0, 4, ...secretBytes]));
    socket.emit(JSON.stringify({ reply: 'after' }));
    await settle();
    expect(seen.got).toEqual([]);
    expect(socket.closedWith).toBeDefined();
    // The report: a generic guard, told it is a chat answer, handed a binary body.
    expect(opened).toEqual([
      { recogniser: 'generic', probe: expect.objectContaining({ chatRequest: true, head: '' }) },
    ]);
  });

  it('binary messages that are not UTF-8 on a socket with no chat sign pass, told once per socket', async () => {
    const { WebSocket, opened, reports } = hookedRealm();
    const socket = new WebSocket('ws://127.0.0.1:8080/images');
    socket.binaryType = 'arraybuffer';
    const seen = listen(socket);
    socket.emitBinary(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff]));
    socket.emitBinary(new Uint8Array([0xff, 0xd8, 0xff]));
    socket.emitBinary(new TextEncoder().encode('plain text in a binary frame'));
    await settle();
    expect(seen.got).toHaveLength(3);
    expect(new Uint8Array(seen.got[0] as ArrayBuffer)).toEqual(
      new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff]),
    );
    expect(socket.closedWith).toBeUndefined();
    expect(opened).toEqual([]);
    // Issue 18, no silent path: it may be an answer, so the person is told (once).
    expect(reports).toEqual(['web-socket:undecodable-passed']);
    // Another socket is told of its own.
    const other = new WebSocket('ws://127.0.0.1:8080/images');
    other.emitBinary(new Uint8Array([0xff]));
    await settle();
    expect(reports).toEqual(['web-socket:undecodable-passed', 'web-socket:undecodable-passed']);
  });

  it('fault: building the generic guard throws: the socket stops, and the person is told', async () => {
    const { WebSocket, reports } = hookedRealm({
      createWireGuard: () => {
        throw new Error('guard');
      },
    });
    const socket = new WebSocket('ws://127.0.0.1:8080/ws');
    const seen = listen(socket);
    socket.emit(deltas([`key ${SECRET}`])[0]!);
    await settle();
    expect(seen.got).toEqual([]);
    expect(socket.closedWith).toBeDefined();
    expect(reports).toEqual(['web-socket:decision']);
  });

  it('fault: the guard’s stream fails mid-answer: the socket stops, no raw frame passes', async () => {
    let calls = 0;
    const { WebSocket } = hookedRealm({
      createWireGuard: () =>
        new TransformStream<Uint8Array, Uint8Array>({
          transform: (chunk, controller) => {
            if (++calls > 1) throw new Error('decoding');
            controller.enqueue(chunk.slice(0, 0));
          },
        }),
    });
    const socket = new WebSocket('ws://127.0.0.1:8080/ws');
    const seen = listen(socket);
    for (const message of deltas(['key ', SECRET, ' ok'])) socket.emit(message);
    await settle();
    expect(seen.got.join('')).not.toContain(SECRET.slice(4, 12));
    expect(socket.closedWith).toBeDefined();
  });

  it('a socket that fails withdraws its generic stream from the ISOLATED world', async () => {
    const bridge = createFakeBridge(SECRET);
    const { WebSocket } = hookedRealm({
      createWireGuard: (recogniser, probe) => bridge.remote.wire(recogniser, probe),
    });
    const socket = new WebSocket('ws://127.0.0.1:8080/ws');
    socket.emit(deltas(['Hello'])[0]!);
    socket.emitBinary(new Uint8Array([0xff, 0xfe, 0x00]));
    await settle();
    const opens = bridge.sent.filter((m) => m.type === 'guard-open');
    expect(opens.map((m) => m.type === 'guard-open' && m.recogniser)).toEqual([
      'generic',
      'generic',
    ]);
    const [answer, report] = opens.map((m) => (m as { streamId: string }).streamId);
    expect(bridge.sent).toContainEqual({ v: 1, type: 'guard-cancel', streamId: answer });
    // The report's stream is closed normally (its end is what records it), never cancelled.
    expect(bridge.sent).toContainEqual({ v: 1, type: 'guard-close', streamId: report });
    expect(bridge.sent).not.toContainEqual({ v: 1, type: 'guard-cancel', streamId: report });
    expect(socket.closedWith).toBeDefined();
  });
});
