/**
 * Local mock chat for the demo and the e2e tests: a tiny chat page and endpoints that
 * stream scripted answers in small network chunks with small delays. Loopback only,
 * bounded (request size, connections, answer length, timeouts).
 *
 * - `POST /api/chat`: the answer as `text/plain` (the demo's default format);
 *   `POST /api/echo` streams the same on a path no adapter claims (guarded when the
 *   request is chat-shaped, issue 18 §1).
 * - `POST /v1/chat/completions`: OpenAI Chat Completions SSE (without `stream: true`: JSON).
 * - `POST /v1/messages`: Anthropic Messages SSE (without `stream: true`: JSON).
 * - `GET /api/status`: an unrelated JSON document.
 * - `GET /generic`, `POST /api/stream`, `POST /api/stream-binary`: answers in no known
 *   format (generic-routes.ts).
 *
 * Every answer carries an `x-mock-request-id` header; `MockChat.sent(id)` gives the
 * exact bytes the server wrote for it, and whether the client went away before the end.
 *
 *   npx tsx test/mock-chat/server.ts [--port 8787]
 */

import { sendNoncePage } from './nonce-page.ts';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Attacker, startAttacker } from './attacker-server.ts';
import { createDemoRoutes, type ReceivedRequest } from './demo-routes.ts';
import { createContextRoutes } from './context-routes.ts';
import { createGenericRoutes } from './generic-routes.ts';
import { createChatglmPerplexityRoutes } from './chatglm-perplexity-routes.ts';
import { createZaiRoutes } from './zai-routes.ts';
import { createRewriteRefusalRoutes } from './rewrite-refusal-routes.ts';
import { createChineseSiteRoutes } from './chinese-site-routes.ts';
import { createCopilotBigAgiRoutes } from './copilot-big-agi-routes.ts';
import { createSiteHistoryRoutes } from './site-history-routes.ts';
import { createNoSilentRoutes } from './no-silent-path-routes.ts';
import { createGuardNoticeRoutes } from './guard-notice-routes.ts';
import { createPageHookRoutes } from './page-hook-routes.ts';
import { createReferenceOnlyRoutes } from './reference-only-routes.ts';
import { byteChunks, scriptedAnswer } from './scripted-answers.ts';
import { anthropicJson, anthropicSse, openAiChatJson, openAiChatSse } from './wire-answers.ts';
import { readBody } from './request-body.ts';

export interface MockChatOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Loopback address to bind: 127.0.0.1 (default), ::1 or localhost. */
  host?: string;
  /** Delay between chunks in milliseconds (default 12). */
  chunkDelayMs?: number;
}

/** What the server wrote for one answer. */
export interface SentAnswer {
  id: string;
  /** `POST /v1/messages` etc. */
  route: string;
  /** Every body byte written so far, in order. */
  bytes: Buffer;
  /** True once the whole answer was written. */
  finished: boolean;
  /** True when the client closed the connection before the answer was complete. */
  closedEarly: boolean;
}

export interface MockChat {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  url: string;
  port: number;
  /** The answer with this `x-mock-request-id` (the last 100 are kept). */
  sent(id: string): SentAnswer | undefined;
  /** The demo's attacker endpoint (its own port): counts exfiltration hits. */
  attacker: Attacker;
  /** Request bodies the demo's model endpoints received (demo-routes.ts). */
  received(): ReceivedRequest[];
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const MAX_BODY_BYTES = 16 * 1024;
const MAX_PROMPT_CHARS = 2000;
const MAX_CONNECTIONS = 64;
const MAX_SENT_RECORDS = 100;
/** Network chunks of the wire formats: 1..96 bytes (their events are ~100-250 bytes long). */
const WIRE_CHUNK_BYTES = 96;

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

/** The main page's policy adds data: images and no framing (nonce-page.ts has the rest). */
function sendIndex(res: ServerResponse): void {
  sendNoncePage(res, INDEX_HTML, [
    "img-src 'self' data:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
  ]);
}

/** The text of a message's `content`: a string, or text blocks (Anthropic, OpenAI parts). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) =>
      part && typeof part === 'object' && 'text' in part ? String(part.text) : '',
    )
    .join('');
}

interface ChatRequest {
  prompt: string;
  /** `stream` as the client sent it (provider formats); undefined for the plain page. */
  stream?: boolean;
  includeUsage: boolean;
}

/** `{prompt}` (the page), `{messages}` (OpenAI, Anthropic: the last user message), or raw text. */
function parseChatRequest(body: string): ChatRequest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { prompt: body.slice(0, MAX_PROMPT_CHARS), includeUsage: false };
  }
  const request: ChatRequest = { prompt: '', includeUsage: false };
  if (!parsed || typeof parsed !== 'object') {
    request.prompt = body.slice(0, MAX_PROMPT_CHARS);
    return request;
  }
  const fields = parsed as Record<string, unknown>;
  if ('prompt' in fields) {
    request.prompt = String(fields.prompt);
  } else if (Array.isArray(fields.messages)) {
    const users = fields.messages.filter(
      (m: unknown) => m && typeof m === 'object' && (m as { role?: unknown }).role === 'user',
    ) as { content?: unknown }[];
    request.prompt = contentText(users[users.length - 1]?.content);
  } else {
    request.prompt = body;
  }
  request.prompt = request.prompt.slice(0, MAX_PROMPT_CHARS);
  if (typeof fields.stream === 'boolean') request.stream = fields.stream;
  const streamOptions = fields.stream_options as { include_usage?: unknown } | undefined;
  request.includeUsage = streamOptions?.include_usage === true;
  return request;
}

type WireRoute = 'plain' | 'openai-chat' | 'anthropic';

/** The body to stream, with its content type, for one request. */
function answerFor(
  route: WireRoute,
  request: ChatRequest,
): { type: string; body: string; attack: string; streamed: boolean } {
  const answer = scriptedAnswer(request.prompt);
  const promptTokens = Math.max(1, Math.ceil(Array.from(request.prompt).length / 4));
  switch (route) {
    case 'plain':
      return {
        type: 'text/plain; charset=utf-8',
        body: answer.text,
        attack: answer.attack,
        streamed: true,
      };
    case 'openai-chat':
      // As the real APIs: no `stream: true`, one JSON body.
      if (request.stream !== true) {
        return {
          type: 'application/json',
          body: openAiChatJson(answer, promptTokens),
          attack: answer.attack,
          streamed: false,
        };
      }
      return {
        type: 'text/event-stream; charset=utf-8',
        body: openAiChatSse(answer, { includeUsage: request.includeUsage, promptTokens }),
        attack: answer.attack,
        streamed: true,
      };
    case 'anthropic':
      if (request.stream !== true) {
        return {
          type: 'application/json',
          body: anthropicJson(answer, promptTokens),
          attack: answer.attack,
          streamed: false,
        };
      }
      return {
        type: 'text/event-stream; charset=utf-8',
        body: anthropicSse(answer, promptTokens),
        attack: answer.attack,
        streamed: true,
      };
  }
}

async function streamAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  route: WireRoute,
  record: SentAnswer,
  chunkDelayMs: number,
): Promise<void> {
  const request = parseChatRequest(await readBody(req, MAX_BODY_BYTES));
  const answer = answerFor(route, request);
  const bytes = Buffer.from(answer.body, 'utf8');
  const headers: Record<string, string | number> = {
    'content-type': answer.type,
    'cache-control': 'no-store',
    'x-mock-attack': answer.attack,
    'x-mock-request-id': record.id,
  };
  if (!answer.streamed) headers['content-length'] = bytes.length;
  res.writeHead(200, headers);
  res.on('close', () => {
    if (!record.finished) record.closedEarly = true;
  });
  const chunks = !answer.streamed
    ? [bytes]
    : byteChunks(answer.body, route === 'plain' ? undefined : WIRE_CHUNK_BYTES);
  for (const chunk of chunks) {
    if (record.closedEarly || res.destroyed) return;
    res.write(chunk);
    record.bytes = Buffer.concat([record.bytes, chunk]);
    if (answer.streamed) await sleep(chunkDelayMs);
  }
  record.finished = true;
  res.end();
}

/** An unrelated JSON document (not an LLM answer): must reach the page untouched. */
const STATUS_JSON = JSON.stringify({
  service: 'mock-chat',
  ok: true,
  formats: ['text/plain', 'openai-chat', 'anthropic'],
  note: 'Not an answer: a status document with “quotes”, 中文 and a secret-looking word.',
});

export async function startMockChat(options: MockChatOptions = {}): Promise<MockChat> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host)) throw new Error(`mock chat binds to loopback only, not ${host}`);
  const chunkDelayMs = Math.max(0, Math.min(options.chunkDelayMs ?? 12, 1000));

  const sent = new Map<string, SentAnswer>();
  let nextId = 1;
  const newRecord = (route: string): SentAnswer => {
    const record: SentAnswer = {
      id: `req-${nextId++}`,
      route,
      bytes: Buffer.alloc(0),
      finished: false,
      closedEarly: false,
    };
    sent.set(record.id, record);
    if (sent.size > MAX_SENT_RECORDS) sent.delete(sent.keys().next().value!);
    return record;
  };

  const WIRE_ROUTES: Record<string, WireRoute> = {
    'POST /api/chat': 'plain',
    // `/api/echo` streams the same answer on a path no adapter claims: guarded only when the
    // request is chat-shaped (issue 18 §1).
    'POST /api/echo': 'plain',
    'POST /v1/chat/completions': 'openai-chat',
    'POST /v1/messages': 'anthropic',
  };
  const POST_ONLY = new Set(['/api/chat', '/api/echo', '/v1/chat/completions', '/v1/messages']);

  const attacker = await startAttacker();
  const demo = createDemoRoutes({ attackerUrl: attacker.url, chunkDelayMs });
  // XHR, EventSource and WebSocket pages and endpoints (page-hook-routes.ts).
  const hookRoutes = createPageHookRoutes({ chunkDelayMs });
  // A saved conversation for reference-only marks across reloads (reference-only-routes.ts).
  const referenceOnly = createReferenceOnlyRoutes();
  // Guard failures and held text: the in-page notices (guard-notice-routes.ts).
  const guardNotices = createGuardNoticeRoutes({ chunkDelayMs });
  // Answers no adapter claims by URL or content type (generic-routes.ts, issue 18 §1).
  const generic = createGenericRoutes({ chunkDelayMs });
  // Frames and workers that read answers themselves (context-routes.ts, issue 18 §2).
  const contexts = createContextRoutes();
  // An EventSource in no known format, a no-chat socket's binary frame, a service worker (issue 18).
  const noSilent = createNoSilentRoutes({ attackerUrl: attacker.url });
  // Z.ai's signed send, ChatGLM and Perplexity answers (issue 20; zai-routes.ts and
  // chatglm-perplexity-routes.ts).
  const zaiRoutes = createZaiRoutes({ chunkDelayMs });
  // Issue 20 §1: sites that refuse requests, one because they were rewritten (rewrite-refusal-routes.ts).
  const rewriteRefusals = createRewriteRefusalRoutes({ chunkDelayMs });
  const glmPerplexity = createChatglmPerplexityRoutes({ chunkDelayMs });
  // Kimi's Connect envelopes, Doubao and Qianwen answers (issue 20; chinese-site-routes.ts).
  const chineseSites = createChineseSiteRoutes({ chunkDelayMs });
  // Copilot's chat socket and big-AGI's answer stream (issue 20; copilot-big-agi-routes.ts).
  const copilotBigAgi = createCopilotBigAgiRoutes({ chunkDelayMs });
  // History loads of HuggingChat, Z.ai and Grok (issue 20 §1; site-history-routes.ts).
  const siteHistory = createSiteHistoryRoutes({ attackerUrl: attacker.url });

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://mock.invalid');
    if (demo.handle(req, res, url)) return;
    if (hookRoutes.handle(req, res, url)) return;
    if (referenceOnly.handle(req, res, url)) return;
    if (guardNotices.handle(req, res, url)) return;
    if (generic.handle(req, res, url)) return;
    if (contexts.handle(req, res, url)) return;
    if (noSilent.handle(req, res, url)) return;
    if (zaiRoutes.handle(req, res, url)) return;
    if (rewriteRefusals.handle(req, res, url)) return;
    if (glmPerplexity.handle(req, res, url)) return;
    if (chineseSites.handle(req, res, url)) return;
    if (copilotBigAgi.handle(req, res, url)) return;
    if (siteHistory.handle(req, res, url)) return;
    const route = `${req.method} ${url.pathname}`;
    const wireRoute = WIRE_ROUTES[route];
    if (route === 'GET /' || route === 'GET /index.html') {
      sendIndex(res);
    } else if (wireRoute !== undefined) {
      streamAnswer(req, res, wireRoute, newRecord(route), chunkDelayMs).catch((error: unknown) => {
        if (!res.headersSent) send(res, 400, 'text/plain; charset=utf-8', String(error));
        else res.destroy();
      });
    } else if (POST_ONLY.has(url.pathname)) {
      res.setHeader('allow', 'POST');
      send(res, 405, 'text/plain; charset=utf-8', 'method not allowed');
    } else if (route === 'GET /api/status') {
      send(res, 200, 'application/json; charset=utf-8', STATUS_JSON);
    } else if (route === 'GET /favicon.ico') {
      res.writeHead(204).end();
    } else {
      send(res, 404, 'text/plain; charset=utf-8', 'not found');
    }
  });
  server.on('upgrade', (req, socket) => {
    if (!copilotBigAgi.upgrade(req, socket)) hookRoutes.upgrade(req, socket);
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
    sent: (id) => sent.get(id),
    attacker,
    received: () => demo.received(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => void attacker.close().then(resolve));
        server.closeAllConnections();
        hookRoutes.close();
        copilotBigAgi.close();
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
