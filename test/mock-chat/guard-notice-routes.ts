/**
 * Mock chat routes for the in-page notices of issue 4 (guard-notice-scenarios.ts):
 *
 * - `GET /guard-notices`: a chat page that asks for one scripted scenario and renders the
 *   answer's text as it streams (guard-notices.html).
 * - `POST /webapi/chat/openai`: the scenario as LobeChat SSE, on LobeChat's own endpoint
 *   (WIRE-FORMATS.md §6.3), so the extension recognises it as a real LobeChat answer.
 * - `POST /guard-notices/v1/chat/completions`: the scenario as OpenAI Chat Completions SSE.
 *
 * The scenario is the last user message's text (OpenAI-style `messages`). Each event is
 * one network write, followed by the chunk delay and the scenario's own pause (the
 * stall). Loopback only, like the rest of the mock chat.
 */
import { sendNoncePage } from './nonce-page.ts';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  guardNoticeScenario,
  isScenarioName,
  scenarioEvents,
  type ScenarioFormat,
} from './guard-notice-scenarios.ts';
import { readBody } from './request-body.ts';

const here = dirname(fileURLToPath(import.meta.url));
const PAGE_HTML = readFileSync(join(here, 'guard-notices.html'), 'utf8');
const MAX_BODY_BYTES = 16 * 1024;

const ENDPOINTS: Record<string, ScenarioFormat> = {
  'POST /webapi/chat/openai': 'lobechat',
  'POST /guard-notices/v1/chat/completions': 'openai',
};

export interface GuardNoticeRoutes {
  /** Answers the request when it is one of these routes; false otherwise. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(body);
}

function sendPage(res: ServerResponse): void {
  sendNoncePage(res, PAGE_HTML, ["connect-src 'self'"]);
}

/** The last user message's text: the scenario's name. */
function requestedScenario(body: string): string {
  const parsed = JSON.parse(body) as { messages?: { role?: unknown; content?: unknown }[] };
  const users = (parsed.messages ?? []).filter((m) => m.role === 'user');
  const content = users.at(-1)?.content;
  return typeof content === 'string' ? content.trim() : '';
}

async function stream(
  req: IncomingMessage,
  res: ServerResponse,
  format: ScenarioFormat,
  chunkDelayMs: number,
): Promise<void> {
  const name = requestedScenario(await readBody(req, MAX_BODY_BYTES));
  if (!isScenarioName(name)) {
    send(res, 404, 'text/plain; charset=utf-8', 'no such scenario');
    return;
  }
  const scenario = guardNoticeScenario(name);
  if (scenario.format !== format) {
    send(res, 400, 'text/plain; charset=utf-8', `scenario ${name} is ${scenario.format}`);
    return;
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
  });
  for (const event of scenarioEvents(scenario)) {
    if (res.destroyed) return;
    res.write(event.bytes);
    await sleep(chunkDelayMs + event.pauseAfterMs);
  }
  res.end();
}

export function createGuardNoticeRoutes(options: { chunkDelayMs: number }): GuardNoticeRoutes {
  return {
    handle(req, res, url) {
      const route = `${req.method} ${url.pathname}`;
      if (route === 'GET /guard-notices') {
        sendPage(res);
        return true;
      }
      const format = ENDPOINTS[route];
      if (format === undefined) return false;
      stream(req, res, format, options.chunkDelayMs).catch((error: unknown) => {
        if (!res.headersSent) send(res, 400, 'text/plain; charset=utf-8', String(error));
        else res.destroy();
      });
      return true;
    },
  };
}
