/**
 * Local mock chat for the demo and the e2e tests: a tiny chat page and a `/api/chat`
 * endpoint that streams a scripted answer as `text/plain` in small chunks with small
 * delays. Loopback only, bounded (request size, connections, answer length, timeouts).
 *
 *   npx tsx test/mock-chat/server.ts [--port 8787]
 */

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { byteChunks, scriptedAnswer } from './scripted-answers.ts';

export interface MockChatOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Loopback address to bind: 127.0.0.1 (default), ::1 or localhost. */
  host?: string;
  /** Delay between chunks in milliseconds (default 12). */
  chunkDelayMs?: number;
}

export interface MockChat {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const MAX_BODY_BYTES = 16 * 1024;
const MAX_PROMPT_CHARS = 2000;
const MAX_CONNECTIONS = 64;

const here = dirname(fileURLToPath(import.meta.url));
const INDEX_HTML = readFileSync(join(here, 'index.html'), 'utf8');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(body);
}

/**
 * The page gets a strict, nonce-based CSP like real chat sites: the extension's
 * MAIN-world script must work under it, and no answer can make the page load an
 * external image or script.
 */
function sendIndex(res: ServerResponse): void {
  const nonce = randomBytes(16).toString('base64');
  send(res, 200, 'text/html; charset=utf-8', INDEX_HTML.replaceAll('{{nonce}}', nonce), {
    'content-security-policy': [
      "default-src 'self'",
      `script-src 'nonce-${nonce}'`,
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > MAX_BODY_BYTES) throw new Error('request body too large');
    parts.push(part);
  }
  return Buffer.concat(parts).toString('utf8');
}

function promptOf(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object' && 'prompt' in parsed) {
      return String((parsed as { prompt: unknown }).prompt).slice(0, MAX_PROMPT_CHARS);
    }
  } catch {
    // Not JSON: take the body as the prompt.
  }
  return body.slice(0, MAX_PROMPT_CHARS);
}

async function streamAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  chunkDelayMs: number,
): Promise<void> {
  const prompt = promptOf(await readBody(req));
  const answer = scriptedAnswer(prompt);
  res.writeHead(200, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    'x-mock-attack': answer.attack,
  });
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  for (const chunk of byteChunks(answer.text)) {
    if (closed) return;
    res.write(chunk);
    await sleep(chunkDelayMs);
  }
  res.end();
}

export async function startMockChat(options: MockChatOptions = {}): Promise<MockChat> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host)) throw new Error(`mock chat binds to loopback only, not ${host}`);
  const chunkDelayMs = Math.max(0, Math.min(options.chunkDelayMs ?? 12, 1000));

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://mock.invalid');
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /' || route === 'GET /index.html') {
      sendIndex(res);
    } else if (route === 'POST /api/chat' || route === 'POST /api/echo') {
      // `/api/echo` streams the same answer on a path the shell does not guard.
      streamAnswer(req, res, chunkDelayMs).catch((error: unknown) => {
        if (!res.headersSent) send(res, 400, 'text/plain; charset=utf-8', String(error));
        else res.destroy();
      });
    } else if (url.pathname === '/api/chat' || url.pathname === '/api/echo') {
      res.setHeader('allow', 'POST');
      send(res, 405, 'text/plain; charset=utf-8', 'method not allowed');
    } else if (route === 'GET /favicon.ico') {
      res.writeHead(204).end();
    } else {
      send(res, 404, 'text/plain; charset=utf-8', 'not found');
    }
  });
  server.maxConnections = MAX_CONNECTIONS;
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 2_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host === '::1' ? '[::1]' : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const portArg = process.argv.indexOf('--port');
  const port = portArg > 0 ? Number(process.argv[portArg + 1]) : 0;
  const chat = await startMockChat({ port });
  console.log(`mock chat listening on ${chat.url}/`);
  const stop = () => void chat.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
