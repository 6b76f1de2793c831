/**
 * Mock chat routes for the transports other than fetch (the e2e tests of the XHR,
 * EventSource and WebSocket hooks):
 *
 * - `GET /hooks`: a page that asks through XMLHttpRequest (progressive `responseText` read
 *   on `progress`, as DeepSeek does), EventSource, or WebSocket (Open WebUI's Socket.IO
 *   events), and renders each answer as it streams (page-hooks.html).
 * - `GET /hooks/sse?prompt=…`: the scripted answer as OpenAI Chat Completions SSE, for
 *   EventSource (which only sends GET). The XHR page posts to `/v1/chat/completions`.
 * - `GET /hooks/sse-drop?prompt=…` (issue 18 §3): the same events with ids, and the
 *   connection dropped right after the event that carries the first half of the
 *   answer's secret; the browser reconnects with `Last-Event-ID` (after `retry: 50`),
 *   and the events after that id follow.
 * - WebSocket upgrade on `/ws/socket.io/?prompt=…`: the answer as Open WebUI socket
 *   messages (socket-answers.ts), one text frame each, then a normal close; with
 *   `&binary=1` the chat events (after the text handshake) come as binary frames.
 * - WebSocket upgrade on `/ws/json/` and `/ws/undecodable/` (issue 18 §3): once the
 *   page's first message (its chat request) arrives, the scripted secret answer as
 *   OpenAI-style chunks, one JSON text frame each, the secret split across three; or
 *   one binary frame that is not UTF-8 carrying the secret. Then a normal close.
 *
 * Node 20 has no WebSocket server: the handshake (RFC 6455 §4.2.2) and the server's
 * unmasked text and close frames (§5.2) are written here; what the client sends is read
 * and ignored. Loopback only, like the rest of the mock chat; every socket is closed by
 * `close()`.
 */

import { sendNoncePage } from './nonce-page.ts';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { byteChunks, fakeGithubToken, scriptedAnswer } from './scripted-answers.ts';
import { openWebUiSocketMessages } from './socket-answers.ts';
import { openAiChatSse } from './wire-answers.ts';

const here = dirname(fileURLToPath(import.meta.url));
const PAGE_HTML = readFileSync(join(here, 'page-hooks.html'), 'utf8');
const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const MAX_PROMPT_CHARS = 2000;
/** Network chunks of the SSE answer: 1..96 bytes, as the other wire routes. */
const SSE_CHUNK_BYTES = 96;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface PageHookRoutes {
  /** Answers the request when it is one of these routes; false otherwise. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
  /** The server's `upgrade` listener. */
  upgrade(req: IncomingMessage, socket: Duplex): void;
  /** Destroys every open WebSocket. */
  close(): void;
}

function promptOf(url: URL): string {
  return (url.searchParams.get('prompt') ?? '').slice(0, MAX_PROMPT_CHARS);
}

function sendPage(req: IncomingMessage, res: ServerResponse): void {
  // The page's socket test needs ws: to its own host.
  sendNoncePage(res, PAGE_HTML, [`connect-src 'self' ws://${req.headers.host ?? '127.0.0.1'}`]);
}

async function streamSse(res: ServerResponse, prompt: string, delayMs: number): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
  });
  for (const chunk of byteChunks(openAiChatSse(scriptedAnswer(prompt)), SSE_CHUNK_BYTES)) {
    if (res.destroyed) return;
    res.write(chunk);
    await sleep(delayMs);
  }
  res.end();
}

/** The answer's SSE events, each with its id (`id: <index>`). */
function sseEventsWithIds(prompt: string): string[] {
  return openAiChatSse(scriptedAnswer(prompt))
    .split('\n\n')
    .filter((event) => event !== '')
    .map((event, i) => `id: ${i}\n${event}\n\n`);
}

/** The index of the event after which the connection drops: inside the secret. */
function dropAfter(events: string[]): number {
  const token = fakeGithubToken();
  let text = '';
  for (let i = 0; i < events.length; i++) {
    const data = /^data: (.*)$/m.exec(events[i]!)?.[1] ?? '';
    if (data.startsWith('{')) {
      const chunk = JSON.parse(data) as { choices: { delta: { content?: string } }[] };
      text += chunk.choices[0]?.delta.content ?? '';
    }
    if (text.includes(token.slice(0, 8)) && !text.includes(token)) return i;
  }
  return Math.floor(events.length / 2);
}

/** SSE that drops mid-secret on the first connection and resumes after `Last-Event-ID`. */
async function streamSseWithDrop(
  req: IncomingMessage,
  res: ServerResponse,
  prompt: string,
  delayMs: number,
): Promise<void> {
  const events = sseEventsWithIds(prompt);
  const last = req.headers['last-event-id'];
  const from = typeof last === 'string' ? Number(last) + 1 : 0;
  const cut = dropAfter(events);
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
  });
  if (from === 0) res.write('retry: 50\n\n');
  for (let i = from; i < events.length; i++) {
    if (res.destroyed) return;
    res.write(events[i]);
    await sleep(delayMs);
    if (from === 0 && i === cut) {
      // A dropped connection, mid-answer: the browser reconnects.
      res.destroy();
      return;
    }
  }
  res.end();
}

/** One unmasked server frame (FIN set). */
function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  let header: Buffer;
  if (length < 126) {
    header = Buffer.from([0x80 | opcode, length]);
  } else if (length < 65536) {
    header = Buffer.alloc(4);
    header.writeUInt8(0x80 | opcode, 0);
    header.writeUInt8(126, 1);
    header.writeUInt16BE(length, 2);
  } else {
    header = Buffer.alloc(10);
    header.writeUInt8(0x80 | opcode, 0);
    header.writeUInt8(127, 1);
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([header, payload]);
}

async function streamSocket(
  socket: Duplex,
  prompt: string,
  delayMs: number,
  binary: boolean,
): Promise<void> {
  const messages = openWebUiSocketMessages(scriptedAnswer(prompt));
  for (let i = 0; i < messages.length; i++) {
    if (socket.destroyed) return;
    // The Engine.IO and Socket.IO handshakes (the first two) stay text frames.
    socket.write(frame(binary && i >= 2 ? 0x2 : 0x1, Buffer.from(messages[i]!, 'utf8')));
    await sleep(delayMs);
  }
  if (socket.destroyed) return;
  // Close frame, status 1000 (normal closure).
  socket.write(frame(0x8, Buffer.from([0x03, 0xe8])));
  socket.end();
}

/** Issue 18 §3: the frames of `/ws/json/` or `/ws/undecodable/` (see the top comment). */
export function chatSocketFrames(kind: 'json' | 'undecodable'): Buffer[] {
  const token = fakeGithubToken();
  if (kind === 'undecodable') {
    return [frame(0x2, Buffer.concat([Buffer.from([0x80, 0xff, 0]), Buffer.from(token)]))];
  }
  const pieces = ['Sure. The deploy token is ', token.slice(0, 10), token.slice(10, 25)];
  pieces.push(token.slice(25), '. Rotate it after the release.');
  return pieces.map((content) => {
    const chunk = { object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] };
    return frame(0x1, Buffer.from(JSON.stringify(chunk), 'utf8'));
  });
}

async function streamChatSocket(
  socket: Duplex,
  kind: 'json' | 'undecodable',
  delayMs: number,
): Promise<void> {
  for (const data of chatSocketFrames(kind)) {
    if (socket.destroyed) return;
    socket.write(data);
    await sleep(delayMs);
  }
  if (socket.destroyed) return;
  socket.write(frame(0x8, Buffer.from([0x03, 0xe8])));
  socket.end();
}

export function createPageHookRoutes(options: { chunkDelayMs: number }): PageHookRoutes {
  const sockets = new Set<Duplex>();
  const delay = options.chunkDelayMs;
  return {
    handle(req, res, url) {
      if (req.method !== 'GET') return false;
      if (url.pathname === '/hooks') {
        sendPage(req, res);
        return true;
      }
      if (url.pathname === '/hooks/sse') {
        streamSse(res, promptOf(url), delay).catch(() => res.destroy());
        return true;
      }
      if (url.pathname === '/hooks/sse-drop') {
        streamSseWithDrop(req, res, promptOf(url), delay).catch(() => res.destroy());
        return true;
      }
      return false;
    },
    upgrade(req, socket) {
      const url = new URL(req.url ?? '/', 'http://mock.invalid');
      const key = req.headers['sec-websocket-key'];
      socket.on('error', () => socket.destroy());
      const chatKind =
        url.pathname === '/ws/json/'
          ? 'json'
          : url.pathname === '/ws/undecodable/'
            ? 'undecodable'
            : undefined;
      if (
        (chatKind === undefined && !url.pathname.startsWith('/ws/socket.io/')) ||
        typeof key !== 'string'
      ) {
        socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\n\r\n');
        return;
      }
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      if (chatKind !== undefined) {
        // The page's first frame is its chat request: answer once it arrives.
        socket.once('data', () => {
          streamChatSocket(socket, chatKind, delay).catch(() => socket.destroy());
        });
      }
      // Frames from the client (pings, close) are not needed by these tests.
      socket.on('data', () => undefined);
      const accept = createHash('sha1')
        .update(key + WS_GUID)
        .digest('base64');
      socket.write(
        'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n' +
          `sec-websocket-accept: ${accept}\r\n\r\n`,
      );
      if (chatKind !== undefined) return;
      const binary = url.searchParams.get('binary') === '1';
      streamSocket(socket, promptOf(url), delay, binary).catch(() => socket.destroy());
    },
    close() {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
  };
}
